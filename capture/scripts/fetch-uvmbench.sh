#!/usr/bin/env bash
# Fetches the two UVMBench programs that capture/scripts/validate-on-card.sh
# builds and captures, at a pinned commit, into DEST (default .uvmbench/,
# git-ignored: their sources are never committed here).
#   bash capture/scripts/fetch-uvmbench.sh [SOURCE [DEST]]
# SOURCE: a git URL or a local clone (default the authors' repository).
# UVMBench (OSU-STARLAB/UVM_benchmark, MIT licence): Rodinia, Polybench and
# others rewritten by its authors onto cudaMallocManaged. We take two of its
# Rodinia programs, as shipped: rodinia/pathfinder and rodinia/nw, with the
# common/make.config their Makefiles include, and the licence.
set -euo pipefail
source=${1:-https://github.com/OSU-STARLAB/UVM_benchmark.git}
dest=${2:-.uvmbench}
commit=05588a9b98290332b862a9b65a6a8cbb6ca81bcc	# 2020-09-08, "fix the knn index bug"
paths=(LICENSE README.md common/make.config
       UVM_benchmarks/rodinia/pathfinder UVM_benchmarks/rodinia/nw)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git clone --quiet --no-checkout "$source" "$tmp/repo"
git -C "$tmp/repo" cat-file -e "$commit^{commit}" ||
	{ echo "fetch-uvmbench: $source has no commit $commit" >&2; exit 1; }
rm -rf "$dest"
mkdir -p "$dest"
git -C "$tmp/repo" archive "$commit" "${paths[@]}" | tar -x -C "$dest"
echo "$commit" >"$dest/COMMIT"
echo "fetch-uvmbench: $source at $commit into $dest"
