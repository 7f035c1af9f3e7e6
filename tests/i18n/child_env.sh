#!/usr/bin/env bash
# Chinese output sets LANGUAGE inside gpuscope (glibc needs it on a C.UTF-8-only
# machine, util/i18n.h); the program `record` starts must see the user's own LANGUAGE:
# unset stays unset, a value stays that value. usage: child_env.sh BUILD/gpuscope SOURCE_DIR
set -u
. "$(dirname "$0")/../lib.sh"
show='echo "LANGUAGE=[${LANGUAGE-unset}]"'
got=$(env -i LANG=zh_CN.UTF-8 PATH="$PATH" "$bin" record -o "$tmp/a.db" -- sh -c "$show" 2>/dev/null)
[ "$got" = "LANGUAGE=[unset]" ] && ok "unset stays unset" || bad "child saw $got"
got=$(env -i LANG=zh_CN.UTF-8 LANGUAGE=zh_CN:en PATH="$PATH" "$bin" record -o "$tmp/b.db" -- sh -c "$show" 2>/dev/null)
[ "$got" = "LANGUAGE=[zh_CN:en]" ] && ok "the user's value is kept" || bad "child saw $got"
exit $fail
