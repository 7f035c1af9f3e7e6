#!/usr/bin/env bash
# deploy/ validated offline: yamllint, kubernetes-validate (PyPI, installed
# by scripts/install-tools.sh) in strict mode against the Kubernetes API
# schemas, promtool on the plain scrape configs, and the cross-checks of
# scripts/validate-deploy.py (selectors, ports, privileges, the dashboard,
# the summaries' map and reduce Jobs and Slurm script).
# usage: deploy_check.sh BUILD/gpuscope SOURCE_DIR
set -u
src=$2
d=$src/deploy
fail=0
run() { # run DESC CMD...
	local desc=$1
	shift
	if "$@" >/tmp/gs-deploy.out 2>&1; then echo "ok: $desc"; else
		echo "FAIL: $desc"; cat /tmp/gs-deploy.out; fail=1
	fi
}
run "yamllint" yamllint -s -c "$d/.yamllint" "$d"
bin=$(bash "$src/scripts/install-tools.sh") || { echo "FAIL: scripts/install-tools.sh"; exit 1; }
for f in namespace daemonset service summaries-job summaries-reduce-job; do
	run "kubernetes-validate --strict $f.yaml" "$bin/kubernetes-validate" --strict --quiet "$d/kubernetes/$f.yaml"
done
for f in prometheus scrape-dcgm-labels; do
	run "promtool check config $f.yml" promtool check config "$d/prometheus/$f.yml"
done
run "validate-deploy.py" "$bin/python" "$src/scripts/validate-deploy.py" "$d" "$src/src/gpu/metrics.h"
[ $fail = 0 ] && echo "deploy_check: all passed"
exit $fail
