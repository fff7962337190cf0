#!/usr/bin/env bash
# Builds the resource-manager stand-in for one driver branch: emgpu-rm.ko
# (against that branch's nv_uvm_interface.h, so that the CRCs nvidia-uvm.ko
# was linked with match), uvm-builtin-tests, the guest runner of NVIDIA's
# built-in tests, uvm-launch-test, a program that does what libcuda
# does (tests/nvidia-uvm/, against that branch's uvm_ioctl.h and
# uvm_test_ioctl.h), and emgpu-rm-fuzz, the ioctl fuzzer of /dev/emgpu-rm
# with nvidia-uvm on it (tests/fuzz-rm/).
#
#   build.sh [--into DIR] BRANCH_DIR   (BRANCH_DIR: guest-kmod/nvidia-uvm/branches/<version>)
#
# NVIDIA's headers come from the branch's build tree as guest-kmod/nvidia-uvm/build.sh
# leaves it (run first if needed), and emgpu_rm.c is compiled with the
# include paths and NVIDIA defines of the nvidia.ko object that exports
# these functions (nvidia/nv_uvm_interface.o), read from its Kbuild
# command file: the same declarations in the same context, so genksyms
# gives the same CRCs. The outputs are cached under
# $EMBER_CACHE/nvidia/<version>/rm-standin/<key>, key = hash of the
# package, these sources and the kernel ABI; prints that directory;
# --into DIR also copies them to DIR/<version>/.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
into=
if [ "${1:-}" = --into ]; then
	into=$2
	shift 2
fi
branch_dir=$(cd "${1:?usage: build.sh [--into DIR] BRANCH_DIR}" && pwd)
. "$top/guest-kmod/nvidia-uvm/common.sh"

pristine="$cache/pristine" tree="$cache/tree"
exporter="$tree/nvidia/.nv_uvm_interface.o.cmd"
[ -f "$exporter" ] || bash "$top/guest-kmod/nvidia-uvm/build.sh" "$branch_dir" >/dev/null ||
	die "the $version modules did not build (guest-kmod/nvidia-uvm/build.sh $branch_dir)"
[ -f "$exporter" ] || die "no $exporter: nvidia.ko's export unit was not built"
# Its NVIDIA include paths and defines (the version string aside: it names
# no type).
nv_cflags=$(sed -n 1p "$exporter" | tr ' ' '\n' |
	grep -E "^-I$tree|^-DNV|^-DNVIDIA|^-DNDEBUG\$|^-U_?DEBUG\$" | grep -v '^-DNV_VERSION_STRING=' | tr '\n' ' ')

abi=$(kernel_abi)
kdir="/usr/src/linux-headers-$abi-cloud-amd64"
[ -f "$kdir/.config" ] || die "no kernel headers at $kdir (scripts/setup.sh installs them)"
models_inc="$top/models/include"
# What the branch's nv_uvm_interface.h declares that earlier branches did
# not, as -D flags, tested on the header itself (as NVIDIA's conftest tests
# the kernel): a tree between the branches here gets what it declares.
interface_features() {
	local h="$pristine/common/inc/nv_uvm_interface.h"
	grep -q 'NvU64 \*dmaAddress)' "$h" && echo -DEMGPU_RM_PD_DMA_ADDRESS
	grep -q 'const UvmGpuAccessCntrConfig \*pAccessCntrConfig' "$h" &&
		echo -DEMGPU_RM_AC_CONFIG_CONST=const || echo -DEMGPU_RM_AC_CONFIG_CONST=
	grep -q 'nvUvmInterfaceGetNvlinkInfo(' "$h" && echo -DEMGPU_RM_HAS_NVLINK_INFO
	grep -q 'mimcGranularity' "$pristine/common/inc/nv_uvm_types.h" && echo -DEMGPU_RM_AC_MIMC_MOMC
	grep -q 'accessCntrBufferCount' "$pristine/common/inc/nv_uvm_types.h" &&
		echo -DEMGPU_RM_AC_BUFFER_COUNT
	return 0
}
# The same for the guest programs and the branch's test ioctls (members
# of structs, which the C preprocessor cannot test): MIMC/MOMC access
# counters, gone in 575.
test_features() {
	grep -q 'mimc_granularity' "$pristine/nvidia-uvm/uvm_test_ioctl.h" && echo -DUVM_TEST_AC_MIMC
	return 0
}
# the model's headers the stand-in includes (copied into the build folder)
model_headers=(emgpu_hw.h ga10x/regs.h ga10x/access_counter_c365.h ga10x/mmu_v2.h
	gh100/regs.h gh100/mmu_v3.h)
sources=("$here"/Kbuild "$here"/*.[ch] "$here"/gen-unbacked.sh
	"${model_headers[@]/#/$models_inc/}" "$top"/include/uapi/emgpu_rm.h
	"$top"/tests/nvidia-uvm/uvm-builtin-tests.c "$top"/tests/nvidia-uvm/uvm-launch-test.c
	"$top"/tests/nvidia-uvm/uvm-user.h "$top"/tests/fuzz-rm/emgpu-rm-fuzz.c
	"$models_inc"/gpumodel/splitmix64.h)
key=$( { echo "$sha256 $abi $nv_cflags"; cat "$0" "${sources[@]}"; } | sha256sum | cut -c1-16)
out="$cache/rm-standin/$key"

if [ ! -f "$out/emgpu-rm.ko" ]; then
	work="$cache/rm-standin/build"
	rm -rf "$work" "$out.tmp"
	mkdir -p "$work/uapi" "$out.tmp"
	cp "$here"/Kbuild "$here"/*.[ch] "$work/"
	for h in "${model_headers[@]}"; do
		mkdir -p "$work/$(dirname "$h")"
		cp "$models_inc/$h" "$work/$h"
	done
	cp "$top"/include/uapi/emgpu_rm.h "$work/uapi/"
	bash "$here/gen-unbacked.sh" "$pristine/common/inc/nv_uvm_interface.h" "$here"/emgpu_rm*.c \
		>"$work/emgpu_rm_unbacked.c"
	log "emgpu-rm.ko for $version against $kdir"
	make -C "$kdir" M="$work" NV_CFLAGS="$nv_cflags $(interface_features | tr '\n' ' ')" \
		EMGPU_RM_BRANCH="${version%%.*}" modules >"$work/build.log" 2>&1 ||
		{ tail -n 30 "$work/build.log" >&2; die "emgpu-rm.ko did not build; see $work/build.log"; }
	strip --strip-debug -o "$out.tmp/emgpu-rm.ko" "$work/emgpu-rm.ko"
	cp "$work/Module.symvers" "$out.tmp/emgpu-rm.symvers"
	log "uvm-builtin-tests for $version"
	${CC:-cc} -std=gnu11 -O2 -Wall -Wextra -static $(test_features) -I"$pristine/nvidia-uvm" \
		-I"$pristine/common/inc" -I"$top/include" -I"$models_inc" -o "$out.tmp/uvm-builtin-tests" \
		"$top/tests/nvidia-uvm/uvm-builtin-tests.c" ||
		die "uvm-builtin-tests did not build against $version's headers"
	log "uvm-launch-test for $version"
	${CC:-cc} -std=gnu11 -O2 -Wall -Wextra -static -I"$pristine/nvidia-uvm" \
		-I"$pristine/common/inc" -I"$top/include" -I"$models_inc" -o "$out.tmp/uvm-launch-test" \
		"$top/tests/nvidia-uvm/uvm-launch-test.c" ||
		die "uvm-launch-test did not build against $version's headers"
	log "emgpu-rm-fuzz for $version"
	${CC:-cc} -std=gnu11 -O2 -Wall -Wextra -Wmissing-prototypes -Wstrict-prototypes -static \
		-pthread -I"$pristine/nvidia-uvm" -I"$pristine/common/inc" -I"$top/include" \
		-I"$models_inc" -I"$top/tests/nvidia-uvm" -o "$out.tmp/emgpu-rm-fuzz" \
		"$top/tests/fuzz-rm/emgpu-rm-fuzz.c" ||
		die "emgpu-rm-fuzz did not build against $version's headers"
	rm -rf "$out" "$work"
	mv "$out.tmp" "$out"
fi
if [ -n "$into" ]; then
	mkdir -p "$into/$version"
	cp "$out"/* "$into/$version/"
fi
echo "$out"
