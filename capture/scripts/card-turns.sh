# Sourced by the card scripts: runs that share a card's machine but never
# its card. card_turns AHEAD DIR LOG RUNNER RUN... runs each RUN (one
# word list) as `RUNNER RUN... EMBER_CAPTURE_GATE=FIFO` in the background,
# up to AHEAD of them started ahead of the one that has the card, so that
# their work before CUDA overlaps. The card is theirs one at a time, in
# the order given: each run waits in ember-capture's gate (capture/tool/
# capture_gate.h), which the CUDA driver enters in cuInit, before the
# process has a context, until its turn is written to its FIFO (DIR/N),
# and the next turn is written only once the run has exited. RUNNER's
# output goes to DIR/N.log, appended to LOG in the runs' order, between
# a line "TURN N RUN contexts=C started=S" (C: the processes with a
# context on the card as the turn is given, by nvidia-smi, "-" without
# it, which must be none; S: the runs started by then) and "TURN N rc=R"
# (R: RUNNER's exit status, or GATE-NOT-TAKEN where the run never read
# its turn: a run the gate did not hold, which counts as failed). After
# two failed runs in a row the rest are refused their turns (they exit at
# the gate) and card_turns returns 1; on TERM or INT likewise, and once
# every run has ended, the one with the card too, the shell exits 143.
# CARD_TURN_DONE, if set, is a command run with N after each run's output
# has been appended (a clean-up).
card_turns() {
	local ahead=$1 dir=$2 log=$3 runner=$4
	shift 4
	local -a runs=("$@") pids=()
	local n=$# next=0 t given=-1 rc failed=0 contexts fd
	rm -rf "$dir"
	mkdir -p "$dir"
	# Stopped from outside (a timeout), the script ends only once no run
	# of it is left: the others refused, the one with the card finished,
	# so that nothing started after it shares the card with it.
	trap 'echo "TURNS STOPPED at turn $t: signalled" >>"$log";
	      card_turns_refuse "$dir" $((given + 1)) $next; wait "${pids[@]}"; exit 143' TERM INT
	for ((t = 0; t < n; t++)); do
		while ((next < n && next <= t + ahead)); do
			mkfifo "$dir/$next"
			$runner ${runs[$next]} EMBER_CAPTURE_GATE="$dir/$next" \
				>"$dir/$next.log" 2>&1 &
			pids[$next]=$!
			next=$((next + 1))
		done
		contexts=-
		command -v nvidia-smi >/dev/null &&
			contexts=$(nvidia-smi --query-compute-apps=pid --format=csv,noheader | grep -c .)
		echo "TURN $t ${runs[$t]// /-} contexts=$contexts started=$next" >>"$log"
		# The turn waits in the FIFO, held open here (read and write: the
		# open does not block), until the run reads it; a byte still
		# there once the run has exited was never taken.
		exec {fd}<>"$dir/$t"
		printf x >&$fd
		given=$t
		wait "${pids[$t]}"
		rc=$?
		! read -r -t 0 -u $fd || rc=GATE-NOT-TAKEN
		exec {fd}>&-
		cat "$dir/$t.log" >>"$log"
		echo "TURN $t rc=$rc" >>"$log"
		rm -f "$dir/$t" "$dir/$t.log"
		[ -z "${CARD_TURN_DONE:-}" ] || $CARD_TURN_DONE "$t"
		[ $rc = 0 ] && failed=0 && continue
		failed=$((failed + 1))
		[ $failed -lt 2 ] && continue
		echo "TURNS STOPPED after turn $t: two runs failed in a row" >>"$log"
		card_turns_refuse "$dir" $((t + 1)) $next
		wait "${pids[@]}"
		trap - TERM INT
		return 1
	done
	trap - TERM INT
	return 0
}

# card_turns_refuse DIR FROM TO: refuses runs FROM..TO-1 their turns. A
# writer that closes without a byte refuses a run waiting in its gate,
# and one that comes later finds no FIFO; either exits there.
card_turns_refuse() {
	local t fd
	for ((t = $2; t < $3; t++)); do
		[ -p "$1/$t" ] || continue
		exec {fd}<>"$1/$t"
		rm -f "$1/$t"
		exec {fd}>&-
	done
}
