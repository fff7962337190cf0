#!/usr/bin/env bash
# Prints what a branch directory stands for, as shell assignments to eval:
# version (without Debian's revision: the version nvidia-uvm.ko reports,
# the image's lib/modules/<version>), stock_only (1: NVIDIA's nvidia-uvm
# alone, no Ember series) and real_card (1: images/nvidia makes a real-card
# image of it), nvidia_cache (its build's cache directory: pristine/,
# tree/, ...) and source (what it is built from, in words: a local tree by
# its version and the sha256 of its sources, never its path).
#
#   eval "$(branch-info.sh BRANCH_DIR)"
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
branch_dir=$(cd "${1:?usage: branch-info.sh BRANCH_DIR}" && pwd)
. "$here/common.sh"
real_card=0
grep -qF "BRANCH_DIR := \$(TOP)/guest-kmod/nvidia-uvm/branches/$(basename "$branch_dir")" \
	"$top/images/nvidia/Makefile" && [ -z "$nvidia_src" ] && real_card=1
if [ -n "$nvidia_src" ]; then
	source="tree ${version%-tree} (sources ${sha256:0:12})"
else
	source="Debian $suite $package $version"
fi
printf 'version=%q stock_only=%q real_card=%q nvidia_cache=%q source=%q\n' "${version%-*}" \
	"$stock_only" "$real_card" "$cache" "$source"
