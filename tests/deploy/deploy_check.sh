#!/usr/bin/env bash
# deploy/ validated offline: yamllint, kubernetes-validate (PyPI, installed
# by scripts/install-tools.sh) in strict mode against the Kubernetes API
# schemas, on every manifest and on what kubectl's kustomize renders from the
# base and the kube-prometheus-stack overlay (its ServiceMonitor must carry
# the release label, the base's not), promtool on the plain scrape configs,
# and the cross-checks of scripts/validate-deploy.py (selectors, ports,
# privileges, probes, resources, the dashboard, the summaries' map and
# reduce Jobs and Slurm script).
# usage: deploy_check.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"
d=$src/deploy
run() { # run DESC CMD...
	local desc=$1
	shift
	if "$@" >"$tmp/out" 2>&1; then ok "$desc"; else
		bad "$desc"; cat "$tmp/out"
	fi
}
run "yamllint" yamllint -s -c "$d/.yamllint" "$d"
bin=$(bash "$src/scripts/install-tools.sh") || die "scripts/install-tools.sh"
for f in namespace daemonset service summaries-job summaries-reduce-job; do
	run "kubernetes-validate --strict $f.yaml" "$bin/kubernetes-validate" --strict --quiet "$d/kubernetes/$f.yaml"
done
for k in kubernetes overlays/kube-prometheus-stack overlays/dcgm-compat; do
	n=$(basename "$k")
	run "kubectl kustomize $k" sh -c "'$bin/kubectl' kustomize '$d/$k' >'/tmp/gs-kust-$n.yaml'"
	run "kubernetes-validate --strict (kustomize $k)" "$bin/kubernetes-validate" --strict --quiet "/tmp/gs-kust-$n.yaml"
done
run "the overlays: ServiceMonitor release: kube-prometheus-stack (the base none), dcgm-compat serves --compat dcgm" "$bin/python" -c '
import sys, yaml
def sm(p):
    return [d for d in yaml.safe_load_all(open(p)) if d and d["kind"] == "ServiceMonitor"][0]
assert sm(sys.argv[1])["metadata"]["labels"].get("release") == "kube-prometheus-stack"
assert "release" not in sm(sys.argv[2])["metadata"]["labels"]
ds = [d for d in yaml.safe_load_all(open(sys.argv[3])) if d and d["kind"] == "DaemonSet"][0]
assert ds["spec"]["template"]["spec"]["containers"][0]["args"][-2:] == ["--compat", "dcgm"]
' /tmp/gs-kust-kube-prometheus-stack.yaml /tmp/gs-kust-kubernetes.yaml /tmp/gs-kust-dcgm-compat.yaml
rm -f /tmp/gs-kust-*.yaml
for f in prometheus scrape-dcgm-labels; do
	run "promtool check config $f.yml" promtool check config "$d/prometheus/$f.yml"
done
run "validate-deploy.py" "$bin/python" "$src/scripts/validate-deploy.py" "$d" "$src/src/gpu/metrics.h"
[ $fail = 0 ] && echo "deploy_check: all passed"
exit $fail
