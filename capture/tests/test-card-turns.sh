#!/usr/bin/env bash
# card_turns (capture/scripts/card-turns.sh) with fake runs that take the
# gate as ember-capture does (a byte read from the FIFO): the card phases
# come one at a time in the order given while the runs' earlier work
# overlaps; a run that never takes its turn is named; two failures in a
# row, or a TERM, refuse the rest at the gate. KTAP, closing "N passed, M failed".
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/scripts/ktap.sh"
. "$here/capture/scripts/card-turns.sh"
work=$(mktemp -d)
# Only this shell's exit: bash may run the trap in a fake's subshell too.
trap '[ $BASHPID != $$ ] || rm -rf "$work"' EXIT
PATH=/usr/bin:/bin	# no nvidia-smi: contexts=-

# fake NAME BEFORE_S CARD_S [RC] EMBER_CAPTURE_GATE=FIFO: "start NAME"
# at once, the gate after BEFORE_S, then "begin NAME", CARD_S on the
# card, "end NAME", exit RC. BEFORE_S "never": it exits 0 there instead.
fake() {
	local name=$1 before=$2 card=$3 rc=0 turn
	shift 3
	[ "$1" = "${1#EMBER_CAPTURE_GATE=}" ] && { rc=$1; shift; }
	echo "start $name" >>"$work/phases"
	[ "$before" = never ] && exit 0
	sleep "$before"
	turn=$(head -c 1 "${1#EMBER_CAPTURE_GATE=}")
	[ "$turn" = x ] || { echo "$name refused"; exit 9; }
	echo "begin $name" >>"$work/phases"
	sleep "$card"
	echo "end $name" >>"$work/phases"
	echo "output of $name"
	exit "$rc"
}

# Six runs, all started before the first turn: the slow starters (1 s
# before CUDA) finish that while the earlier ones have the card.
: >"$work/phases"
card_turns 5 "$work/gates" "$work/log" fake "a 0 0.3" "b 1 0.1" "c 1 0.1" \
	"d 1 0.1" "e 0 0.1" "f 1 0.1"
check "returns 0" test $? = 0
check "card phases one at a time, in order" \
	test "$(grep -E '^(begin|end)' "$work/phases" | tr '\n' ' ')" = \
	"begin a end a begin b end b begin c end c begin d end d begin e end e begin f end f "
check "every run started before the first card phase ended" \
	test "$(sed -n '/^end a$/q;/^start/p' "$work/phases" | wc -l)" = 6
check "log: each run's output between its TURN lines" \
	test "$(grep -c -E '^TURN [0-5] [a-f]-[0-9.]+-[0-9.]+ contexts=- started=6$' "$work/log")" = 6
check "log in order" \
	test "$(grep '^output of' "$work/log" | tr '\n' ' ')" = \
	"output of a output of b output of c output of d output of e output of f "
check "log: rc of each" test "$(grep -c '^TURN [0-5] rc=0$' "$work/log")" = 6

# A run that exits before its gate: named, counted failed, the next goes on.
: >"$work/phases"
card_turns 1 "$work/gates" "$work/log2" fake "a 0 0" "b never 0" "c 0 0"
check "a run past its gate: returns 0 after one failure" test $? = 0
check "a run past its gate: GATE-NOT-TAKEN" grep -q '^TURN 1 rc=GATE-NOT-TAKEN$' "$work/log2"
check "a run past its gate: the next run had the card" grep -q '^end c$' "$work/phases"

# Two failures in a row: the runs started after them are refused.
: >"$work/phases"
card_turns 3 "$work/gates" "$work/log3" fake "a 0 0 1" "b 0 0 1" "c 0 0" "d 0.5 0" "e 0 0"
check "two failures: returns 1" test $? = 1
check "two failures: stopped" grep -q '^TURNS STOPPED after turn 1' "$work/log3"
check "two failures: no card phase after them" \
	test "$(grep -c '^begin' "$work/phases")" = 2
check "two failures: the runs started meanwhile refused at their gates" \
	test "$(grep -c '^start' "$work/phases")" = 5
# Stopped by TERM while the first run has the card: the others refused,
# the first one finished before the shell exits.
: >"$work/phases"
(card_turns 3 "$work/gates" "$work/log4" fake "a 0 1" "b 0 0" "c 0.2 0" "d 0 0") &
stopped=$!
for ((i = 0; i < 100; i++)); do
	grep -q '^begin a$' "$work/phases" && break
	sleep 0.1
done
kill -TERM $stopped
wait $stopped
check "TERM: exits 143" test $? = 143
check "TERM: the run with the card finished first" grep -q '^end a$' "$work/phases"
check "TERM: no card phase after it" test "$(grep -c '^begin' "$work/phases")" = 1
check "TERM: stopped" grep -q '^TURNS STOPPED at turn 0: signalled$' "$work/log4"
check "no fake left running" test -z "$(jobs -p)"

ktap_summary
