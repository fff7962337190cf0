#!/usr/bin/env bash
# docs/trace-replay.md's table "The model alone": trace-model (no VM, no
# driver) on nw and pathfinder at 0.5x of h200-64m (the validation
# matrices' profile, the paper's H200 on its x8 link) and of h200x16-64m
# (the card the traces were captured on, x16), beside the card: resident
# is the -T capture the replay spreads, mapped the median of the five
# counted rounds of the card's mapped variant (capture/validation/2026-12-02).
#   bash tests/trace-replay/model-table.sh    (make trace-model-doc writes it)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tm=${TRACE_MODEL:-$root/build/tests-trace-replay/trace-model}
traces=$root/capture/traces
card=$root/capture/validation/2026-12-02
[ -x "$tm" ] || { echo "model-table: no $tm (make -C tests/trace-replay)" >&2; exit 1; }
for p in nw pathfinder; do
	echo
	"$tm" -p h200-64m -p h200x16-64m "$traces/$p-accesses.trace" \
		"$traces/$p-resident-timing.trace" "$card/$p-mapped-"[1-5].trace
done
