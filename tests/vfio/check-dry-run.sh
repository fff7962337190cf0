#!/usr/bin/env bash
# Checks the vfio passthrough helper without a card: its dry run plans the
# sysfs writes and a QEMU command line with the card, its libvirt domain
# validates against libvirt's schema (virt-xml-validate), and a malformed
# address is refused; the same for the real-card images (--image nvidia,
# nvidia-550), whose command line carries init's words. KTAP, then "N passed, M failed, K skipped".
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
script=$top/scripts/vfio-passthrough.sh
addr=0000:65:00.0
. "$top/scripts/ktap.sh"

echo "KTAP version 1"
echo "1..9"
plan=$(bash "$script" --dry-run "$addr" 2>&1)
check "dry run plans the vfio-pci binding" \
	grep -q "would run: echo vfio-pci > /sys/bus/pci/devices/$addr/driver_override" <<<"$plan"
check "dry run boots QEMU with the card under KVM" \
	grep -q "'-accel' 'kvm'.*'vfio-pci,host=$addr'" <<<"$plan"
xml=$(mktemp)
bash "$script" --dry-run --libvirt-xml "$addr" 2>/dev/null | sed -n '/^<domain/,$p' >"$xml"
check "libvirt domain with <hostdev> validates" \
	sh -c "grep -q \"<address domain='0x0000' bus='0x65' slot='0x00' function='0x0'/>\" '$xml' && virt-xml-validate '$xml' domain"
rm -f "$xml"
check "a malformed address is refused" \
	sh -c "! bash '$script' --dry-run 65:00.0"

words='ember_apps=pathfinder ember_variants=uvm,adaptive'
plan=$(bash "$script" --dry-run --image nvidia --append "$words" "$addr" 2>&1)
check "nvidia image: dry run plans the vfio-pci binding" \
	grep -q "would run: echo vfio-pci > /sys/bus/pci/devices/$addr/driver_override" <<<"$plan"
check "nvidia image: QEMU boots initramfs-nvidia.cpio with the card, init's words, 16 GiB" \
	grep -q "'-accel' 'kvm' '-m' '16384'.*'-initrd' '[^']*/build/images/initramfs-nvidia.cpio' '-append' '[^']* $words'.*'vfio-pci,host=$addr'" <<<"$plan"
xml=$(mktemp)
bash "$script" --dry-run --libvirt-xml --image nvidia --append "$words" "$addr" 2>/dev/null |
	sed -n '/^<domain/,$p' >"$xml"
check "nvidia image: libvirt domain with <hostdev> and that initrd validates" \
	sh -c "grep -q '<initrd>.*/initramfs-nvidia.cpio</initrd>' '$xml' && grep -q \"<address domain='0x0000' bus='0x65' slot='0x00' function='0x0'/>\" '$xml' && virt-xml-validate '$xml' domain"
rm -f "$xml"
plan=$(bash "$script" --dry-run --image nvidia-550 "$addr" 2>&1)
check "nvidia-550 image: QEMU boots initramfs-nvidia-550.cpio with the card" \
	grep -q "'-initrd' '[^']*/build/images/initramfs-nvidia-550.cpio'.*'vfio-pci,host=$addr'" <<<"$plan"
check "an unknown image is refused" \
	sh -c "! bash '$script' --dry-run --image foo '$addr'"
ktap_summary
