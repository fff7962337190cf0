#!/usr/bin/env bash
# Times the steps of make test: what a cold setup spends, step by step.
#
#   timed.sh LOG NAME COMMAND...   runs COMMAND, appends "NAME SECONDS RC"
#                                  to LOG and says it on stderr; COMMAND's
#                                  exit status
#   timed.sh --report LOG STEP...  the table of the STEPs (each with its
#                                  seconds, or failed / not run), the wall
#                                  time since LOG.start, then the closing
#                                  "N passed, M failed" (a step not run, its
#                                  prerequisite failed, counts as failed);
#                                  exit status 1 when any failed
set -uo pipefail

if [ "$1" = --report ]; then
	log=$2
	shift 2
	start=$(cat "$log.start" 2>/dev/null || date +%s)
	wall=$(($(date +%s) - start))
	echo "make test, each step's wall time (steps overlap: their sum is not the wall time):"
	awk -v steps="$*" -v wall="$wall" '
		{ secs[$1] = $2; rc[$1] = $3 }
		END {
			n = split(steps, s, " ")
			for (i = 1; i <= n; i++) {
				name = s[i]
				if (!(name in secs)) {
					printf "  %-22s %6s   not run\n", name, "-"; failed++
				} else if (rc[name] != 0) {
					printf "  %-22s %6d s failed (exit %d)\n", name, secs[name], rc[name]; failed++
				} else {
					printf "  %-22s %6d s\n", name, secs[name]; passed++
				}
				sum += secs[name]
			}
			printf "  %-22s %6d s\n", "sum of the steps", sum
			printf "  %-22s %6d s (%d min %d s)\n", "wall", wall, wall / 60, wall % 60
			printf "%d passed, %d failed\n", passed, failed
			exit failed > 0
		}' "$log"
	exit $?
fi
log=$1 name=$2
shift 2
start=$(date +%s)
"$@"
rc=$?
secs=$(($(date +%s) - start))
echo "$name $secs $rc" >>"$log"
printf '[timed.sh] %s: %d s%s\n' "$name" "$secs" "$([ "$rc" = 0 ] || echo ", exit $rc")" >&2
exit $rc
