# Shared by the image builders (mkinitramfs.sh, nvidia/mkimage.sh,
# nvidia-uvm/mkimage.sh); sourced.

busybox=/bin/busybox

# The guest has no libc of its own for busybox: it must be Debian's
# busybox-static.
check_busybox() {
	if [ ! -x "$busybox" ] || readelf -d "$busybox" | grep -q NEEDED; then
		echo "$(basename "$0"): $busybox is not busybox-static" >&2
		exit 1
	fi
}

# new_root INIT: sets root to a fresh temporary folder, removed when the
# script exits, with the folders every guest image has, busybox-static as
# /bin/sh and INIT as /init. (Not in a command substitution: its exit
# would run the trap.)
new_root() {
	root=$(mktemp -d)
	trap 'rm -rf "$root"' EXIT
	mkdir -p "$root"/{bin,dev,proc,sys,lib/modules}
	install -m 0755 "$busybox" "$root/bin/busybox"
	ln -s busybox "$root/bin/sh"
	install -m 0755 "$1" "$root/init"
}

# write_cpio ROOT OUT: ROOT as a newc cpio, reproducibly: the same tree
# gives the same bytes (entries sorted, owners root, every mtime
# SOURCE_DATE_EPOCH, default 0).
write_cpio() {
	local root=$1 out=$2
	find "$root" -exec touch -h -d "@${SOURCE_DATE_EPOCH:-0}" {} +
	(cd "$root" && find . -mindepth 1 | LC_ALL=C sort |
		cpio --quiet -o -H newc -R 0:0 --reproducible) >"$out.tmp"
	mv "$out.tmp" "$out"
}

# install_trace ROOT TRACE: a capture trace as ROOT/traces/NAME, where
# ember-run -k trace:NAME looks for it (docs/trace-replay.md); every image
# that runs ember-run carries the same ones.
install_trace() {
	install -D -m 0644 "$2" "$1/traces/$(basename "$2")"
}
