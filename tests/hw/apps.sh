#!/usr/bin/env bash
# The applications on a real NVIDIA card (the device machine): builds
# cuda/apps and cuda/ember-static there, runs every app x variant x
# footprint (uvm, prefetch, mapped as the program's own calls; static as the
# uvm program under LD_PRELOAD=libember-static.so), one JSON line each into
# OUTDIR/apps.jsonl, after Ember-static's hint test (tests/hw/hints.sh).
# Runs fill and verify on the CPU in parallel (PAR, default 8) while the
# card runs one timed section at a time (EMBER_APPS_LOCK). Each program refuses a footprint above a quarter of the
# free device memory or 4 GiB. A 64 MiB run of every cell goes first; the
# full run only follows when all of them verify.
#
# VARIANTS (default "uvm prefetch mapped static") and APP_NAMES (default
# every app of ember-apps --list) narrow the matrix, for repeats of some cells (the card's run-to-run
# spread) or an app whose kernels changed.
#
# usage: tests/hw/apps.sh OUTDIR [FOOTPRINT_BYTES...]   (default 1, 2, 4 GiB)
set -euo pipefail

out=${1:?usage: apps.sh OUTDIR [FOOTPRINT_BYTES...]}
shift
foots=${*:-$((1 << 30)) $((2 << 30)) $((4 << 30))}
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$top/build/cuda
mkdir -p "$out" "$build"

nvidia-smi --query-gpu=name,driver_version,memory.total,memory.used,pcie.link.gen.current,pcie.link.width.current \
	--format=csv >"$out/gpu.csv"
make -s -C "$top/cuda/ember-static" O="$build"
make -s -C "$top/cuda/apps" O="$build"

bash "$top/tests/hw/hints.sh" "$out"

one() {	# name app variant footprint: a line into OUTDIR/name.jsonl as it ends
	local f=$cells/$1-$2-$3-$4 rc=0
	if [ "$3" = static ]; then
		LD_PRELOAD="$build/libember-static.so" EMBER_STATIC_VERBOSE=1 \
			timeout 240 "$build/ember-apps" "$2" uvm "$4" 2>"$f.log" |
			sed 's/"variant":"uvm"/"variant":"static"/' >"$f.json" || rc=$?
		sed "s/^/$2 $4: /" "$f.log" >>"$out/$1-static.log"
	else
		timeout 240 "$build/ember-apps" "$2" "$3" "$4" >"$f.json" 2>"$f.log" || rc=$?
	fi
	cat "$f.json" >>"$out/$1.jsonl"	# one short line: an atomic append
	echo "$2 $3 $4: rc $rc $(cat "$f.json")"
}
matrix() {	# name footprints...
	local name=$1 foot app v
	shift
	: >"$out/$name.jsonl"
	: >"$out/$name-static.log"
	for foot in "$@"; do
		for app in $app_names; do
			for v in $variants; do
				echo "$name $app $v $foot"
			done
		done
	done | xargs -P "${PAR:-8}" -L1 bash -c 'one "$@"' _
	echo "$name: $(grep -c '"verified":1' "$out/$name.jsonl") of $(($# * ncells)) verified"
}
export -f one
cells=$build/cells
rm -rf "$cells"
mkdir -p "$cells"
export build out cells
export EMBER_APPS_LOCK=$build/card.lock

variants=${VARIANTS:-uvm prefetch mapped static}
app_names=${APP_NAMES:-$("$build/ember-apps" --list)}
ncells=$(($(echo $variants | wc -w) * $(echo $app_names | wc -w)))

# a small run first: the full one only when every cell verifies
matrix smoke $((64 << 20))
[ "$(grep -c '"verified":1' "$out/smoke.jsonl")" = "$ncells" ] || {
	echo "smoke run: not every cell verified; stopping" >&2
	exit 1
}
matrix apps $foots
