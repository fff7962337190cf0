#!/usr/bin/env bash
# Boots one VM running ember-fuzz-ioctl (random abuse of /dev/ember under
# panic_on_warn) for SECONDS and judges it: the VM finished cleanly (no
# oops, warning or panic on the console, QEMU exit 0, no timeout), the
# program's final line says the driver answered after every step, every
# word written through CPU pointers read back, no malformed call was
# accepted, every malformed call was refused with an errno of its class
# (EINVAL for a field out of its rules, EFAULT for memory that is not
# there, ENOTTY for no such command, ...), and ember.ko unloaded and loaded
# again at the end. KTAP, then
# the figure (steps, calls, oopses), where the time went (the VM's boot and
# shutdown, each operation, the checks after the steps) and "N passed, M
# failed, 0 skipped".
#
# usage: run-test.sh AGENT QEMU KERNEL INITRD WORKDIR SECONDS [SEED [CALLS]]
# (SECONDS and CALLS: the program stops at whichever comes first; CALLS 0:
# no limit)
set -uo pipefail

agent=$1 qemu=$2 kernel=$3 initrd=$4 workdir=$5 seconds=$6 seed=${7:-1} calls=${8:-0}
rm -rf "$workdir"
mkdir -p "$workdir"
start=$(date +%s)
"$agent" vm --qemu "$qemu" --kernel "$kernel" --initrd "$initrd" \
	--profile h200-64m --memory 512 --scenarios "" --workdir "$workdir" \
	--fuzz-ioctl "-s $seed -t $seconds -c $calls" --timeout $((seconds + 240)) --json \
	>"$workdir/agent.jsonl" 2>"$workdir/agent.err"
vm_rc=$?
vm_s=$(($(date +%s) - start))
final=$(grep '"scenario":"fuzz-ioctl"' "$workdir/agent.jsonl" | grep '"final":true')
field() { grep -o "\"$1\":[^,}]*" <<<"$final" | head -n1 | cut -d: -f2- | tr -d '"'; }

echo "KTAP version 1"
echo "1..6"
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
[ "$(field wrong_errno)" = 0 ]
check "every malformed call refused with its errno class" $? \
	"$(field wrong_errno) refused otherwise, the first of each call: $(grep -o "\"first_wrong_errno\":\"[^\"]*\"" <<<"$final" | cut -d\" -f4)"
[ "$(field reloaded)" = 1 ]; check "ember.ko unloads and reloads" $? "reloaded $(field reloaded)"
oops=$(grep -c -E 'Oops|BUG:|WARNING:|Kernel panic' "$workdir/console.log" 2>/dev/null)
echo "# fuzz-ioctl: seed $seed, $(field steps) steps, $(field calls) calls," \
	"$(field touches) CPU word reads/writes in $(printf %.0f "$(field wall_s)") s;" \
	"oopses ${oops:-?}"
[ -n "$final" ] && jq -r --argjson vm "$vm_s" '
	"# time: VM \($vm) s, of which boot and shutdown \($vm - .wall_s | floor) s; "
	+ "program \(.wall_s | round) s: "
	+ ([.op_s | to_entries[] | select(.value > 0)] | sort_by(-.value) | .[0:6]
	   | map("\(.key) \(.value * 100 | round / 100) s") | join(", "))
	+ ", ..., checks after the steps \(.check_s * 100 | round / 100) s"' <<<"$final"
echo "$((n - failed)) passed, $failed failed, 0 skipped"	# it skips no check
[ "$failed" = 0 ]
