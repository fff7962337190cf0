#!/usr/bin/env bash
# Times the steps of make test: what a cold setup spends, step by step.
#
#   timed.sh LOG NAME COMMAND...   runs COMMAND, appends "NAME SECONDS" to
#                                  LOG and says it on stderr; COMMAND's
#                                  exit status
#   timed.sh --report LOG          the table of LOG's steps and their sum,
#                                  then the closing "N passed, 0 failed"
#                                  over the steps (make stops at the first
#                                  failed one, so none gets here failed)
set -uo pipefail

if [ "$1" = --report ]; then
	echo "make test, each step's wall time:"
	awk '{ printf "  %-22s %6d s\n", $1, $2; sum += $2 }
	     END { printf "  %-22s %6d s (%d min %d s)\n", "total", sum, sum / 60, sum % 60;
		   printf "%d passed, 0 failed\n", NR }' "$2"
	exit 0
fi
log=$1 name=$2
shift 2
start=$(date +%s)
"$@"
rc=$?
secs=$(($(date +%s) - start))
echo "$name $secs" >>"$log"
printf '[timed.sh] %s: %d s%s\n' "$name" "$secs" "$([ "$rc" = 0 ] || echo ", exit $rc")" >&2
exit $rc
