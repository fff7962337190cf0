#!/usr/bin/env bash
# A figure whose sources are another figure's result set (as agreement and
# compare-drivers read run's): in one `figures.sh run` it runs after the
# figure it reads, whatever their order in figures.conf, and its sources'
# digest is taken then, so both are current at the end, not the reader
# stale at once. In a scratch repository of two figures, no VM.
#
# usage: reader-digest.sh WORKDIR (run from the top of the tree)
set -euo pipefail
top=$PWD
repo=$1/reader-digest
rm -rf "$repo"
mkdir -p "$repo/experiments"
cd "$repo"
cat >experiments/figures.conf <<'EOF'
# listed before the figure it reads
[reader]
command  = cat experiments/results/maker/report.txt
build    =
sources  = experiments/results/maker/report.txt
keep     =

[maker]
command  = cat input.txt
build    =
sources  = input.txt
keep     =
EOF
echo one >input.txt
git init -q
git add -A
git -c user.name=t -c user.email=t@t commit -qm scratch
fails=0

# expect WHAT COMMAND EXPECTED: COMMAND's output is EXPECTED
expect() {
	local got
	got=$(eval "$2" 2>&1) || :
	if [ "$got" = "$3" ]; then
		echo "ok: $1"
	else
		echo "FAIL: $1: '$got', expected '$3'"
		fails=$((fails + 1))
	fi
}
state() { bash "$top/scripts/figures.sh" status | awk '{ print $1, $2 }' | paste -sd' '; }

for v in one two; do
	echo "$v" >input.txt
	bash "$top/scripts/figures.sh" run >run.log 2>&1 || { cat run.log; fails=$((fails + 1)); }
	expect "the reader reads the result set made in the same run ($v)" \
		'cat experiments/results/reader/report.txt' "$v"
	expect "both current after the run ($v)" state "reader current maker current"
done
echo three >input.txt
expect "the maker's source changed: the maker stale, not its reader" state "reader current maker stale"
echo "reader-digest: $fails failed"
[ $fails = 0 ]
