#!/usr/bin/env bash
# Builds the guest initramfs reproducibly: the same inputs give the same
# bytes (entries sorted, owners root, every mtime SOURCE_DATE_EPOCH).
#
# usage: mkinitramfs.sh OUTPUT.cpio ember.ko ember-vmtest ember-run [policy.ko | program]...
set -euo pipefail

out=$1 kmod=$2 vmtest=$3 run=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)
: "${SOURCE_DATE_EPOCH:=0}"

busybox=/bin/busybox
# the guest has no libc: busybox must be Debian's busybox-static
if [ ! -x "$busybox" ] || readelf -d "$busybox" | grep -q NEEDED; then
	echo "mkinitramfs.sh: $busybox is not busybox-static" >&2
	exit 1
fi

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,dev,proc,sys,lib/modules}
install -m 0755 "$busybox" "$root/bin/busybox"
ln -s busybox "$root/bin/sh"
install -m 0755 "$here/init" "$root/init"
install -m 0644 "$kmod" "$root/lib/modules/ember.ko"
install -m 0755 "$vmtest" "$root/bin/ember-vmtest"
install -m 0755 "$run" "$root/bin/ember-run"
for m in "$@"; do	# policy modules (loaded on demand) and more guest programs
	case $m in
	*.ko) install -m 0644 "$m" "$root/lib/modules/$(basename "$m")" ;;
	*) install -m 0755 "$m" "$root/bin/$(basename "$m")" ;;
	esac
done

find "$root" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
(cd "$root" && find . -mindepth 1 | LC_ALL=C sort |
	cpio --quiet -o -H newc -R 0:0 --reproducible) >"$out.tmp"
mv "$out.tmp" "$out"
