#!/usr/bin/env bash
# The same matrix on the two drivers, cell by cell: ember.ko's results
# folder beside nvidia-uvm's (ember-agent run of paper.conf and
# paper-nvuvm.conf, say). Prints, per factor, the whole modelled run
# (sim_ns + setup_ns) of every variant on each driver and their ratio,
# then for each run the device's own counters (QEMU's emgpu, the same
# counters under both drivers): bytes it copied each way, fault entries
# it wrote, notifications it raised, and the run's promotions and
# evictions as its driver reported them; first, the personality (result.json's
# "personality") nvidia-uvm's runs met. A cell that either folder lacks,
# or whose run is not ok and verified, is printed as such and counted.
#
#   compare-drivers.sh EMBER_RESULTS NVIDIA_UVM_RESULTS
set -euo pipefail
[ $# = 2 ] || { echo "usage: $0 EMBER_RESULTS NVIDIA_UVM_RESULTS" >&2; exit 2; }
for d in "$@"; do
	[ -f "$d/results.jsonl" ] || { echo "$0: no $d/results.jsonl" >&2; exit 2; }
done

# one line per run: key, ok, ms, GiB h2d, GiB d2h, fault entries,
# notifications, promotions, evictions, commit
rows() {
	jq -r '
	  def verified: .status == "ok" and .run.mismatches == 0 and .run.failed == ""
	    and (.run.result_ok == 1 or .run.verified_by == "digest");
	  [ "\(.app) \(.factor) \(.variant) \(.seed)",
	    (if verified then "ok" else "not-ok:\(.status)" end),
	    (((.run.sim_ns // 0) + (.run.setup_ns // 0)) / 1e6),
	    ((.device.bytes_h2d // 0) / 1073741824), ((.device.bytes_d2h // 0) / 1073741824),
	    (.device.fault_entries // 0), (.device.notifications // 0),
	    (.run.promotions // 0), (.run.evictions // 0), .commit ] | @tsv' "$1/results.jsonl" |
		LC_ALL=C sort
}

# which GPU nvidia-uvm drove: emgpu's personality (gh100: its Hopper HAL)
echo "nvidia-uvm's runs on emgpu's personality: $(jq -r '.personality // "not recorded"' \
	"$2/results.jsonl" | LC_ALL=C sort -u | paste -sd' ')"
echo
join -t $'\t' -a1 -a2 -e MISSING -o auto <(rows "$1") <(rows "$2") | awk -F'\t' '
function ratio(a, b) { return b > 0 ? sprintf("%.2f", a / b) : "-" }
{
	split($1, k, " "); app = k[1]; f = k[2]; v = k[3]
	if (!(f in seenf)) { seenf[f] = 1; fs[++nf] = f }
	if (!(app in seena)) { seena[app] = 1; apps[++na] = app }
	if (!(v in seenv)) { seenv[v] = 1; vs[++nv] = v }
	ok = ($2 == "ok" && $11 == "ok")
	cell[f, app, v] = ok ? ratio($12, $3) : ($2 == "MISSING" || $11 == "MISSING" ? "missing" : "not-ok")
	if (ok) { n++; r = $12 / $3; if (!(f in lo) || r < lo[f]) lo[f] = r; if (!(f in hi) || r > hi[f]) hi[f] = r
		  cnt[f]++; if (r < 1) faster[f]++ }
	else bad++
	det[f, app, v] = sprintf("%-10s %-9s %10.1f %10.1f %6s  %5.2f/%5.2f %5.2f/%5.2f %7d %7d %7d %7d %5d %5d %4d %4d",
		app, v, $3, $12, cell[f, app, v], $4, $13, $5, $14, $6, $15, $7, $16, $8, $17, $9, $18)
	commits[$10] = 1; commits[$19] = 1
}
END {
	for (i = 1; i <= nf; i++) {
		f = fs[i]
		printf "Whole modelled run at %sx, nvidia-uvm / ember.ko\n%-10s", f, "app"
		for (j = 1; j <= nv; j++) printf " %9s", vs[j]
		printf "\n"
		for (a = 1; a <= na; a++) {
			printf "%-10s", apps[a]
			for (j = 1; j <= nv; j++) printf " %9s", ((f, apps[a], vs[j]) in cell) ? cell[f, apps[a], vs[j]] : "missing"
			printf "\n"
		}
		if (cnt[f]) printf "summary %sx: %d cells both ok and verified, nvidia-uvm / ember.ko %.2f-%.2f, nvidia-uvm the faster in %d\n\n",
			f, cnt[f], lo[f], hi[f], faster[f]
		else printf "summary %sx: no cell ok and verified on both\n\n", f
	}
	for (i = 1; i <= nf; i++) {
		f = fs[i]
		printf "Per run at %sx (pairs ember.ko/nvidia-uvm; ratio nvidia-uvm / ember.ko): ms, the device'\''s GiB host to device and device to host, its fault entries and notifications, the driver'\''s promotions and evictions\n", f
		printf "%-10s %-9s %10s %10s %6s  %11s %11s %15s %15s %11s %9s\n", "app", "variant", "ms ember", "ms nvuvm",
			"ratio", "GiB h2d", "GiB d2h", "fault entries", "notifications", "promotions", "evictions"
		for (a = 1; a <= na; a++) for (j = 1; j <= nv; j++)
			if ((f, apps[a], vs[j]) in det) print det[f, apps[a], vs[j]]
		printf "\n"
	}
	c = ""; for (x in commits) if (x != "MISSING") c = c " " x
	printf "%d cells compared, %d not ok, unverified or missing on one side; commits:%s\n", n, bad, c
	exit bad > 0
}'
