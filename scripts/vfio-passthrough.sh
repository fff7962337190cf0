#!/usr/bin/env bash
# Passes a real NVIDIA card through to the testbed's guest
# (docs/real-cards.md): binds it to vfio-pci and boots a guest image with it, under
# KVM (QEMU directly; --libvirt-xml prints the equivalent libvirt domain
# with a <hostdev> instead). --dry-run touches nothing and prints the sysfs
# writes and the QEMU command line it would use.
#
# usage: vfio-passthrough.sh [--dry-run] [--libvirt-xml] [--image emgpu|nvidia|nvidia-550]
#                            [--append 'WORDS'] [--memory MIB] [--timeout SEC]
#                            DDDD:BB:SS.F
#   --image emgpu   (default) the emgpu image, `--scenarios info` beside the
#                   card, which nothing in that guest drives (make all)
#   --image nvidia  the real-card image (make image-nvidia): NVIDIA's
#                   modules with Ember in nvidia-uvm drive the card and the
#                   applications run as --append says (images/nvidia/init:
#                   ember_apps=, ember_variants=, ember_footprints=, ...);
#                   results in build/vfio-nvidia/results.jsonl, which
#                   `ember-agent report build/vfio-nvidia` tabulates
#   --image nvidia-550  the same with the 550 branch (the H200 needs it)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
. "$here/common.sh"

dry=0 xml=0 image=emgpu append= memory= timeout=
while [ $# -gt 1 ]; do
	case $1 in
	--dry-run) dry=1 ;;
	--libvirt-xml) xml=1 ;;
	--image) image=$2; shift ;;
	--append) append=$2; shift ;;
	--memory) memory=$2; shift ;;
	--timeout) timeout=$2; shift ;;
	*) die "unknown option $1" ;;
	esac
	shift
done
addr=${1:-}
[[ "$addr" =~ ^[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-1][0-9a-fA-F]\.[0-7]$ ]] ||
	die "usage: vfio-passthrough.sh [--dry-run] [--libvirt-xml] [--image emgpu|nvidia|nvidia-550] DDDD:BB:SS.F (got '$addr')"

dev=/sys/bus/pci/devices/$addr
agent=$top/build/host-agent/ember-agent
qemu=$(cat "$top/build/qemu-path" 2>/dev/null || echo "$top/build/qemu-system-x86_64")
args=(vm --qemu "$qemu" --kernel "$top/build/images/vmlinuz" --accel kvm --vfio "$addr")
case $image in
emgpu)
	initrd=$top/build/images/initramfs.cpio
	args+=(--initrd "$initrd" --scenarios info --workdir "$top/build/vfio")
	[ -z "$memory" ] || args+=(--memory "$memory")
	[ -z "$timeout" ] || args+=(--timeout "$timeout") ;;
nvidia | nvidia-550)
	# the card's applications need guest memory beyond their footprints
	# (the host-side copies and references): 16 GiB and an hour by default
	initrd=$top/build/images/initramfs-$image.cpio
	args+=(--initrd "$initrd" --scenarios none --workdir "$top/build/vfio-$image"
	       --memory "${memory:-16384}" --timeout "${timeout:-3600}") ;;
*) die "--image $image: expected emgpu, nvidia or nvidia-550" ;;
esac
[ -z "$append" ] || args+=(--append "$append")

run() {	# a sysfs write, or its description in a dry run
	if [ "$dry" = 1 ]; then
		echo "would run: $*"
	else
		sh -c "$*"
	fi
}

[ -x "$agent" ] || die "build the testbed first (make all)"
[ -f "$initrd" ] || [ "$dry" = 1 ] ||
	die "no $initrd: make $([ "$image" = emgpu ] && echo all || echo image-nvidia) first"
if [ "$dry" = 0 ]; then
	[ "$(id -u)" = 0 ] || die "binding a device to vfio-pci needs root"
	[ -e "$dev" ] || die "no PCI device $addr"
	[ -e "$dev/iommu_group" ] ||
		die "$addr has no IOMMU group: enable the IOMMU (intel_iommu=on / amd_iommu=on)"
	[ -e /dev/kvm ] || die "KVM is needed for passthrough"
	for other in "$dev"/iommu_group/devices/*; do
		o=$(basename "$other")
		drv=$(basename "$(readlink -f "$other/driver" 2>/dev/null)" 2>/dev/null || true)
		[ "$o" = "$addr" ] || [ -z "$drv" ] || [ "$drv" = vfio-pci ] ||
			die "$o shares $addr's IOMMU group and is bound to $drv: unbind it first"
	done
	modprobe vfio-pci
fi
run "echo vfio-pci > $dev/driver_override"
run "[ ! -e $dev/driver ] || echo $addr > $dev/driver/unbind"
run "echo $addr > /sys/bus/pci/drivers_probe"

if [ "$xml" = 1 ]; then
	exec "$agent" "${args[@]}" --libvirt-xml
elif [ "$dry" = 1 ]; then
	exec "$agent" "${args[@]}" --dry-run
else
	log "booting the guest with $addr passed through"
	exec "$agent" "${args[@]}"
fi
