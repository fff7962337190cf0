#!/bin/bash
# SPDX-License-Identifier: MIT
# make scale (issue 14): the paper matrix at 1.5x on several card sizes with
# the scaling rule (experiments/matrices/scale-*.conf), then per application
# the speedup of each variant over UVM at each size, the largest relative
# deviation across sizes, per adaptive run its policy periods (timer ticks)
# and eager evictions, and a closing summary against the goals of issue 14.
#
# Runs go application by application across the sizes (so that each
# finished application already gives its deviations), one VM per core (the
# matrices' jobs = 0), and resume: a finished run (runs/<id>/result.json) is kept. The report reads
# every result.json there is, so it can be printed at any point.
#
# usage: scale.sh AGENT QEMU KERNEL INITRD RESULTS ACCEL
# Environment:
#   SCALE_SIZES   card sizes (default "256m 512m 1g"; each needs its
#                 experiments/matrices/scale-SIZE.conf)
#   SCALE_APPS    applications to run (default: the matrices' six)
#   SCALE_REPORT  1: run nothing, print the report of what has finished
set -u
agent=$1 qemu=$2 kernel=$3 initrd=$4 results=$5 accel=$6
sizes=${SCALE_SIZES:-256m 512m 1g}
variants="uvm prefetch mapped static adaptive"
paper=experiments/paper/table4.csv
rc=0

conf_of() { echo "experiments/matrices/scale-$1.conf"; }
for size in $sizes; do
	[ -f "$(conf_of "$size")" ] || { echo "scale: no $(conf_of "$size")" >&2; exit 2; }
done
apps=${SCALE_APPS:-$(sed -n 's/^apps *= *//p' "$(conf_of "${sizes%% *}")")}

if [ "${SCALE_REPORT:-0}" != 1 ]; then
	mkdir -p "$results/scale-matrices"
	for app in $apps; do
		for size in $sizes; do
			# the size's matrix narrowed to one application; same name,
			# so its runs land (and resume) in results/scale-SIZE
			one=$results/scale-matrices/scale-$size-$app.conf
			sed "s/^apps *=.*/apps     = $app/" "$(conf_of "$size")" >"$one"
			"$agent" run "$one" --qemu "$qemu" --kernel "$kernel" \
				--initrd "$initrd" --results "$results" --accel "$accel" || rc=1
		done
	done
fi

# One TSV line per finished run: size app variant status ms ticks eager periods.
runs_tsv() {
	local size dir
	for size in $sizes; do
		dir=$results/scale-$size
		ls "$dir"/runs/*/result.json >/dev/null 2>&1 || continue
		# every finished run, so that `ember-agent report` sees them all
		jq -c . "$dir"/runs/*/result.json >"$dir/results.jsonl"
		jq -r --arg size "$size" '[$size, .app, .variant, .status,
			(if .status == "ok" then ((.run.sim_ns + .run.setup_ns) / 1e6) else -1 end),
			(.run.timer_ticks // -1), (.run.eager_evictions // -1)] | @tsv' \
			"$dir"/runs/*/result.json
	done
}

runs_tsv | awk -F'\t' -v sizes="$sizes" -v apps="$apps" -v variants="$variants" '
function dev(a, v,    i, lo, hi, s, n) {	# (max - min) / min over the sizes
	n = 0
	for (i = 1; i <= ns; i++) {
		s = sz[i]
		if (!((s, a, v) in ms) || !((s, a, "uvm") in ms)) continue
		x = ms[s, a, "uvm"] / ms[s, a, v]
		if (!n || x < lo) lo = x
		if (!n || x > hi) hi = x
		n++
	}
	return n < 2 ? -1 : (hi - lo) / lo
}
BEGIN {
	ns = split(sizes, sz, " "); na = split(apps, ap, " "); nv = split(variants, va, " ")
}
{
	if ($4 == "ok") ms[$1, $2, $3] = $5
	else bad[$1, $2, $3] = $4
	if ($3 == "adaptive") { ticks[$1, $2] = $6; eager[$1, $2] = $7; st[$1, $2] = $4 }
}
END {
	printf "Speedup over UVM at 1.5x with the scaling rule (modelled setup + kernels)\n"
	printf "%-11s %-9s", "app", "variant"
	for (i = 1; i <= ns; i++) printf " %9s", "h200-" sz[i]
	printf " %10s\n", "deviation"
	for (j = 1; j <= na; j++) {
		a = ap[j]
		for (k = 1; k <= nv; k++) {
			v = va[k]
			printf "%-11s %-9s", a, v
			for (i = 1; i <= ns; i++) {
				s = sz[i]
				if ((s, a, v) in bad) printf " %9s", bad[s, a, v]
				else if (!((s, a, v) in ms)) printf " %9s", "-"
				else if (v == "uvm") printf " %7.1fms", ms[s, a, v]
				else if ((s, a, "uvm") in ms) printf " %9.2f", ms[s, a, "uvm"] / ms[s, a, v]
				else printf " %9s", "?"
			}
			d = v == "uvm" ? -1 : dev(a, v)
			if (d < 0) printf " %10s\n", "-"
			else {
				printf " %9.1f%%\n", 100 * d
				ndev++; if (d <= 0.20) ndev_ok++
			}
		}
	}
	printf "\nEmber-adaptive at 1.5x: timer ticks (policy periods) / eager evictions\n"
	printf "%-11s", "app"
	for (i = 1; i <= ns; i++) printf " %15s", "h200-" sz[i]
	printf "\n"
	for (j = 1; j <= na; j++) {
		a = ap[j]
		printf "%-11s", a
		for (i = 1; i <= ns; i++) {
			s = sz[i]
			if (!((s, a) in st)) { printf " %15s", "-"; continue }
			if (st[s, a] != "ok") { printf " %15s", st[s, a]; continue }
			printf " %15s", ticks[s, a] " / " eager[s, a]
			nad++
			if (ticks[s, a] >= 10 && eager[s, a] > 0) nad_ok++
		}
		printf "\n"
	}
	printf "\nsummary scale: deviation across sizes within 20%% in %d of %d app x variant cells " \
	       "(with at least two sizes)\n", ndev_ok, ndev
	printf "summary scale: adaptive runs with >= 10 periods and eager evictions > 0: %d of %d\n",
	       nad_ok, nad
}'

# per size: how much has run, and its VM wall time (to plan the rest); then
# the pairwise order against the paper's Table 4 (H200), as `ember-agent
# report` counts it
napps=$(wc -w <<<"$apps") nvariants=$(wc -w <<<"$variants")
for size in $sizes; do
	dir=$results/scale-$size
	[ -s "$dir/results.jsonl" ] || continue
	jq -s -r --arg size "$size" --argjson all $((napps * nvariants)) \
		'"summary scale h200-\($size): \(length) of \($all) runs finished, " +
		 "\(map(.wall_s) | add | floor) s of VM wall time (\(map(.wall_s) | add / length | floor) s a run)"' \
		"$dir/results.jsonl"
	"$agent" report "$dir" --paper "$paper" --no-plot 2>/dev/null |
		sed -n "s/^summary h200 1.5x: /summary scale h200-$size order vs the paper: /p"
done
exit $rc
