#!/bin/bash
# SPDX-License-Identifier: MIT
# make paper: every table of the paper's appendix beside the testbed's.
# Runs every matrix (experiments/matrices/table*.conf, or those in
# PAPER_MATRICES) as one pool, a single `ember-agent run` over all of them
# (one queue, so no VM slot idles between matrices, and with CONNECT one
# pool over every host; resumable: finished runs are kept), reports each beside the paper's CSV its config names in a
# "# paper-csv:" line, and writes one Markdown report with every table, its
# order and summary lines, and every plot (beside it each matrix's report,
# report-NAME.txt, and the summary lines, summaries.txt). Prints its path.
#
# usage: paper.sh AGENT QEMU KERNEL INITRD RESULTS ACCEL
# Environment:
#   PAPER_MATRICES  matrices to run (default: experiments/matrices/table*.conf
#                   and fig16.conf)
#   CONNECT         libvirt URIs to spread the runs over (added to each matrix
#                   as its `connect` line; default: QEMU on this machine)
#   PAPER_SIZE      a card size replacing the matrices' faithful 512m (for a
#                   quick trial, e.g. 128m; the report says which was used)
#   PAPER_JOBS      VMs at a time on this machine (added as each matrix's
#                   `jobs` line; default: the matrices', else one per core)
set -u
agent=$1 qemu=$2 kernel=$3 initrd=$4 results=$5 accel=$6
matrices=${PAPER_MATRICES:-$(ls experiments/matrices/table*.conf experiments/matrices/fig16.conf | sort -V)}
out=$results/paper-report
mkdir -p "$out/matrices"
report=$out/REPORT.md
rc=0

# The matrix as run: the checked-in one, with CONNECT and PAPER_SIZE applied.
prepare() {
	local conf=$1 copy=$out/matrices/$(basename "$1")

	sed "s/^\(profile *= *[a-z0-9]*\)-512m/\1-${PAPER_SIZE:-512m}/" "$conf" >"$copy"
	if [ -n "${PAPER_JOBS:-}" ]; then
		echo "jobs     = $PAPER_JOBS" >>"$copy"
	fi
	if [ -n "${CONNECT:-}" ]; then
		echo "connect  = $CONNECT" >>"$copy"
	fi
	echo "$copy"
}

field() { sed -n "s/^$1 *= *//p" "$2" | head -n1; }

{
	echo "Written by \`make paper\` on $(date -u '+%Y-%m-%d %H:%M UTC'), commit" \
		"$(git rev-parse --short HEAD 2>/dev/null || echo unknown)."
	echo "Each section is one matrix (\`experiments/matrices/\`), reported by"
	echo "\`ember-agent report\` beside the paper's appendix table in CSV"
	echo "(\`experiments/paper/table*.csv\`). Speedups are over UVM in modelled time;"
	echo "the paper's are in brackets (\`<\`/\`>\`: a capped run bounds them). Under"
	echo "each table, every cell's order of the variants, fastest first, testbed |"
	echo "paper, marked \`same\` when every pair the paper orders agrees, \`DIFF\`"
	echo "otherwise, and a summary line per size."
	echo
} >"$report.body"
summaries=$out/summaries.txt
: >"$summaries"
: >"$out/walltime.txt"

copies=()
for conf in $matrices; do
	copies+=("$(prepare "$conf")")
done
start=$(date +%s)
"$agent" run "${copies[@]}" --qemu "$qemu" --kernel "$kernel" --initrd "$initrd" \
	--results "$results" --accel "$accel" || rc=1
echo "${#copies[@]} matrices, one pool on ${CONNECT:-this machine}: $(($(date +%s) - start)) s" \
	>>"$out/walltime.txt"

for conf in $matrices; do
	copy=$out/matrices/$(basename "$conf")
	name=$(field name "$copy")
	csv=$(sed -n 's/^# paper-csv: *\([^ ]*\).*/\1/p' "$conf")
	args=$(field run_args "$copy")
	: >"$out/report-$name.txt"
	{
		echo "## $name"
		echo
		echo "Matrix \`$conf\` (profile \`$(field profile "$copy")\`," \
			"apps \`$(field apps "$copy")\`, factors" \
			"$(field factors "$copy")${args:+, ember-run \`$args\`})," \
			"paper: \`experiments/paper/$csv\`."
		echo
		echo '```'
		"$agent" report "$results/$name" ${csv:+--paper experiments/paper/$csv} |
			grep -v '^plot: ' | tee -a "$out/report-$name.txt"
		echo '```'
		echo
		for png in "$results/$name"/*.png; do
			[ -e "$png" ] || continue
			echo "![$name $(basename "$png" .png)](../$name/$(basename "$png"))"
			echo
		done
	} >>"$report.body"
	grep '^summary ' "$out/report-$name.txt" | sed "s/^summary /$name: /" >>"$summaries"
done

{
	echo "# The paper's evaluation beside the testbed's"
	echo
	echo "## Summary"
	echo
	echo "One line per table and size: cells whose variants the testbed orders as"
	echo "the paper does, agreeing pairs, and per variant the geometric mean of"
	echo "testbed speedup over UVM / paper speedup over UVM (1.00: the paper's"
	echo "speedup; the count of apps in parentheses)."
	echo
	echo '```'
	cat "$summaries"
	echo '```'
	echo
	echo "Wall time of the pool on this run (runs already finished are skipped,"
	echo "so a resumed run counts only what it ran):"
	echo
	echo '```'
	cat "$out/walltime.txt"
	echo '```'
	echo
	echo "Figure 16 (\`fig16\`: randomness x reuse, RTX 5080, 1.3x) is compared"
	echo "with what the paper's text gives of its grid (\`experiments/paper/fig16.csv\`:"
	echo "the winner over ranges of cells, the data moved at 0 % randomness); its"
	echo "summary line counts the cells whose faster Ember variant is the paper's."
	echo
	cat "$report.body"
} >"$report"
rm -f "$report.body"
echo "report: $report"
exit $rc
