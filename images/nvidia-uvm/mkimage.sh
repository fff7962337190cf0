#!/usr/bin/env bash
# Builds the nvidia-uvm guest initramfs reproducibly (write_cpio in
# images/common.sh): busybox-static, init, and per driver branch
# lib/modules/<version>/ with emgpu-rm.ko, uvm-builtin-tests,
# uvm-launch-test and emgpu-rm-fuzz
# (guest-kmod/emgpu-rm/build.sh) and nvidia-uvm.ko exactly as guest-kmod/nvidia-uvm/build.sh made
# it (the module that goes into the real-card image; none for a stock-only
# branch), NVIDIA's own as packaged as nvidia-uvm-stock.ko
# (guest-kmod/nvidia-uvm/build.sh --stock), and /bin/ember-run
# ($EMBER_RUN, default build/guest/ember-run: the matrix runs of driver
# nvidia-uvm, libember's nvidia-uvm back end) with the capture traces as
# /traces/NAME, as the ember image carries them (images/Makefile's TRACES
# names them: ember-run -k trace:NAME replays one on either driver).
#
# usage: mkimage.sh OUTPUT.cpio BRANCH_DIR... [TRACE.trace...]
set -euo pipefail

out=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$top/scripts/common.sh"
. "$top/images/common.sh"
check_busybox

ember_run=${EMBER_RUN:-$top/build/guest/ember-run}
[ -x "$ember_run" ] || die "no $ember_run (make -C userspace builds it)"
new_root "$here/init"
install -m 0755 "$ember_run" "$root/bin/ember-run"
branches=()
for a in "$@"; do
	case $a in
	*.trace) install_trace "$root" "$a" ;;
	*) branches+=("$a") ;;
	esac
done
for branch_dir in "${branches[@]}"; do
	eval "$(bash "$top/guest-kmod/nvidia-uvm/branch-info.sh" "$branch_dir")"
	nvidia=$(bash "$top/guest-kmod/nvidia-uvm/build.sh" "$branch_dir") ||
		die "the $version modules did not build (guest-kmod/nvidia-uvm/build.sh $branch_dir)"
	stock=$(bash "$top/guest-kmod/nvidia-uvm/build.sh" --stock "$branch_dir") ||
		die "Debian's $version nvidia-uvm did not build (guest-kmod/nvidia-uvm/build.sh --stock $branch_dir)"
	standin=$(bash "$top/guest-kmod/emgpu-rm/build.sh" "$branch_dir") ||
		die "the $version stand-in did not build (guest-kmod/emgpu-rm/build.sh $branch_dir)"
	dest="$root/lib/modules/$version"
	mkdir -p "$dest"
	install -m 0644 "$standin/emgpu-rm.ko" "$dest/"
	# a stock-only branch (a tree the series was not ported to) has no
	# module of the series
	[ "$stock_only" = 1 ] || install -m 0644 "$nvidia/nvidia-uvm.ko" "$dest/"
	install -m 0644 "$stock/nvidia-uvm.ko" "$dest/nvidia-uvm-stock.ko"
	install -m 0755 "$standin/uvm-builtin-tests" "$standin/uvm-launch-test" \
		"$standin/emgpu-rm-fuzz" "$dest/"
done
write_cpio "$root" "$out"
