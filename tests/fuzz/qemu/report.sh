#!/usr/bin/env bash
# make fuzz-qemu-report: the runs make fuzz-qemu recorded in runs.tsv and
# their totals (executions, fuzzing time, crashes), then the coverage of the
# committed corpus, each input run once in generic-fuzz's forking mode: the
# edges of emgpu and the rest of hw/ the inputs reach, without those of the
# reset between inputs that the runs' own "cov" column includes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
. "$here/personality.sh"	# runs and corpus of FUZZ_PERSONALITY
[ -s "$runs" ] || { echo "no fuzz-qemu runs recorded in $runs"; exit 0; }
# each run's line, and its executions per CPU second where it recorded cpu_s
awk -F'\t' -v OFS='\t' 'NR == 1 { print $0, "exec_per_cpu_s"; next }
	{ print $0, ($10 ~ /^[0-9]+$/ && $10 > 0) ? sprintf("%.0f", $4 / $10) : "-" }' "$runs"
awk -F'\t' 'NR > 1 { n++; s += $3; e += $4; c += $9; t += $11
		if ($10 ~ /^[0-9]+$/) { ce += $4; cs += $10 } }
	END { printf "total: %d runs, %d executions in %d s (%.0f exec/s), %d crashes, %d timeouts\n",
		n, e, s, s ? e / s : 0, c, t
		if (cs) printf "per CPU second: %.0f executions (runs that recorded cpu_s)\n", ce / cs }' "$runs"

. "$here/common.sh"
"$fuzzer" --fuzz-target=generic-fuzz -runs=0 "$corpus" 2>&1 |
	sed -n 's/^#[0-9]*[[:space:]]*INITED cov: \([0-9]*\) ft: \([0-9]*\).*/corpus: '"$(ls "$corpus" | wc -l)"' inputs, coverage \1 edges, \2 features (each input once, forking mode)/p'
