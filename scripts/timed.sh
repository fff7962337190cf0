#!/usr/bin/env bash
# Times the steps of make test: what a cold setup spends, step by step.
#
#   timed.sh LOG NAME COMMAND...   runs COMMAND, its output kept in
#                                  LOG.d/NAME.log and printed whole when
#                                  it ends (one step's at a time), appends
#                                  "NAME SECONDS RC CPU" to LOG and says it;
#                                  COMMAND's exit status. CPU: user and
#                                  system seconds of COMMAND and of every
#                                  descendant it waited for (not of a
#                                  daemon it started, such as libvirtd's
#                                  guests)
#   timed.sh --report LOG STEP...  the table of the STEPs (each with its
#                                  seconds and CPU seconds, or failed / not
#                                  run), the wall
#                                  time since LOG.start, then the closing
#                                  "N passed, M failed" (a step not run, its
#                                  prerequisite failed, counts as failed);
#                                  exit status 1 when any failed. With
#                                  LOG.stat (/proc/stat's cpu line at the
#                                  start) also how busy the machine's CPUs
#                                  were since: every process's time, the
#                                  daemons' guests' too, against wall x CPUs
set -uo pipefail

if [ "$1" = --report ]; then
	log=$2
	shift 2
	start=$(cat "$log.start" 2>/dev/null || date +%s)
	wall=$(($(date +%s) - start))
	# /proc/stat's cpu line: user nice system idle iowait irq softirq
	# steal, in clock ticks; busy is all but idle and iowait
	busy=
	if [ -f "$log.stat" ]; then
		busy=$( { cat "$log.stat"; head -n 1 /proc/stat; } | awk -v hz="$(getconf CLK_TCK)" \
			-v cpus="$(nproc)" '
			{ b[NR] = $2 + $3 + $4 + $7 + $8 + $9; t[NR] = b[NR] + $5 + $6 }
			END {
				if (t[2] <= t[1]) exit
				printf "%d of %d CPU s (%d CPUs, %.1f %%)", (b[2] - b[1]) / hz + 0.5,
					(t[2] - t[1]) / hz + 0.5, cpus, 100 * (b[2] - b[1]) / (t[2] - t[1])
			}')
	fi
	echo "make test, each step's wall time and CPU time (steps overlap: their sum is not the wall time):"
	awk -v steps="$*" -v wall="$wall" -v busy="$busy" '
		{ secs[$1] = $2; rc[$1] = $3; cpu[$1] = (NF >= 4 ? $4 : "-") }
		END {
			n = split(steps, s, " ")
			for (i = 1; i <= n; i++) {
				name = s[i]
				if (!(name in secs)) {
					printf "  %-22s %6s   not run\n", name, "-"; failed++
				} else if (rc[name] != 0) {
					printf "  %-22s %6d s %6s CPU s failed (exit %d)\n", name, secs[name], cpu[name], rc[name]; failed++
				} else {
					printf "  %-22s %6d s %6s CPU s\n", name, secs[name], cpu[name]; passed++
				}
				sum += secs[name]; cpusum += cpu[name]
			}
			printf "  %-22s %6d s %6d CPU s\n", "sum of the steps", sum, cpusum
			printf "  %-22s %6d s (%d min %d s)\n", "wall", wall, wall / 60, wall % 60
			if (busy != "")
				printf "  %-22s %s\n", "the CPUs busy", busy
			printf "%d passed, %d failed\n", passed, failed
			exit failed > 0
		}' "$log"
	exit $?
fi
log=$1 name=$2
shift 2
# The step's output goes to LOG.d/NAME.log and is printed whole when it
# ends, one step at a time (steps run side by side).
mkdir -p "$log.d"
out=$log.d/$name.log
start=$(date +%s)
"$@" >"$out" 2>&1
rc=$?
secs=$(($(date +%s) - start))
# times' second line: the user and system time of the children waited
# for (in this shell: a pipe or $(...) would run it in a subshell that
# has waited for none)
tfile=$(mktemp)
times >"$tfile"
cpu=$(awk 'function s(t, a) { split(t, a, "m"); sub(/s$/, "", a[2]); return a[1] * 60 + a[2] }
	NR == 2 { printf "%d", s($1) + s($2) + 0.5 }' "$tfile")
rm -f "$tfile"
echo "$name $secs $rc $cpu" >>"$log"
{
	flock 9
	cat "$out"
	printf '[timed.sh] %s: %d s, %d CPU s%s\n' "$name" "$secs" "$cpu" "$([ "$rc" = 0 ] || echo ", exit $rc")"
} 9>>"$log.d/.print"
exit $rc
