#!/usr/bin/env bash
# make fuzz-rm-report: the emgpu-rm-fuzz runs make fuzz-rm-campaign
# recorded in tests/fuzz-rm/runs.tsv (tests/fuzz-rm/run-test.sh's line),
# one row each and their sum, as a Markdown table: the generated block of
# docs/fuzzing.md (make fuzz-rm-doc).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
runs=$here/runs.tsv
[ -s "$runs" ] || { echo "no runs recorded in tests/fuzz-rm/runs.tsv"; exit 0; }
echo '| date (UTC) | commit | branch | seed | threads | seconds | calls | calls/s | crashes | oopses | hangs | wrong errnos | accepted bad | mismatches |'
echo '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|'
awk -F'\t' 'NR > 1 {
		printf "| %s | %s | %s | %s | %s | %d | %d | %.0f | %d | %d | %d | %d | %d | %d |\n",
			substr($1, 1, 16), $2, $3, $4, $5, $6, $7, $6 ? $7 / $6 : 0, $9, $10, $11,
			$12, $13, $14
		n++; s += $6; c += $7; cr += $9; o += $10; h += $11; w += $12; a += $13; m += $14 }
	END { if (n > 1)
		printf "| all %d runs | | | | | %d | %d | %.0f | %d | %d | %d | %d | %d | %d |\n",
			n, s, c, s ? c / s : 0, cr, o, h, w, a, m }' "$runs"
