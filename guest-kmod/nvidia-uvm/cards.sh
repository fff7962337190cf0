#!/usr/bin/env bash
# Prints the "Compatible GPUs" table of a branch's package README (product
# name | PCI device id [subsystem vendor, subsystem device]), from the
# package build.sh unpacked: which cards that branch's nvidia.ko drives.
#
#   cards.sh [BRANCH_DIR]        e.g. cards.sh guest-kmod/nvidia-uvm/branches/550.163.01 | grep H200
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
branch_dir=$(cd "${1:-$here/branches/535.261.03}" && pwd)
. "$here/common.sh"

readme="$cache/pristine/.README.md.gz"
[ -f "$readme" ] || bash "$here/build.sh" "$branch_dir" >/dev/null
zcat "$readme" | sed -n '/^## Compatible GPUs/,$p' | grep '^| [A-Z]' | grep -v '^| Product Name'
