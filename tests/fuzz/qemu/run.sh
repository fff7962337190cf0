#!/usr/bin/env bash
# make fuzz-qemu: QEMU's generic-fuzz target on emgpu's BARs and DMA, in the
# clang + libFuzzer + ASan + UBSan build of QEMU (build-qemu.sh --fuzz).
#
#   run.sh BUILD_DIR SECONDS
#   FUZZ_PERSONALITY=ga10x run.sh BUILD_DIR SECONDS   (personality.sh)
#
# Each input runs in the fuzzer's own process and is followed by a reset
# (QEMU_FUZZ_RESET, generic-fuzz-reset.patch) instead of a fork. The run
# starts from the corpus in the repository, writes what it finds under
# BUILD_DIR/fuzz-qemu/new, replaces the corpus by a minimal set with the
# coverage of both (-merge=1, so the committed corpus stays small) and
# appends one line of figures to runs.tsv beside this script (report.sh
# sums them). A crash, or an input that runs past -timeout (a timeout,
# counted apart), leaves its input under BUILD_DIR/fuzz-qemu/ and fails the
# run; an interrupt (SIGINT to the fuzzer) ends it early, with its figures
# recorded. Runs side by side need their own BUILD_DIRs; their merges
# into the corpus take turns (a lock on the corpus folder).
#
# -timeout=30 (seconds of wall time, which libFuzzer measures): a timeout
# should be a hang; at 10, an input of 6.6 CPU seconds (kmeans launches
# whose DMA lands in generic-fuzz's sparse memory) ran 13 s on a host at
# load ~6 and ended a run.
#
# -detect_leaks=0: with one process for all inputs, LeakSanitizer scans the
# whole heap after every input whose allocations outlive it (device state),
# which dominated an execution when tried (perf: __lsan::ScanRangeForPointers);
# the forking mode never checked leaks either (its children exit with _Exit).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: run.sh BUILD_DIR SECONDS}
seconds=${2:?usage: run.sh BUILD_DIR SECONDS}
. "$here/common.sh"	# fuzzer, corpus, runs (personality.sh)
work=$build/fuzz-qemu
[ "$personality" = emgpu ] || work=$work-$personality
commit=$(git -C "$top" rev-parse --short HEAD)	# what the fuzzer was built from
mkdir -p "$work/new" "$corpus"
export QEMU_FUZZ_RESET=1

# CPU seconds of this shell's finished children, user + system (on a
# shared host, executions per CPU second say more than per wall second),
# from `times` run in this shell: a subshell's children are not ours
children_cpu_s() {
	tail -n1 "$1" | awk '{ split($1, u, /[ms]/); split($2, s, /[ms]/)
		printf "%.0f\n", u[1] * 60 + u[2] + s[1] * 60 + s[2] }'
}

log=$work/fuzz.log
rc=0
times >"$work/times.start"
start=$(date +%s)
"$fuzzer" --fuzz-target=generic-fuzz -max_total_time="$seconds" -timeout=30 \
	-detect_leaks=0 -print_final_stats=1 -artifact_prefix="$work/" \
	"$work/new" "$corpus" >"$log" 2>&1 || rc=$?
elapsed=$(($(date +%s) - start))
times >"$work/times.end"
cpu=$(($(children_cpu_s "$work/times.end") - $(children_cpu_s "$work/times.start")))
grep -v '^#[0-9]*[[:space:]]*\(NEW\|REDUCE\|pulse\)' "$log" | tail -n 30

stat() { sed -n "s/^stat::$1:[[:space:]]*//p" "$log" | tail -n1; }
execs=$(stat number_of_executed_units)
rate=$(stat average_exec_per_sec)
# the last status line's coverage (edges) and features; in this mode they
# include the edges of the reset between inputs (report.sh measures the
# corpus without them)
cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -n1)
# libFuzzer's exit status: 72 when interrupted (SIGINT), after its stats;
# 70 when an input ran past -timeout
crashes=0 timeouts=0
case $rc in
0 | 72) ;;
70) timeouts=1 ;;
*) crashes=1 ;;
esac

# One merge into the corpus at a time: a run ending while another merges
# would list files that the other's rsync --delete then removes (libFuzzer
# restarts a merge whose input vanished, and gives up). The lock is the
# corpus folder's own, held until this run's line is in runs.tsv.
exec {corpus_lock}<"$corpus"
flock "$corpus_lock"
rm -rf "$work/min" && mkdir "$work/min"
"$fuzzer" --fuzz-target=generic-fuzz -merge=1 -detect_leaks=0 \
	"$work/min" "$corpus" "$work/new" >"$work/merge.log" 2>&1 ||
	{ tail -n 20 "$work/merge.log"; exit 1; }
rsync -r --delete "$work/min/" "$corpus/"
rm -rf "$work/new" "$work/min"

[ -s "$runs" ] || printf 'date_utc\tcommit\tseconds\texecutions\texec_per_s\tcov\tft\tcorpus\tcrashes\tcpu_s\ttimeouts\trun_budget\twork_max\n' >"$runs"
printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" \
	"$commit" "$elapsed" "${execs:-0}" \
	"${rate:-0}" "$(echo "$cov" | awk '{print $2}')" \
	"$(echo "$cov" | awk '{print $4}')" "$(ls "$corpus" | wc -l)" \
	"$crashes" "$cpu" "$timeouts" "$run_budget" "$work_max" >>"$runs"
tail -n1 "$runs"
if [ "$crashes" != 0 ] || [ "$timeouts" != 0 ]; then
	echo "fuzz-qemu: the fuzzer stopped with status $rc; input under $work/" >&2
	exit 1
fi
