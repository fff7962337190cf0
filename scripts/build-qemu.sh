#!/usr/bin/env bash
# Builds qemu-system-x86_64 with the emgpu device from Debian's QEMU source.
#
# The result is cached in $EMBER_CACHE/qemu/<key>/, where <key> hashes every
# input: the Debian source version, the configure flags, this script, the
# hook and the device + model sources. A warm cache costs one hash; a changed
# device source reuses the persistent build tree, so only changed files are
# recompiled. Prints the path of the binary on stdout; the emgpu qtest
# binary (tests/qtest/emgpu-test.c) lies beside it.
#
# build-qemu.sh --fuzz builds instead QEMU's libFuzzer binary
# (qemu-fuzz-x86_64, clang, ASan + UBSan), whose generic-fuzz target drives
# emgpu's BAR and DMA (make fuzz-qemu), in a tree and cache entry of its own.
# Its tree also gets our patches to Debian's source (tests/fuzz/qemu/*.patch),
# applied afresh to pristine copies of the files they change at every build.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
. "$here/common.sh"

configure_flags=(
	--target-list=x86_64-softmmu
	--without-default-features
	--without-default-devices
	--with-devices-x86_64=ember	# qemu-device/devices-x86_64.mak
	--disable-docs
	--disable-werror
	--enable-tcg
	--enable-kvm	# KVM does not work on the CI machines, but does on users'
	# Line tables only (-g1): backtraces and gdb still name file and line,
	# and the build takes less CPU than with QEMU's full -g (a cleaned
	# tree rebuilt here: 222 CPU s against 252).
	--disable-debug-info
	--extra-cflags=-g1
)
targets=(qemu-system-x86_64 tests/qtest/emgpu-test)
cache=qemu
patches=()
if [ "${1:-}" = --fuzz ]; then
	configure_flags=(
		--target-list=x86_64-softmmu
		--without-default-features
		--disable-docs
		--disable-werror
		--enable-tcg
		--cc=clang --cxx=clang++
		--enable-fuzzing
		--enable-sanitizers
	)
	targets=(qemu-fuzz-x86_64)
	cache=qemu-fuzz
	patches=($(cd "$top" && ls tests/fuzz/qemu/*.patch))
fi

# Everything of ours that ends up inside the QEMU tree.
device_inputs() {
	(cd "$top" && find qemu-device models/include models/src models/sources.mk tests/qtest -type f | LC_ALL=C sort)
}

source_version() {
	apt-cache showsrc qemu | sed -n 's/^Version: //p' | sort -V | tail -n1
}

# Unpacks Debian's source (with Debian's patches applied) once per version.
fetch_source() {
	local ver=$1 dir=$2 tmp
	[ -f "$dir/.ember-unpacked" ] && return
	log "fetching Debian's QEMU source $ver"
	tmp=$(mktemp -d "$EMBER_CACHE/qemu-src.XXXXXX")
	(cd "$tmp" && apt-get source -qq "qemu=$ver" >/dev/null)
	rm -rf "$dir"
	mv "$tmp"/qemu-*/ "$dir"
	rm -rf "$tmp"
	touch "$dir/.ember-unpacked"
}

# Copies our sources into hw/emgpu of the build tree; unchanged files keep
# their mtimes so ninja recompiles only what changed.
sync_device() {
	local tree=$1
	mkdir -p "$tree/hw/emgpu/models"
	rsync -rc --delete --exclude models --exclude devices-x86_64.mak "$top/qemu-device/" "$tree/hw/emgpu/"
	rsync -c "$top/qemu-device/devices-x86_64.mak" "$tree/configs/devices/x86_64-softmmu/ember.mak"
	rsync -rc --delete "$top/models/include" "$top/models/src" "$top/models/sources.mk" \
		"$tree/hw/emgpu/models/"
	rsync -c "$top/tests/qtest/emgpu-test.c" "$tree/tests/qtest/"
}

# Patches the files our patches touch, from the pristine source $src, and
# copies the results into the tree (only those that changed).
patch_tree() {
	local src=$1 tree=$2 tmp p f
	[ ${#patches[@]} -gt 0 ] || return 0
	tmp=$(mktemp -d)
	for p in "${patches[@]}"; do
		for f in $(sed -n 's|^+++ b/||p' "$top/$p"); do
			[ -f "$tmp/$f" ] || install -D -m 644 "$src/$f" "$tmp/$f"
		done
		patch -s -p1 -d "$tmp" <"$top/$p" || die "patch $p does not apply to $src"
	done
	rsync -rc "$tmp/" "$tree/"
	rm -rf "$tmp"
}

main() {
	local ver key tree out src
	mkdir -p "$EMBER_CACHE"
	ver=$(source_version)
	[ -n "$ver" ] || die "no deb-src for qemu: run scripts/setup.sh first"

	key=$( {
		echo "$ver"
		printf '%s\n' "${configure_flags[@]}"
		cat "$0" "$here/qemu-hook.sh"
		device_inputs | while read -r f; do echo "$f"; cat "$top/$f"; done
		for p in "${patches[@]}"; do echo "$p"; cat "$top/$p"; done
	} | sha256sum | cut -c1-16)
	out="$EMBER_CACHE/$cache/$key"
	if [ -x "$out/${targets[0]}" ]; then
		log "QEMU cached ($key)"
		echo "$out/${targets[0]}"
		return
	fi

	# One build at a time per cache: several checkouts (worktrees, parallel
	# makes) share the persistent tree below.
	exec 9>"$EMBER_CACHE/$cache.lock"
	flock 9
	if [ -x "$out/${targets[0]}" ]; then
		log "QEMU cached ($key), built by another make meanwhile"
		echo "$out/${targets[0]}"
		return
	fi

	src="$EMBER_CACHE/qemu-src/$ver"
	mkdir -p "$(dirname "$src")"
	fetch_source "$ver" "$src"

	# One persistent tree per source version and configure flags.
	tree="$EMBER_CACHE/qemu-build/$( {
		echo "$ver"
		printf '%s\n' "${configure_flags[@]}"
		cat "$here/qemu-hook.sh"
	} | sha256sum | cut -c1-16)"
	if [ ! -f "$tree/.ember-configured" ]; then
		rm -rf "$tree"
		mkdir -p "$(dirname "$tree")"
		cp -a "$src" "$tree"
		bash "$here/qemu-hook.sh" "$tree"
		sync_device "$tree"
		log "configuring QEMU: ${configure_flags[*]}"
		(cd "$tree" && mkdir -p build && cd build &&
			../configure "${configure_flags[@]}" >configure.log 2>&1) ||
			die "QEMU configure failed; see $tree/build/configure.log"
		touch "$tree/.ember-configured"
	fi
	sync_device "$tree"
	patch_tree "$src" "$tree"

	log "building QEMU in $tree/build"
	ninja -C "$tree/build" "${targets[@]}" >"$tree/build/ninja.log" 2>&1 ||
		{ tail -n 40 "$tree/build/ninja.log" >&2; die "QEMU build failed; see $tree/build/ninja.log"; }

	mkdir -p "$out.tmp"
	for t in "${targets[@]}"; do
		cp "$tree/build/$t" "$out.tmp/"
	done
	rm -rf "$out"
	mv "$out.tmp" "$out"
	echo "$out/${targets[0]}"
}

main "$@"
