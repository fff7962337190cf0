#!/usr/bin/env bash
# Lists the real-card guest image's contents and fails if any is missing or
# wrong (part of make test, after make image-nvidia):
#   - init, busybox-static;
#   - nvidia.ko and nvidia-uvm.ko, the very modules build.sh made and
#     nvidia-test checks, with the guest kernel's vermagic, the core's
#     ember_* symbols in nvidia-uvm.ko and every Table 1 parameter in its
#     modinfo;
#   - the GSP firmware of the modules' driver version;
#   - libcuda, the PTX JIT and NVML of that version, nvidia-smi, and
#     libcudart 11.8;
#   - each CUDA program, linked against libcudart.so.11.0 (11.8 in the
#     image), with machine code for Turing to Hopper, and every library it
#     needs inside the image (resolved by the image's own loader; as root,
#     run in a chroot, where it must get as far as libcuda's answer that
#     there is no device);
#   - libember-static.so, interposing CUDA 11.8's names (cudaMemAdvise,
#     cuMemAdvise and cuMemPrefetchAsync without _v2), and ember-apps
#     preloading it in the chroot as far as the same error;
#   - /etc/ember-image naming each guest package at its pinned version.
# Then the same checks on a copy of the image without its GSP firmware must
# fail (the test can fail).
#
#   check.sh IMAGE.cpio BRANCH_DIR TOOLKIT_ROOT PROGRAM...
#   (BRANCH_DIR: the image's driver branch, guest-kmod/nvidia-uvm/branches/<version>; KTAP,
#   then "N passed, M failed, K skipped")
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
image=$1 branch_dir=$(cd "$2" && pwd) toolkit=$3
shift 3
programs=("$@")
. "$top/guest-kmod/nvidia-uvm/common.sh"
driver=${version%-*}
uname="$(kernel_abi)-cloud-amd64"

. "$top/scripts/ktap.sh"

has() {	# files that must be in the image
	local f missing=0
	for f in "$@"; do
		grep -qxF "$f" <<<"$listing" || { echo "missing: $f"; missing=1; }
	done
	return $missing
}

modules_as_built() {
	local out m
	out=$(bash "$top/guest-kmod/nvidia-uvm/build.sh" "$branch_dir" 2>/dev/null) ||
		{ echo "build.sh failed"; return 1; }
	for m in nvidia nvidia-uvm; do
		cmp "$out/$m.ko" "$root/lib/modules/$m.ko" || return 1
		[[ "$(modinfo -F vermagic "$root/lib/modules/$m.ko")" == "$uname "* ]] ||
			{ echo "$m.ko: vermagic is not $uname"; return 1; }
	done
}

uvm_ember() {
	local ko=$root/lib/modules/nvidia-uvm.ko name def parms bad=0 syms
	syms=$(nm "$ko" | grep -c ' T ember_')
	[ "$syms" -ge 10 ] || { echo "only $syms ember_* functions in nvidia-uvm.ko"; bad=1; }
	parms=$(modinfo -p "$ko")
	while read -r name def; do
		grep -qE "^$name:.*default ${def}[,)]" <<<"$parms" ||
			{ echo "modinfo: no $name with default $def"; bad=1; }
	done < <(table1)
	return $bad
}

program_ok() {
	local p=$1 name needed list cubins sm
	name=$(basename "$p")
	cmp "$p" "$root/bin/$name" || return 1
	needed=$(readelf -d "$root/bin/$name" | sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p')
	grep -qx 'libcudart.so.11.0' <<<"$needed" || { echo "$name: not linked against libcudart.so.11.0"; return 1; }
	[ "$(readlink "$root/usr/lib/x86_64-linux-gnu/libcudart.so.11.0")" = libcudart.so.11.8.89 ] ||
		{ echo "libcudart.so.11.0 in the image is not 11.8.89"; return 1; }
	cubins=$("$toolkit/usr/bin/cuobjdump" --list-elf "$root/bin/$name")
	for sm in sm_75 sm_80 sm_86 sm_89 sm_90; do
		grep -q "\.$sm\.cubin" <<<"$cubins" || { echo "$name: no $sm code"; return 1; }
	done
	# the image's loader, the image's library directories only
	list=$("$root/lib64/ld-linux-x86-64.so.2" --inhibit-cache --library-path \
		"$root/lib/x86_64-linux-gnu:$root/usr/lib/x86_64-linux-gnu:$root/usr/lib/x86_64-linux-gnu/nvidia/current" \
		--list "$root/bin/$name")
	grep -q 'not found' <<<"$list" && { echo "$list"; return 1; }
	grep -q "libcudart.so.11.0 => $root/usr/lib/x86_64-linux-gnu/libcudart.so.11.0" <<<"$list" ||
		{ echo "$list"; return 1; }
}

interposer_ok() {
	local p=$1 name syms sym
	name=$(basename "$p")
	cmp "$p" "$root/usr/lib/$name" || return 1
	syms=$(nm -D --defined-only "$root/usr/lib/$name" | awk '{ print $3 }')
	for sym in cudaMallocManaged cudaMemAdvise cudaMemPrefetchAsync cudaLaunchKernel \
		   cuMemAllocManaged cuMemAdvise cuMemPrefetchAsync cuLaunchKernel; do
		grep -qx "$sym" <<<"$syms" || { echo "$name does not define $sym"; return 1; }
	done
}

# runs_in_image PROGRAM [PRELOAD]
runs_in_image() {
	local p=$1 out
	# the environment set inside the chroot (chroot itself is the host's)
	out=$(chroot "$root" /bin/busybox env \
		LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu/nvidia/current \
		LD_PRELOAD="${2:-}" "/bin/$(basename "$p")" pathfinder uvm 1048576 2>&1)
	# The loader only warns about a preload it cannot load. libcuda's
	# answer without a device: 535 finds none; 550, with no /proc in the
	# chroot, reports the OS call it needed. Without libcuda the runtime
	# would say the driver is insufficient.
	! grep -q 'cannot be preloaded' <<<"$out" &&
		grep -qE 'no CUDA-capable device|OS call failed' <<<"$out" || { echo "$out"; return 1; }
}

manifest_pins() {
	local pkg ver bad=0
	while read -r _ pkg ver _; do
		grep -qx "package $pkg $ver" "$root/etc/ember-image" || { echo "no package $pkg $ver"; bad=1; }
	done < <(awk -v set="guest-${driver%%.*}" '!/^#/ && $1 == set { print $1, $3, $4 }' \
		"$here/packages.conf")
	return $bad
}

# check_image CPIO: every check above on one image
check_image() {
	local p
	root=$(mktemp -d)
	(cd "$root" && cpio -idm --quiet) <"$1"
	listing=$(cd "$root" && find . -mindepth 1 | sed 's|^\./||' | LC_ALL=C sort)
	check "init and busybox-static" has init bin/busybox bin/sh
	check "nvidia.ko and nvidia-uvm.ko" has lib/modules/nvidia.ko lib/modules/nvidia-uvm.ko
	check "the modules are build.sh's $driver build, vermagic $uname" modules_as_built
	check "nvidia-uvm.ko: ember_* functions, Table 1 parameters in modinfo" uvm_ember
	check "GSP firmware $driver" has "lib/firmware/nvidia/$driver/gsp_ga10x.bin" \
		"lib/firmware/nvidia/$driver/gsp_tu10x.bin"
	check "libcuda, PTX JIT, NVML $driver, nvidia-smi" has \
		"usr/lib/x86_64-linux-gnu/nvidia/current/libcuda.so.$driver" \
		"usr/lib/x86_64-linux-gnu/nvidia/current/libcuda.so.1" \
		"usr/lib/x86_64-linux-gnu/nvidia/current/libnvidia-ptxjitcompiler.so.$driver" \
		"usr/lib/x86_64-linux-gnu/nvidia/current/libnvidia-ml.so.$driver" usr/bin/nvidia-smi
	check "libcudart 11.8" has usr/lib/x86_64-linux-gnu/libcudart.so.11.8.89 \
		usr/lib/x86_64-linux-gnu/libcudart.so.11.0
	for p in "${programs[@]}"; do
		case $p in
		*.so) check "$(basename "$p"): CUDA 11.8's entry points" interposer_ok "$p" ;;
		*) check "$(basename "$p"): libcudart 11.8, sm_75..sm_90, libraries in the image" \
			program_ok "$p" ;;
		esac
	done
	if [ "$(id -u)" = 0 ]; then
		check "ember-apps runs in the image as far as libcuda's 'no device'" \
			runs_in_image "${programs[0]}"
		check "... and under LD_PRELOAD=libember-static.so" \
			runs_in_image "${programs[0]}" /usr/lib/libember-static.so
	else
		skip "ember-apps in a chroot" "not root"
	fi
	check "/etc/ember-image names every guest package at its pinned version" manifest_pins
	rm -rf "$root"
}

echo "KTAP version 1"
check_image "$image"
# the same checks must fail on an image without its firmware
damaged=$(mktemp -d)
(cd "$damaged" && cpio -idm --quiet && rm -r "lib/firmware" &&
	find . -mindepth 1 | LC_ALL=C sort | cpio --quiet -o -H newc) <"$image" >"$damaged.cpio"
before_n=$n before=$failed before_skipped=$skipped
check_image "$damaged.cpio" >/dev/null
damaged_failures=$((failed - before))
n=$before_n failed=$before skipped=$before_skipped
rm -rf "$damaged" "$damaged.cpio"
check "an image without its GSP firmware fails the checks" test "$damaged_failures" -gt 0
echo "1..$n"
ktap_summary
