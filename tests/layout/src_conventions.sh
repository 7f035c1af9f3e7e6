#!/usr/bin/env bash
# The conventions scripts/conventions.sh holds (growth only through
# util/vec.h, printing only in cli/ and the terminal views, mutable statics
# only with a reason, no fractional literal in a rule, no NVML call that
# changes GPU state): the real tree keeps
# them, and a small tree with one breach of each is reported, rule by rule.
# usage: src_conventions.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"
check=$src/scripts/conventions.sh
if bash "$check" "$src/src" >"$tmp/out"; then
	ok "src/ keeps its conventions"
else
	bad "src/ breaks its conventions:"
	cat "$tmp/out"
fi
# plant RULE FILE TEXT: a tree whose FILE holds TEXT; the checker must
# report RULE at it
plant() {
	rm -rf "$tmp/t" && mkdir -p "$tmp/t/$(dirname "$2")"
	printf '%b' "$3" >"$tmp/t/$2"
	if bash "$check" "$tmp/t" >"$tmp/out"; then
		bad "$1 in $2 not reported"
	elif grep -q "^$2:[0-9]*: $1:" "$tmp/out"; then
		ok "$1 in $2 reported"
	else
		bad "$1 in $2: wrong report"
		cat "$tmp/out"
	fi
}
plant growth analyze/x.c 'static int grow(int **v, size_t *cap)\n{\n\tsize_t nc = *cap ? *cap * 2 : 16;\n\tint *p = realloc(*v, nc * sizeof(*p));\n\treturn p ? 0 : -1;\n}\n'
plant print analyze/x.c 'void f(void)\n{\n\tfprintf(stderr, "hello\\n");\n}\n'
plant print import/load_any.c 'void f(void)\n{\n\tprintf("%%d\\n", 1);\n}\n'
plant static trace/x.c 'static int calls;\nint f(void)\n{\n\treturn ++calls;\n}\n'
plant static trace/x.c 'int f(void)\n{\n\tstatic char buf[64];\n\treturn buf[0];\n}\n'
plant static trace/x.c 'int trace_switch = 1;\n'
plant static vram/x.c 'int f(int i)\n{\n\tstatic int order[8], n_order = -1;\n\treturn order[i] + n_order;\n}\n'
plant literal diagnose/rules_x.c 'int f(double x)\n{\n\treturn x >= 0.75;\n}\n'
plant literal diagnose/rules_x.c 'double f(double x)\n{\n\treturn x * 1.05;\n}\n'
plant literal health/doctor.c 'int f(double t)\n{\n\treturn t > 87.5;\n}\n'
plant literal analyze/comm.c 'int f(double late, double n)\n{\n\treturn late >= 0.5 * n;\n}\n'
plant translate diagnose/rules_x.c 'void f(struct finding *f)\n{\n\tfinding_action(f, _("fuse the kernels"));\n}\n'
plant gpustate gpu/nvml.c 'int f(void *d)\n{\n\treturn nvmlDeviceSetPowerManagementLimit(d, 100);\n}\n'
# and what is not a breach
rm -rf "$tmp/t" && mkdir -p "$tmp/t/diagnose" "$tmp/t/util" "$tmp/t/cli"
printf 'static const int n = 3;\ndouble f(double x)\n{\n\tfinding_action(NULL, N_("fuse"));\n\treturn 100.0 * x / 1024.0; /* 0.5 in a comment */\n}\n' >"$tmp/t/diagnose/rules_x.c"
printf 'static int grow(int **v, size_t *cap)\n{\n\tsize_t nc = *cap * 2;\n\treturn realloc(*v, nc) ? 0 : -1;\n}\n' >"$tmp/t/util/vec.c"
printf 'void f(void)\n{\n\tfprintf(stderr, "x");\n}\n' >"$tmp/t/cli/cmd_x.c"
if bash "$check" "$tmp/t" >"$tmp/out"; then ok "consts, unit conversions, util/'s growth and cli/'s printing pass"; else
	bad "a legal tree refused"
	cat "$tmp/out"
fi
exit $fail
