#!/usr/bin/env bash
# Options and small inputs at their edges (probe ids W8 W11 W15 M3): vram's
# lists in JSON, sequences past learned positions, wrong-typed config
# fields; empty --range, "-0", a grid one past the limit; explain's sizes.
. "$(dirname "$0")/common.bash"
F=$fx/real

# W11: vram
run vram --list -f json
check "W11: vram --list -f json is JSON" python3 -c "import json; json.load(open('$tmp/out'))"
run vram --gpu list -f json
check "W11: vram --gpu list -f json is JSON" python3 -c "import json; json.load(open('$tmp/out'))"
run vram --gpu h100 --mode inference --seq 100000 gpt2
check "W11: gpt2 with 100000 tokens: refused, not 'fits' (exit $rc)" sh -c "[ $rc = 1 ] && grep -q 'learned positions' '$tmp/err'"
run vram --gpu h100 gpt2
check "W11: gpt2 by default: a sequence within its 1024 positions" sh -c "[ $rc = 0 ] && grep -q 'seq 1024' '$tmp/out'"
cat >"$tmp/act.json" <<'J'
{"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32, "intermediate_size": 11008, "vocab_size": 32000, "hidden_act": 5}
J
run vram --gpu h100 "$tmp/act.json"
check "W11: \"hidden_act\": 5 is an error (exit $rc)" sh -c "[ $rc = 1 ] && grep -q hidden_act '$tmp/err'"
sed 's/"hidden_act": 5/"num_key_value_heads": 0/' "$tmp/act.json" >"$tmp/kv0.json"
run vram --gpu h100 "$tmp/kv0.json"
check "W11: num_key_value_heads 0 is an error (exit $rc)" sh -c "[ $rc = 1 ] && grep -q num_key_value_heads '$tmp/err'"

# W15: option edges
run diff --range "" "$F/torch_h2d_pageable.db" "$F/torch_h2d_pinned.db"
check "W15: diff --range '' is a usage error (exit $rc)" test $rc = 2
run report --range "" "$F/torch_h2d_pageable.db"
check "W15: report --range '' is a usage error (exit $rc)" test $rc = 2
run diff --fail-on-regression -0 "$F/torch_h2d_pinned.db" "$F/torch_h2d_pageable.db"
check "W15: --fail-on-regression -0 is a usage error (exit $rc)" test $rc = 2
run occupancy --arch sm_90 --block-size 256 --regs 32 --grid 9223090564025548801
check "W15: --grid one past its limit is a usage error (exit $rc)" test $rc = 2
run occupancy --arch sm_90 --block-size 256 --regs 32 --grid 9223090564025548800
check "W15: --grid at its limit is taken (exit $rc)" test $rc = 0

# M3: explain over 4 MiB does not claim a size it did not read
python3 -c "print('Xid 79\n' * 1500000)" >"$tmp/big.txt"
run explain - <"$tmp/big.txt"
check "M3: explain of 10 MB says 'more than 4 MiB', no wrong size" sh -c "[ $rc = 1 ] && grep -q 'more than 4 MiB' '$tmp/err' && ! grep -q 4194305 '$tmp/err'"

# W8: query_bytes counts NUL bytes
printf 'Xid 79\0\0\0\nNVRM: Xid (PCI:0000:18:00): 48, pid=1\n' >"$tmp/nul.txt"
run explain -f json - <"$tmp/nul.txt"
want=$(($(stat -c %s "$tmp/nul.txt") + 1))
check "W8: query_bytes is the input's length and the newline explain puts first ($want)" \
	python3 -c "import json; assert json.load(open('$tmp/out'))['query_bytes'] == $want"
finish
