#!/usr/bin/env bash
# Builds the guest initramfs reproducibly: the same inputs give the same
# bytes (write_cpio in common.sh).
#
# usage: mkinitramfs.sh OUTPUT.cpio ember.ko ember-vmtest ember-run [policy.ko | trace | program]...
set -euo pipefail

out=$1 kmod=$2 vmtest=$3 run=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)

. "$here/common.sh"
check_busybox

new_root "$here/init"
install -m 0644 "$kmod" "$root/lib/modules/ember.ko"
install -m 0755 "$vmtest" "$root/bin/ember-vmtest"
install -m 0755 "$run" "$root/bin/ember-run"
for m in "$@"; do	# policy modules (loaded on demand), traces and more guest programs
	case $m in
	*.ko) install -m 0644 "$m" "$root/lib/modules/$(basename "$m")" ;;
	*.trace) install_trace "$root" "$m" ;;
	*) install -m 0755 "$m" "$root/bin/$(basename "$m")" ;;
	esac
done

write_cpio "$root" "$out"
