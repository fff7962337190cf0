#!/bin/bash
# SPDX-License-Identifier: MIT
# ember-agent against a hostile guest: the real agent boots fake-qemu
# (tests/agent/fake-qemu.c), which takes the agent's QEMU command line and
# writes into the very console file, results FIFOs and QMP socket the
# agent reads, as a guest and a QEMU that misbehave would. Each case
# asserts exact outcomes: what reaches the terminal, how long the agent
# takes, what it records.
#
# usage: run-test.sh AGENT FAKE-QEMU WORKDIR
set -eu
agent=$1 fake=$2 work=$3
rm -rf "$work.d"
mkdir -p "$work.d"
work=$work.d
fails=0

ok() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# vm MODE WORKDIR [AGENT OPTIONS]: ember-agent vm on fake-qemu, in MODE
vm() {
	local mode=$1 dir=$2
	shift 2
	EMBER_FAKE_GUEST=$mode "$agent" vm --qemu "$fake" --kernel /dev/null \
		--initrd /dev/null --workdir "$work/$dir" "$@"
}

# Escape sequences in a result line's scenario, key and values, and raw in
# a line that is not JSON: the terminal sees them escaped (term.h), never
# a control character or a C1 code.
set +e
vm escape esc --timeout 20 >"$work/esc.out" 2>&1
vm escape esc --timeout 20 --json >"$work/esc.json" 2>&1
set -e
for f in esc.out esc.json; do
	if LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]\|\xc2[\x80-\x9f]' "$work/$f"; then
		fail "$f: a control character reached the terminal: $(cat -v "$work/$f")"
	else
		ok "$f: no control character"
	fi
done
expect_line() {	# FILE LINE
	if grep -qxF -- "$2" "$1"; then
		ok "$(basename "$1"): $2"
	else
		fail "expected the line '$2' in $1:"
		cat -v "$1"
	fi
}
expect_line "$work/esc.out" '  \x1B[2Jwiped \x1B]0;owned\x07key    1'
expect_line "$work/esc.out" '  \x1B[2Jwiped csi                    "\u{009B}31mred"'
expect_line "$work/esc.out" '  unparsed   line                   "\u001B[31mnot json\u001B[0m"'
expect_line "$work/esc.json" '{"scenario":"\u001B[2Jwiped","\u001B]0;owned\u0007key":1,"csi":"\u009B31mred","bell":"\u0007"}'

# run MODE NAME [KEY=VALUE...]: a one-run matrix NAME on fake-qemu in
# MODE (timeout 3 s unless given); its result.json is $work/res/NAME/run.json
run() {
	local mode=$1 name=$2 conf=$work/$2.conf
	shift 2
	printf 'name = %s\napps = hotset\nvariants = uvm\nfactors = 1\njobs = 1\n' "$name" >"$conf"
	printf '%s\n' "${@:-timeout = 3}" >>"$conf"
	EMBER_FAKE_GUEST=$mode "$agent" run "$conf" --qemu "$fake" --kernel /dev/null \
		--initrd /dev/null --results "$work/res" >"$work/$name.out" 2>&1 || true
	cp "$work/res/$name/runs/hotset-uvm-x1-s1/result.json" "$work/res/$name/run.json" 2>/dev/null ||
		echo '{}' >"$work/res/$name/run.json"
}
expect_json() {	# FILE JQ-FILTER EXPECTED
	local got
	got=$(jq -c "$2" "$1")
	if [ "$got" = "$3" ]; then
		ok "$(basename "$(dirname "$1")"): $2 = $3"
	else
		fail "$1: $2 is $got, expected $3"
	fi
}

# 50 hold lines at once: the host acts on the first alone (one QMP
# command, one "go"); the other 49 are guest errors, the run is ok.
EMBER_FAKE_N=50 run holds holds
expect_json "$work/res/holds/run.json" '[.status, .guest.errors, .device.sim_ns]' '["ok",49,1]'
if [ "$(cat "$work/res/holds/runs/hotset-uvm-x1-s1/fake-qmp.count" 2>/dev/null)" = 1 ]; then
	ok "holds: one QMP command for 50 hold lines"
else
	fail "holds: $(cat "$work/res/holds/runs/hotset-uvm-x1-s1/fake-qmp.count" 2>/dev/null) QMP commands for 50 hold lines"
fi
if grep -qx '{"scenario":"fake","go":1}' "$work/res/holds/runs/hotset-uvm-x1-s1/results.jsonl"; then
	ok "holds: the guest was released once"
else
	fail "holds: $(grep '"fake"' "$work/res/holds/runs/hotset-uvm-x1-s1/results.jsonl")"
fi

# A QMP socket that takes the connection and never answers, and 3 hold
# lines a second apart: the watchdog still ends the run at its 3 s timeout
# (the host would wait 30 s for each answer).
EMBER_FAKE_N=3 run stall stall
expect_json "$work/res/stall/run.json" '[.status, .why, .guest.errors]' \
	'["timeout","watchdog: still running at the timeout",2]'
# the VM's wall time as the agent measured it, from its start to its reaping
took=$(jq .wall_s "$work/res/stall/run.json")
if awk -v t="$took" 'BEGIN { exit !(t >= 3 && t < 4) }'; then
	ok "stall: the VM was stopped after $took s (timeout 3 s)"
else
	fail "stall: the VM was stopped after $took s with a timeout of 3 s"
fi

# Floods past each cap (ember-agent guest-caps, host-agent/vm.h): the VM
# is stopped at once, the run's status is output-limit naming the file,
# and the file holds exactly what the cap allows.
cap() {	# FILE: its cap in bytes
	"$agent" guest-caps | awk -F' [|] ' -v f="\`$1\`" '$1 == "| " f { print $2 * 1048576 }'
}
size() { stat -c %s "$1"; }
flooded() {	# MODE FILE EXPECTED-SIZE [GUEST-ERRORS]
	local dir=$work/res/$1/runs/hotset-uvm-x1-s1
	run "$1" "$1" 'timeout = 120'
	expect_json "$work/res/$1/run.json" '[.status, .why, .guest.errors]' \
		"[\"output-limit\",\"the guest wrote past $2's cap of $(cap "$2") bytes: the VM was stopped\",${4:-null}]"
	if [ "$(size "$dir/$2")" = "$3" ]; then
		ok "$1: $2 holds $3 bytes"
		rm -f "$dir/$2"	# tens of MiB, checked
	else
		fail "$1: $2 holds $(size "$dir/$2") bytes, expected $3"
	fi
}
# results: whole lines only, as many as fit in the cap
line='{"scenario":"flood","text":"0123456789abcdef0123456789"}'
flooded flood-results results.jsonl $(($(cap results.jsonl) / (${#line} + 1) * (${#line} + 1)))
# one line without end: dropped once past the longest line, then the cap
flooded endless-line results.jsonl 0 1
# QEMU's files: cut at their caps
flooded flood-console console.log "$(cap console.log)"
flooded flood-log qemu.log "$(cap qemu.log)"
# ember-agent vm says so and fails
set +e
vm flood-console vmflood --timeout 120 >"$work/vmflood.out" 2>&1
rc=$?
set -e
if [ $rc = 1 ] && grep -qxF "ember-agent: the guest wrote past console.log's cap of $(cap console.log) bytes: the VM was stopped" "$work/vmflood.out"; then
	ok "vm: a flood stops the VM with exit status 1 and says which cap"
	rm -f "$work/vmflood/console.log"
else
	fail "vm: exit $rc: $(cat "$work/vmflood.out")"
fi

echo "agent-test: $fails failed"
[ "$fails" -eq 0 ]
