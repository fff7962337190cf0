#!/usr/bin/env bash
# make figures-test: the figures' list (experiments/figures.conf) parses and
# names only commands and matrices that exist; every figure block of the
# pages is its result set; a figure reading another's result set is made
# after it and recorded current with it (reader-digest.sh); and the smoke
# figure, made again from scratch into WORKDIR, holds the committed result
# set's results (commit, date, wall and CPU times and host aside:
# scripts/figures.sh same).
#
# usage: run-test.sh WORKDIR
set -euo pipefail
work=$1
rm -rf "$work"
mkdir -p "$work"
fails=0

step() {
	local what=$1
	shift
	if "$@" >"$work/step.log" 2>&1; then
		echo "ok: $what"
	else
		echo "FAIL: $what:"
		tail -n 60 "$work/step.log"
		fails=$((fails + 1))
	fi
}

step "figures.conf parses, every command and matrix exists" bash scripts/figures.sh check
step "every figure block of the pages is its result set" bash scripts/figures.sh docs-check
step "a figure reading another's result set runs after it and is current with it" \
	bash tests/figures/reader-digest.sh "$work"
# the comparison itself: a copy with another commit, wall time and host
# holds the same results; one with a device counter changed does not
same_as_committed() { bash scripts/figures.sh same "$1" experiments/results/smoke; }
cp -r experiments/results/smoke "$work/other-host"
jq -c '.commit = "0000000" | .wall_s = 1 | .host = "elsewhere"' \
	experiments/results/smoke/smoke/results.jsonl >"$work/other-host/smoke/results.jsonl"
step "a result set from another commit and host holds the same results" \
	same_as_committed "$work/other-host"
# a column no run has (a field added to the record since, empty in every
# row, as results.jsonl leaves it out) is no difference; one with a value is
csv=experiments/results/smoke/smoke/results.csv
for new in empty valued; do
	cp -r experiments/results/smoke "$work/column-$new"
	awk -v v=$new 'BEGIN { FS = OFS = "," }
		{ $1 = $1 "," (NR == 1 ? "added" : v == "valued" && NR == 2 ? "x" : ""); print }' \
		"$csv" >"$work/column-$new/smoke/results.csv"
done
step "a result set whose CSV has a column more, empty in every row, holds the same results" \
	same_as_committed "$work/column-empty"
step "one whose added column has a value does not" \
	bash -c '! bash scripts/figures.sh same "$1" experiments/results/smoke' - "$work/column-valued"
cp -r experiments/results/smoke "$work/changed"
jq -c 'if .id == "stream-uvm-x0.5-s1" then .device.faults += 1 else . end' \
	experiments/results/smoke/smoke/results.jsonl >"$work/changed/smoke/results.jsonl"
step "a result set with one device counter changed does not" \
	bash -c '! bash scripts/figures.sh same "$1" experiments/results/smoke' - "$work/changed"

if FIGURES_OUT=$work/out FIGURES_WORK=$work/work bash scripts/figures.sh run smoke \
	>"$work/smoke.log" 2>&1; then
	echo "ok: smoke made again"
	step "smoke made again holds experiments/results/smoke's results (if the change in behaviour is meant: make figures FIGURES=smoke)" \
		bash scripts/figures.sh same "$work/out/smoke" experiments/results/smoke
else
	echo "FAIL: smoke made again:"
	tail -n 60 "$work/smoke.log"
	fails=$((fails + 1))
fi
echo "figures-test: $fails failed"
[ $fails = 0 ]
