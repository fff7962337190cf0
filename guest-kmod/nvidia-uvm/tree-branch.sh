#!/usr/bin/env bash
# Makes the branch directory of a local NVIDIA tree, so that every script
# that takes a BRANCH_DIR (build.sh, emgpu-rm's build.sh, the nvidia-uvm
# image, run-test.sh) builds and tests that tree's modules:
#
#   tree-branch.sh OUT_DIR TREE [SERIES_BRANCH_DIR | --stock]
#
# TREE: a checkout of NVIDIA's open-gpu-kernel-modules (kernel-open/ and
# src/nvidia/) or a kernel-open-like directory with nvidia/nv-kernel.o_binary.
# SERIES_BRANCH_DIR (one of branches/): its Ember series and compat header
# are tried on the tree (build.sh's patch step says whether they apply).
# --stock: NVIDIA's nvidia-uvm alone, no patch (stock_only=1).
# OUT_DIR is rewritten only when what it would hold changes.
set -euo pipefail

out=${1:?usage: tree-branch.sh OUT_DIR TREE [SERIES_BRANCH_DIR | --stock]}
tree=${2:?usage: tree-branch.sh OUT_DIR TREE [SERIES_BRANCH_DIR | --stock]}
series=${3:---stock}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$top/scripts/common.sh"

[ -d "$tree" ] || die "NVIDIA_SRC: no directory $tree"
tree=$(cd "$tree" && pwd)
new=$(mktemp -d)
trap 'rm -rf "$new"' EXIT
mkdir -p "$new/patches"
{
	echo "# A local tree (make NVIDIA_SRC=$tree), made by guest-kmod/nvidia-uvm/tree-branch.sh."
	echo "tree=$tree"
} >"$new/branch.conf"
if [ "$series" = --stock ]; then
	echo stock_only=1 >>"$new/branch.conf"
	: >"$new/patches/series"
else
	[ -f "$series/patches/series" ] && [ -f "$series/uvm_ember_compat.h" ] ||
		die "NVIDIA_SERIES: $series is not a branch directory (patches/series, uvm_ember_compat.h)"
	echo "# The Ember series of $(basename "$series")." >>"$new/branch.conf"
	cp "$series/patches/"* "$new/patches/"
	cp "$series/uvm_ember_compat.h" "$new/"
fi
# the tree is a kernel-open tree (common.sh says why not)
top=$top branch_dir=$new bash -c '. "$top/guest-kmod/nvidia-uvm/common.sh"' >/dev/null
if ! diff -r "$new" "$out" >/dev/null 2>&1; then
	rm -rf "$out"
	mkdir -p "$(dirname "$out")"
	cp -r "$new" "$out"
fi
