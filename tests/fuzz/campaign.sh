#!/usr/bin/env bash
# make fuzz-campaign FUZZ_HARNESS=H FUZZ_SECONDS=N: one libFuzzer campaign
# of a tests/fuzz harness (regs or replay-plan), run as make -C tests/fuzz
# run-H runs it (same flags, same corpus under the build tree), recorded as
# one line of tests/fuzz/runs.tsv:
#   date_utc commit harness seconds executions exec_per_s cov ft crashes
#   timeouts cpu_s
# A crash, a leak, an out-of-memory or a timeout leaves its input under
# the build tree (-artifact_prefix) and fails the campaign, after the line
# is written. tests/fuzz/report.sh sums the lines.
#
#   campaign.sh HARNESS SECONDS [BUILD_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
harness=${1:?usage: campaign.sh regs|replay-plan SECONDS [BUILD_DIR]}
seconds=${2:?usage: campaign.sh regs|replay-plan SECONDS [BUILD_DIR]}
build=${3:-$top/build/fuzz}
runs=$here/runs.tsv
case $harness in
regs | replay-plan) ;;
*) echo "campaign.sh: no harness $harness (regs, replay-plan)" >&2; exit 2 ;;
esac
commit=$(git -C "$top" rev-parse --short HEAD)	# what the harness is built from
make -C "$here" O="$build" "$build/fuzz-$harness" >/dev/null

children_cpu_s() {
	tail -n1 "$1" | awk '{ split($1, u, /[ms]/); split($2, s, /[ms]/)
		printf "%.0f\n", u[1] * 60 + u[2] + s[1] * 60 + s[2] }'
}

log=$build/campaign-$harness.log
rc=0
times >"$build/times.start"
start=$(date +%s)
make -C "$here" O="$build" run-"$harness" SECONDS="$seconds" >"$log" 2>&1 || rc=$?
elapsed=$(($(date +%s) - start))
times >"$build/times.end"
cpu=$(($(children_cpu_s "$build/times.end") - $(children_cpu_s "$build/times.start")))
grep -v '^#[0-9]*[[:space:]]*\(NEW\|REDUCE\|pulse\)' "$log" | grep -v '^"' | tail -n 12

stat() { sed -n "s/^stat::$1:[[:space:]]*//p" "$log" | tail -n1; }
execs=$(stat number_of_executed_units)
rate=$(stat average_exec_per_sec)
cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -n1 || true)
crashes=0 timeouts=0
if [ "$rc" != 0 ]; then
	if grep -q 'ERROR: libFuzzer: timeout' "$log"; then timeouts=1; else crashes=1; fi
fi

[ -s "$runs" ] || printf 'date_utc\tcommit\tharness\tseconds\texecutions\texec_per_s\tcov\tft\tcrashes\ttimeouts\tcpu_s\n' >"$runs"
printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" \
	"$commit" "$harness" "$elapsed" "${execs:-0}" "${rate:-0}" \
	"$(echo "$cov" | awk '{print $2}')" "$(echo "$cov" | awk '{print $4}')" \
	"$crashes" "$timeouts" "$cpu" >>"$runs"
tail -n1 "$runs"
if [ "$crashes" != 0 ] || [ "$timeouts" != 0 ]; then
	echo "fuzz-campaign: run-$harness stopped with status $rc; input under $build/ (log $log)" >&2
	exit 1
fi
