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

echo "agent-test: $fails failed"
[ "$fails" -eq 0 ]
