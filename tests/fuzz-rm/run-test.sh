#!/usr/bin/env bash
# Boots the nvidia-uvm image (images/nvidia-uvm) with emgpu in its GA10x
# personality, runs emgpu-rm-fuzz there (random abuse of /dev/emgpu-rm
# from THREADS racing threads, with nvidia-uvm on the stand-in; the guest
# kernel under panic_on_warn and slub_debug, so that a warning, a
# use-after-free's poison or a redzone's overwrite ends the run) for
# SECONDS or CALLS, and judges it: the VM finished cleanly (no oops,
# warning or panic on the console, QEMU exit 0, no timeout), the
# program's final line says the RM answered after every step and every
# word read back, no malformed call was accepted, every call's outcome was
# in its set, no launch hung, emgpu-rm's accounting was back where it
# began once everything was closed, both modules unloaded and loaded
# again, then unloaded, and the stand-in logged no device error (one a
# user caused: it rang the device for what it should have refused). KTAP,
# the figures, "N passed, M failed, 0 skipped".
#
# With RUNS (a file), the run is also recorded there as one line
# (tests/fuzz-rm/report.sh sums them; make fuzz-rm-campaign):
#   date_utc commit branch seed threads seconds calls steps crashes oopses
#   hangs wrong_errno accepted_bad mismatches races launches
# crashes: the program gave no final line (it died, or the VM did);
# oopses: the console's Oops, BUG, WARNING and panic lines; hangs: launch
# hangs the program saw, and the VM's own timeout.
#
# usage: run-test.sh AGENT QEMU KERNEL INITRD WORKDIR SECONDS [SEED [CALLS [THREADS [BRANCH [RUNS]]]]]
# (SECONDS and CALLS: the program stops at whichever comes first; 0: no
# limit of that kind)
set -uo pipefail

agent=$1 qemu=$2 kernel=$3 initrd=$4 workdir=$5 seconds=$6 seed=${7:-1} calls=${8:-0}
threads=${9:-4} branch=${10:-550.163.01} runs=${11:-}
top=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$workdir"
mkdir -p "$workdir"
# the VM's bound: the boot, nvidia-uvm's loads and unloads, the program's
# last launches (each up to its 180 s), its checks and the reload
timeout=$((seconds + 900))
[ "$seconds" = 0 ] && timeout=$((calls / 20 + 900))
start=$(date +%s)
"$agent" vm --qemu "$qemu" --kernel "$kernel" --initrd "$initrd" --memory 1024 \
	--profile h200-128m --device-opts ',personality=ga10x' --scenarios none --json \
	--workdir "$workdir" --timeout "$timeout" \
	--append "rm_fuzz=-s,$seed,-t,$seconds,-c,$calls,-j,$threads${FUZZ_RM_ARGS:+,$FUZZ_RM_ARGS} nvuvm_branch=$branch slub_debug=FZPU" \
	>"$workdir/agent.jsonl" 2>"$workdir/agent.err"
vm_rc=$?
vm_s=$(($(date +%s) - start))
final=$(grep '"scenario":"fuzz-rm"' "$workdir/agent.jsonl" | grep '"final":true' | tail -n 1)
field() { jq -r ".$1" <<<"${final:-{\}}"; }
line() { grep -F -- "$1" "$workdir/agent.jsonl" | grep -qF -- "$2"; }

echo "KTAP version 1"
echo "1..10"
n=0 failed=0
check() {	# check NAME CONDITION-RESULT DETAIL
	n=$((n + 1))
	if [ "$2" = 0 ]; then
		echo "ok $n $1"
	else
		failed=$((failed + 1))
		echo "not ok $n $1"
		echo "# $3"
	fi
}
check "VM finished cleanly (console, QEMU exit, timeout)" $vm_rc \
	"$(tr '\n' ' ' <"$workdir/agent.err" | cut -c1-600)"
[ -n "$final" ]; check "final line from the guest" $? "none (logs in $workdir)"
[ -n "$final" ] && [ "$(field mismatches)" = 0 ] && [ -z "$(field problem)" ]
check "the RM answered after every step, every word read back" $? \
	"mismatches $(field mismatches), problem '$(field problem)'"
[ "$(field accepted_bad)" = 0 ]
check "no malformed call accepted" $? "$(field accepted_bad): $(field first_accepted_bad)"
[ "$(field wrong_errno)" = 0 ]
check "every call's outcome in its set" $? \
	"$(field wrong_errno) outside it, the first of each call: $(field first_wrong_errno)"
[ "$(field hangs)" = 0 ]; check "no launch hung" $? "$(field hangs) launches did not end"
[ "$(field objects_back)" = 1 ]
check "everything closed, emgpu-rm's objects as before the first call" $? \
	"objects_back $(field objects_back)"
[ "$(field reloaded)" = 1 ]; check "nvidia-uvm and emgpu-rm unload and load again" $? \
	"reloaded $(field reloaded)"
line '"rmmod":"nvidia-uvm","ret":0' "\"branch\":\"$branch\"" &&
	line '"rmmod":"emgpu-rm","ret":0' "\"branch\":\"$branch\""
check "then both unload" $? "$(grep -F '"rmmod"' "$workdir/agent.jsonl" | tr '\n' ' ')"
# a device error the stand-in logs is one it let a user cause (it rang
# the device for what it should have refused)
deverr=$(grep -a -E 'emgpu-rm .*(launch (refused|failed)|refused: device error)' \
	"$workdir/console.log" 2>/dev/null)
[ -z "$deverr" ]; check "the stand-in logged no device error" $? \
	"$(grep -c . <<<"$deverr") lines, the first: $(head -n 1 <<<"$deverr")"

oopses=$(grep -c -E 'Oops|BUG:|WARNING:|Kernel panic' "$workdir/console.log" 2>/dev/null)
# a field of the final line, 0 without one
num() { if [ -n "$final" ]; then field "$1"; else echo 0; fi; }
# the VM killed at its timeout (ember-agent vm --json does not say it)
hangs=$(($(num hangs) + (vm_s >= timeout)))
crashes=$([ -n "$final" ] && echo 0 || echo 1)
echo "# fuzz-rm: branch $branch, seed $seed, $threads threads, $(field steps) steps," \
	"$(field calls) calls in $(printf %.0f "$(field wall_s)") s (VM $vm_s s);" \
	"$(field races) racing outcomes, $(field children) child processes," \
	"launches $(field launches_ok) done, $(field launches_failed) failed," \
	"$(field launches_timed_out) timed out; crashes $crashes, oopses ${oopses:-?}, hangs $hangs"
[ -n "$final" ] && jq -r '"# time per operation: " + ([.op_s | to_entries[] | select(.value > 0)]
	| sort_by(-.value) | .[0:8] | map("\(.key) \(.value | round) s") | join(", "))' <<<"$final"
if [ -n "$runs" ]; then
	[ -s "$runs" ] || printf 'date_utc\tcommit\tbranch\tseed\tthreads\tseconds\tcalls\tsteps\tcrashes\toopses\thangs\twrong_errno\taccepted_bad\tmismatches\traces\tlaunches\n' >"$runs"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
		"$(date -u +%FT%TZ)" "$(git -C "$top" rev-parse --short HEAD)" "$branch" "$seed" \
		"$threads" "$(printf %.0f "$(num wall_s)")" "$(num calls)" "$(num steps)" \
		"$crashes" "${oopses:-0}" "$hangs" "$(num wrong_errno)" "$(num accepted_bad)" \
		"$(num mismatches)" "$(num races)" \
		"$(($(num launches_ok) + $(num launches_failed) + $(num launches_timed_out)))" >>"$runs"
	echo "# recorded in $runs: $(tail -n 1 "$runs")"
fi
echo "$((n - failed)) passed, $failed failed, 0 skipped"	# it skips no check
[ "$failed" = 0 ]
