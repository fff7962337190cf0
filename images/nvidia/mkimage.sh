#!/usr/bin/env bash
# Builds the real-card guest initramfs reproducibly (write_cpio in
# images/common.sh): busybox-static, init, NVIDIA's nvidia.ko and the Ember
# nvidia-uvm.ko of one driver branch (guest-kmod/nvidia-uvm/build.sh, cached),
# that branch's guest package set of packages.conf (GSP firmware, libcuda
# and the driver's other user-space libraries, nvidia-smi, the CUDA 11.8
# runtime),
# the CUDA programs, and the C and C++ libraries those programs need, taken
# from this machine (Debian 12; /etc/ember-image lists their packages).
#
# usage: mkimage.sh OUTPUT.cpio BRANCH_DIR GUEST_ROOT PROGRAM...
#   BRANCH_DIR: guest-kmod/nvidia-uvm/branches/535.261.03 or guest-kmod/nvidia-uvm/branches/550.163.01;
#   GUEST_ROOT: `fetch.sh guest-<branch>`'s directory. A PROGRAM named *.so goes to
#   /usr/lib, any other to /bin. OUTPUT is replaced only when its bytes
#   change, so make sees a rebuilt but identical image as unchanged.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=$1 branch_dir=$2 guest=$3
shift 3
. "$top/scripts/common.sh"
. "$top/images/common.sh"
check_busybox

branch_version=$(. "$branch_dir/branch.conf" && echo "$version")
driver=${branch_version%-*}
modules=$(bash "$top/guest-kmod/nvidia-uvm/build.sh" "$branch_dir") ||
	die "the $driver modules did not build (guest-kmod/nvidia-uvm/build.sh $branch_dir)"
# the kernel looks for firmware in /lib/firmware (trixie ships it in /usr)
firmware=$guest/lib/firmware
[ -d "$firmware" ] || firmware=$guest/usr/lib/firmware
[ -d "$firmware/nvidia/$driver" ] ||
	die "the guest set's GSP firmware is not the modules' version $driver"
[ -f "$guest/usr/lib/x86_64-linux-gnu/nvidia/current/libcuda.so.$driver" ] ||
	die "the guest set's libcuda is not the modules' version $driver"

root=$(mktemp -d)
trap 'rm -rf "$root" "$out.new"' EXIT
mkdir -p "$root"/{bin,dev,proc,sys,tmp,etc,lib/modules,lib/x86_64-linux-gnu,usr/lib}
install -m 0755 "$busybox" "$root/bin/busybox"
ln -s busybox "$root/bin/sh"
install -m 0755 "$here/init" "$root/init"
install -m 0644 "$modules/nvidia.ko" "$modules/nvidia-uvm.ko" "$root/lib/modules/"
cp -a "$firmware" "$root/lib/"
cp -a "$guest/usr" "$root/"
rm -rf "$root/usr/lib/firmware"
mkdir -p "$root/usr/bin"
ln -s ../lib/nvidia/current/nvidia-smi "$root/usr/bin/nvidia-smi"
for p in "$@"; do
	case $p in
	*.so) install -m 0755 "$p" "$root/usr/lib/" ;;
	*) install -m 0755 "$p" "$root/bin/" ;;
	esac
done

# The C and C++ runtime of this machine that the programs and the driver's
# libraries link against (ldd resolves them with the image's own CUDA
# libraries first), and the loader at its ELF interpreter path.
libpath=$root/usr/lib/x86_64-linux-gnu:$root/usr/lib/x86_64-linux-gnu/nvidia/current
host_libs=$(find "$root/bin" "$root/usr" -type f \( -perm -u+x -o -name '*.so*' \) |
	while read -r f; do
		[ "$(head -c 4 "$f" | tail -c 3)" = ELF ] || continue
		# a static program (busybox) has nothing to list
		{ LD_LIBRARY_PATH=$libpath ldd "$f" 2>/dev/null || true; } |
			awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\/.*ld-linux/ { print $1 }'
	done | grep -v "^$root" | LC_ALL=C sort -u)
for l in $host_libs; do
	install -m 0755 "$(readlink -f "$l")" "$root/lib/x86_64-linux-gnu/$(basename "$l")"
done
[ -f "$root/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" ] ||
	die "no ELF interpreter among the programs' libraries"
mkdir -p "$root/lib64"
ln -s ../lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 "$root/lib64/"

{
	echo "# the real-card guest image: what it holds, by Debian package"
	echo "modules nvidia-open-kernel-source $branch_version" \
		"+ the Ember series + policy ($(basename "$modules"))"
	awk -v set="guest-${driver%%.*}" '!/^#/ && $1 == set { print "package", $3, $4 }' \
		"$here/packages.conf"
	for l in $host_libs; do
		# dpkg knows a library by one of its names (usrmerge)
		pkg=$(dpkg -S "$l" 2>/dev/null | head -n 1 | cut -d: -f1) || pkg=
		[ -n "$pkg" ] || pkg=$(dpkg -S "$(readlink -f "$l")" | head -n 1 | cut -d: -f1)
		echo "host-library $(basename "$l") $pkg $(dpkg-query -W -f='${Version}' "$pkg")"
	done
} >"$root/etc/ember-image"

write_cpio "$root" "$out.new"
if cmp -s "$out.new" "$out"; then
	rm -f "$out.new"
else
	mv "$out.new" "$out"
fi
