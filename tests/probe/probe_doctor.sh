#!/usr/bin/env bash
# doctor and explain against the probe's hostile inputs (ids H3 H4 W1 W2 W5
# W6 W7 M7): no blocking on /dev/kmsg or a FIFO, no torch.py from the
# current directory, XIDs after a NUL run and in a .gz log, corrupt entry
# kinds, strict XID numbers, a skipped head said, no escape sequences.
. "$(dirname "$0")/common.bash"
export GPUSCOPE_DOCTOR_NO_PYTHON=1
x79='NVRM: Xid (PCI:0000:18:00): 79, pid=1'

# H3: a drained /dev/kmsg ends the read (where it is readable: root, or
# kernel.dmesg_restrict=0)
if [ -r /dev/kmsg ]; then
	run doctor --kernel-log /dev/kmsg
	check "H3: doctor --kernel-log /dev/kmsg returns (exit $rc)" test $rc != 124
else
	echo "skip: H3: /dev/kmsg is not readable here"
fi

# H4: --binary FIFO is refused at once
mkfifo "$tmp/f.bin"
timeout 10 "$bin" doctor --kernel-log /dev/null --binary "$tmp/f.bin" >"$tmp/out" 2>&1
rc=$?
check "H4: doctor --binary FIFO: not a regular file, no wait (exit $rc)" \
	sh -c "[ $rc != 124 ] && grep -q 'not a regular file' '$tmp/out'"

# W1: a torch.py in the current directory is never run
mkdir "$tmp/evil"
cat >"$tmp/evil/torch.py" <<PY
import os; open('$tmp/evil/PWNED', 'w').write('uid=%d' % os.getuid())
class version: cuda = '12.4'
class cuda:
    is_available = staticmethod(lambda: True)
PY
if command -v python3 >/dev/null; then
	(cd "$tmp/evil" && env -u GPUSCOPE_DOCTOR_NO_PYTHON timeout 60 "$bin" doctor --kernel-log /dev/null >"$tmp/out" 2>&1)
	check "W1: doctor does not import ./torch.py" sh -c "[ ! -e '$tmp/evil/PWNED' ] && ! grep -q 'cuda=12.4' '$tmp/out'"
fi

# W5: an XID right after a run of NULs, and an XID in a gzip-compressed log
{
	printf 'NVRM: Xid (PCI:0000:18:00): 13, pid=1\n'
	head -c 200000 /dev/zero
	echo "$x79"
} >"$tmp/n.log"
run doctor --kernel-log "$tmp/n.log"
check "W5: an XID after a NUL run is found" grep -q "XID 79" "$tmp/out"
echo "$x79" | gzip >"$tmp/k.log.gz"
run doctor --kernel-log "$tmp/k.log.gz"
check "W5: an XID in a .gz log is found" grep -q "XID 79" "$tmp/out"

# W6: a fatbinary entry of an unknown kind is corrupt, never "ok"
python3 -c "
import struct, sys; b = bytearray(open('$fx/fatbin/tiny_sm80_sm90.o', 'rb').read())
struct.pack_into('<H', b, 0x3a0 + 16, 0x7777); open('$tmp/kind.o', 'wb').write(b)"
run doctor --kernel-log /dev/null --binary "$tmp/kind.o"
check "W6: an unknown entry kind is a failed check" sh -c "grep -q 'fail .*binary_arch.*corrupt fatbinary entry' '$tmp/out' && ! grep -q 'ok .*binary_arch' '$tmp/out'"

# W7: doctor's XID numbers are decimal numbers on their own; explain takes several bare numbers
printf 'NVRM: Xid (PCI:0000:18:00): 0x4f, pid=1\nNVRM: Xid (PCI:0000:18:00): 1e3, pid=1\nNVRM: Xid (PCI:0000:18:00): 79abc, pid=1\n' >"$tmp/w.log"
run doctor --kernel-log "$tmp/w.log"
check "W7: 0x4f, 1e3 and 79abc are not XIDs" sh -c "! grep -q 'XID' '$tmp/out'"
run explain -f json '79 48'
check "W7: explain '79 48' explains both" sh -c "[ $rc = 0 ] && grep -q '\"xid\": *79' '$tmp/out' && grep -q '\"xid\": *48' '$tmp/out'"
run explain 'Xid -1'
check "W7: explain 'Xid -1' is not XID 1" sh -c "! grep -q '^XID 1:' '$tmp/out'"

# M7: a log over 64 MiB: the check says its head was not read
{
	echo "$x79"
	head -c 70M /dev/zero | tr '\0' 'a' | fold -w 100
} >"$tmp/big.log"
run doctor --kernel-log "$tmp/big.log"
check "M7: a log over 64 MiB says that its first MiB were not read" sh -c "tr -s '\n ' ' ' <'$tmp/out' | grep -q 'were not read'"
rm -f "$tmp/big.log"

# W2: control characters in the kernel log's process name are not printed
printf 'NVRM: Xid (PCI:0000:18:00): 79, pid=1, name=\033[2J\033]0;pwn\007evil, Ch 1\n' >"$tmp/k.log"
run doctor --kernel-log "$tmp/k.log"
check "W2: doctor prints no ESC or BEL from the kernel log" noctl "$tmp/out" evil
finish
