#!/usr/bin/env bash
# Boots one VM running ember-fuzz-ioctl (random abuse of /dev/ember under
# panic_on_warn) for SECONDS and judges it: the VM finished cleanly (no
# oops, warning or panic on the console, QEMU exit 0, no timeout), the
# program's final line says the driver answered after every step, every
# word written through CPU pointers read back, no malformed call was
# accepted, and ember.ko unloaded and loaded again at the end. KTAP, then
# the figure (steps, calls, oopses) and "N passed, M failed".
#
# usage: run-test.sh AGENT QEMU KERNEL INITRD WORKDIR SECONDS [SEED]
set -uo pipefail

agent=$1 qemu=$2 kernel=$3 initrd=$4 workdir=$5 seconds=$6 seed=${7:-1}
rm -rf "$workdir"
mkdir -p "$workdir"
"$agent" vm --qemu "$qemu" --kernel "$kernel" --initrd "$initrd" \
	--profile h200-64m --memory 512 --scenarios "" --workdir "$workdir" \
	--fuzz-ioctl "-s $seed -t $seconds" --timeout $((seconds + 240)) --json \
	>"$workdir/agent.jsonl" 2>"$workdir/agent.err"
vm_rc=$?
final=$(grep '"scenario":"fuzz-ioctl"' "$workdir/agent.jsonl" | grep '"final":true')
field() { grep -o "\"$1\":[^,}]*" <<<"$final" | head -n1 | cut -d: -f2- | tr -d '"'; }

echo "KTAP version 1"
echo "1..5"
n=0 failed=0
check() {	# check NAME CONDITION-RESULT DETAIL
	n=$((n + 1))
	if [ "$2" = 0 ]; then
		echo "ok $n $1"
	else
		failed=$((failed + 1))
		echo "not ok $n $1: $3"
	fi
}
check "VM finished cleanly (console, QEMU exit, timeout)" $vm_rc \
	"$(tr '\n' ' ' <"$workdir/agent.err")"
[ -n "$final" ]; check "final line from the guest" $? "none (logs in $workdir)"
[ -n "$final" ] && [ "$(field mismatches)" = 0 ] && [ -z "$(field problem)" ]
check "driver answered and data read back after every step" $? \
	"mismatches $(field mismatches), problem '$(field problem)' at step $(field problem_step)"
[ "$(field accepted_bad)" = 0 ]
check "no malformed call accepted" $? "$(field accepted_bad): $(field first_accepted_bad)"
[ "$(field reloaded)" = 1 ]; check "ember.ko unloads and reloads" $? "reloaded $(field reloaded)"
oops=$(grep -c -E 'Oops|BUG:|WARNING:|Kernel panic' "$workdir/console.log" 2>/dev/null)
echo "# fuzz-ioctl: seed $seed, $(field steps) steps, $(field calls) calls," \
	"$(field touches) CPU word reads/writes in $(printf %.0f "$(field wall_s)") s;" \
	"oopses ${oops:-?}"
echo "$((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
