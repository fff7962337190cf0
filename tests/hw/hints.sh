#!/usr/bin/env bash
# Ember-static and a program's own hints, on a real card: test-hints with
# its first launch through the runtime and through the driver API, without
# and with LD_PRELOAD=libember-static.so. One JSON line per run into
# OUTDIR/ember-static-hints.jsonl ("ok":1 when every placement is as
# expected), the interposer's decisions into ember-static-hints.log.
#
# usage: tests/hw/hints.sh OUTDIR
set -euo pipefail

out=${1:?usage: hints.sh OUTDIR}
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$top/build/cuda
mkdir -p "$out" "$build"
make -s -C "$top/cuda/ember-static" O="$build"

: >"$out/ember-static-hints.jsonl"
: >"$out/ember-static-hints.log"
for first in runtime driver; do
	"$build/test-hints" "$first" plain >>"$out/ember-static-hints.jsonl" ||
		echo "test-hints $first plain: failed" >&2
	LD_PRELOAD="$build/libember-static.so" EMBER_STATIC_VERBOSE=1 \
		"$build/test-hints" "$first" ember >>"$out/ember-static-hints.jsonl" \
		2>>"$out/ember-static-hints.log" ||
		echo "test-hints $first ember: failed" >&2
done
cat "$out/ember-static-hints.jsonl"
echo "hints: $(grep -c '"ok":1' "$out/ember-static-hints.jsonl") of 4 ok"
