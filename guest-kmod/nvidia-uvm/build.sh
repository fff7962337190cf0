#!/usr/bin/env bash
# Builds NVIDIA's open kernel modules (nvidia.ko, nvidia-uvm.ko) with the
# Ember glue series and the policy core, against the guest's kernel headers.
#
#   build.sh [--stock] [--into DIR] [BRANCH_DIR]   (default: branches/535.261.03)
#
# --stock builds instead nvidia-uvm.ko as Debian ships it, with only the
# series' build fixes for this kernel (the patches that change no file of
# nvidia-uvm/): no Ember patch, core or glue, so it is NVIDIA's own source
# (the baseline "stock UVM" of nvidia-uvm runs), in a tree of its own
# ($EMBER_CACHE/nvidia/<version>/tree-stock), into
# $EMBER_CACHE/nvidia/<version>/out-stock/<key>. Outside nvidia-uvm/ the
# two trees are the same files, so the stock tree takes the series tree's
# conftest results (nvidia-uvm's headers test for what nvidia's Kbuild
# lists too) and its Module.symvers (nvidia.ko's CRCs for modpost), and
# compiles nvidia-uvm alone: the series is built first.
#
# BRANCH_DIR holds branch.conf (Debian suite, package, version, sha256 of
# the .deb; or tree=PATH, a local tree: common.sh) and patches/ (quilt
# layout: series + numbered patches). Steps, each failing with a message
# naming it:
#   fetch   apt-get download through a private apt configuration whose
#           URIs come from this machine's /etc/apt/sources.list.d/*.sources
#           (scripts/apt-private.sh; suite from branch.conf, contrib);
#           sha256 checked
#   unpack  the .deb's usr/src/nvidia-open-kernel.tar.xz
#   import  instead of both, for a local tree: its kernel-open, with
#           nv-kernel.o built from its src/nvidia (import_tree)
#   patch   the series, `patch -p1 --fuzz=0`, in series order
#   core    policy/*.[ch] copied byte for byte into nvidia-uvm/
#   glue    guest-kmod/nvidia-uvm/glue/uvm_ember.[ch], the branch's uvm_ember_compat.h and
#           include/uapi/ember.h copied byte for byte into nvidia-uvm/
#   build   `make modules` against /usr/src/linux-headers-<abi>-cloud-amd64
#
# Kbuild records absolute paths, so the tree lives at one fixed path per
# branch: $EMBER_CACHE/nvidia/<version>/tree. Its stamp holds a hash of the
# package, the series and the kernel ABI; while that matches, only the core
# is re-synced (unchanged files keep their mtimes) and make rebuilds what
# changed. The finished modules (debug info stripped) are stored under
# $EMBER_CACHE/nvidia/<version>/out/<key>, key = hash of package, series,
# core and ABI; a warm call builds nothing. Prints that directory on
# stdout; --into DIR also copies the modules to DIR/<version>/.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
into= stock=0
while [ $# -gt 0 ]; do
	case $1 in
	--into) into=$2; shift 2 ;;
	--stock) stock=1; shift ;;
	*) break ;;
	esac
done
branch_dir=$(cd "${1:-$here/branches/535.261.03}" && pwd)
. "$here/common.sh"
. "$top/scripts/apt-private.sh"

step() { step_name=$1; log "$*"; }
fail() { die "step '$step_name': $*"; }

fetch() {
	local debs="$EMBER_CACHE/nvidia/debs" tmp got
	step fetch "$package $version ($suite contrib)"
	mkdir -p "$debs"
	deb="$debs/$deb_name"
	if [ -f "$deb" ] && [ "$(sha256sum <"$deb" | cut -d' ' -f1)" = "$sha256" ]; then
		return
	fi
	tmp=$(mktemp -d "$debs/dl.XXXXXX")
	private_apt_download "$EMBER_CACHE/nvidia/apt/$suite" "$suite" contrib "$tmp" \
		"$package=$version" || { rm -rf "$tmp"; fail "apt-get download $package=$version ($suite contrib) failed"; }
	got=$(sha256sum <"$tmp/$deb_name" | cut -d' ' -f1)
	if [ "$got" != "$sha256" ]; then
		rm -rf "$tmp"
		fail "sha256 of $deb_name is $got, branch.conf pins $sha256"
	fi
	mv "$tmp/$deb_name" "$deb"
	rm -rf "$tmp"
}

# The pristine tree of the package, unpacked once per version.
unpack() {
	local pristine="$cache/pristine" tmp
	step unpack "$deb_name"
	[ -f "$pristine/.ember-unpacked" ] && return
	rm -rf "$pristine"
	tmp=$(mktemp -d "$cache/unpack.XXXXXX")
	dpkg-deb --fsys-tarfile "$deb" | tar -xC "$tmp" ./usr/src/nvidia-open-kernel.tar.xz \
		./usr/share/doc/nvidia-open-kernel-source/README.md.gz ||
		fail "$deb_name holds no usr/src/nvidia-open-kernel.tar.xz"
	tar -xJf "$tmp/usr/src/nvidia-open-kernel.tar.xz" -C "$tmp" ||
		fail "cannot unpack nvidia-open-kernel.tar.xz"
	[ -f "$tmp/modules/nvidia-open-kernel/nvidia-uvm/uvm.c" ] ||
		fail "no modules/nvidia-open-kernel/nvidia-uvm in the package"
	mv "$tmp/modules/nvidia-open-kernel" "$pristine"
	cp "$tmp/usr/share/doc/nvidia-open-kernel-source/README.md.gz" "$pristine/.README.md.gz"
	rm -rf "$tmp"
	touch "$pristine/.ember-unpacked"
}

# A local tree's pristine copy (branch.conf tree=), refreshed when its
# sources change. From an open-gpu-kernel-modules checkout, nvidia.ko's
# OS-agnostic core (nv-kernel.o) is built first from src/nvidia/ by that
# directory's own Makefile, in a copy under the cache (the tree is never
# written), and goes in as nvidia/nv-kernel.o_binary, where Debian's
# package and the .run installer ship it prebuilt.
import_tree() {
	local pristine="$cache/pristine" src="$cache/src" ko kernel_o
	ko=$(tree_kernel_open)
	step import "$nvidia_src ($version, sources $sha256)"
	[ "$(cat "$pristine/.ember-unpacked" 2>/dev/null)" = "$sha256" ] && return
	rm -rf "$pristine" "$pristine.tmp"
	if [ -d "$nvidia_src/src/nvidia" ]; then
		step import "nv-kernel.o from $nvidia_src/src/nvidia (make -C src/nvidia)"
		mkdir -p "$src"
		rsync -a --delete --exclude=_out --exclude=.git "$nvidia_src/" "$src/" ||
			fail "cannot copy $nvidia_src into $src"
		if ! nice make -C "$src/src/nvidia" -j"$(nproc)" >"$src/nv-kernel.log" 2>&1; then
			grep -E 'error|Error' "$src/nv-kernel.log" | head -n 30 >&2
			fail "nv-kernel.o did not build; see $src/nv-kernel.log"
		fi
		kernel_o=$(find "$src/src/nvidia/_out" -name nv-kernel.o | head -n1)
		[ -f "$kernel_o" ] || fail "no nv-kernel.o under $src/src/nvidia/_out"
		cp -a "$src/kernel-open" "$pristine.tmp"
		rm -f "$pristine.tmp/nvidia/nv-kernel.o_binary"
		cp "$kernel_o" "$pristine.tmp/nvidia/nv-kernel.o_binary"
		[ -f "$nvidia_src/README.md" ] && gzip -9n <"$nvidia_src/README.md" >"$pristine.tmp/.README.md.gz"
	else
		[ -f "$ko/nvidia/nv-kernel.o_binary" ] ||
			fail "$nvidia_src has no src/nvidia/ to build nv-kernel.o from and no nvidia/nv-kernel.o_binary"
		rsync -a --exclude=conftest --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' \
			"$ko/" "$pristine.tmp/" || fail "cannot copy $ko"
	fi
	echo "$sha256" >"$pristine.tmp/.ember-unpacked"
	mv "$pristine.tmp" "$pristine"
}

# The series' build fixes: its patches that change no file of nvidia-uvm/
# (0001 adapts nvidia.ko's nv-pci.c to this kernel's pci_resize_resource()).
build_fixes() {
	local name
	for name in $(series_patches); do
		grep -q '^+++ b/nvidia-uvm/' "$branch_dir/patches/$name" 2>/dev/null || echo "$name"
	done
}

# Applies the series (or, with --stock, its build fixes) to $1 (a tree);
# the patch's output goes to stderr.
apply_series() {
	local dir=$1 name patches hint=
	if [ $stock = 1 ] || [ "$stock_only" = 1 ]; then patches=$(build_fixes); else patches=$(series_patches); fi
	# a local tree the series was not ported to still builds NVIDIA's module alone
	[ -z "$nvidia_src" ] || [ $stock = 1 ] || [ "$stock_only" = 1 ] ||
		hint="; NVIDIA_STOCK=1 builds this tree's nvidia-uvm alone, without the Ember series (make nvidia-vm-test NVIDIA_SRC=$nvidia_src NVIDIA_STOCK=1)"
	step patch "$(wc -w <<<"$patches") patches from $branch_dir/patches/series"
	for name in $patches; do
		[ -f "$branch_dir/patches/$name" ] || fail "series names $name, which is not in patches/"
		patch -d "$dir" -p1 --fuzz=0 --no-backup-if-mismatch -s <"$branch_dir/patches/$name" >&2 ||
			fail "patch $name does not apply to $package $version (patch -p1 --fuzz=0)$hint"
	done
}

# The policy core goes into nvidia-uvm/ unchanged; the series' Kbuild hook
# compiles every nvidia-uvm/ember_*.c.
copy_core() {
	local dir=$1 f
	step core "$(core_files | tr '\n' ' ')"
	for f in $(core_files); do
		f="$core_dir/$f"
		case $(basename "$f") in
		ember_*) ;;
		*) fail "core file $(basename "$f") is not named ember_*: the Kbuild hook would miss it" ;;
		esac
		[ -e "$dir/nvidia-uvm/$(basename "$f")" ] &&
			fail "core file $(basename "$f") would overwrite a file of the package or the series"
		cp "$f" "$dir/nvidia-uvm/"
	done
}

# The glue, one copy for every branch, the branch's compat header and the
# uapi header the glue's counters take their names from; the series'
# Kbuild line builds uvm_ember.c.
copy_glue() {
	local dir=$1 f
	step glue "$(glue_files | tr '\n' ' ')$(basename "$compat_header") $(basename "$uapi_header")"
	for f in $(glue_files | sed "s|^|$glue_dir/|") "$compat_header" "$uapi_header"; do
		[ -e "$dir/nvidia-uvm/$(basename "$f")" ] &&
			fail "glue file $(basename "$f") would overwrite a file of the package or the series"
		cp "$f" "$dir/nvidia-uvm/"
	done
}

# The stock tree may take the series tree's conftest results only while
# no patch but a build fix changes what conftest tests.
check_conftest_shared() {
	local name
	for name in $(series_patches); do
		build_fixes | grep -qxF "$name" && continue
		if grep -E '^\+\+\+ b/conftest\.sh|^[-+].*NV_CONFTEST' "$branch_dir/patches/$name" >&2; then
			die "step 'patch': $name changes a conftest test: the stock tree could not take the series tree's results"
		fi
	done
}

# A fresh stock tree gets the series tree's conftest/, every file stamped
# at one time after the tree's sources, so that Kbuild finds each
# conftest header up to date.
seed_conftest() {
	local stamp
	[ -f "$series_tree/conftest/headers.h" ] && [ -f "$series_tree/Module.symvers" ] ||
		die "step 'build': no conftest results or Module.symvers in $series_tree"
	cp -r "$series_tree/conftest" "$tree/conftest"
	stamp=$(date '+%Y-%m-%d %H:%M:%S.%N')
	find "$tree/conftest" -type f -exec touch -d "$stamp" {} +
}

# make in the tree; the modules, debug info stripped, go to $out. Since
# the debug info is stripped anyway, none is made (KCFLAGS=-g0: about a
# sixth less CPU; the code, disassembled, is the same as with it).
build_modules() {
	local f
	step build "${keep[*]} against $kdir"
	if ! nice make -C "$tree" -j"$(nproc)" modules "${make_args[@]}" KCFLAGS=-g0 \
		>"$tree/ember-build.log" 2>&1; then
		grep -E 'error|Error' "$tree/ember-build.log" | head -n 30 >&2
		# Failed before compiling anything: the conftest results may be
		# partial, and only a fresh tree runs them again.
		grep -q 'CC \[M\]' "$tree/ember-build.log" || rm -f "$tree/.ember-tree"
		fail "make failed; see $tree/ember-build.log"
	fi
	mkdir -p "$out.tmp"
	for f in "${keep[@]}"; do
		strip --strip-debug -o "$out.tmp/$f.ko" "$tree/$f.ko"
	done
	rm -rf "$out"
	mv "$out.tmp" "$out"
}

main() {
	local abi uname kdir ksrc key tree_key staging f
	abi=$(kernel_abi)
	uname="$abi-cloud-amd64"
	# Debian splits the headers: the kernel's own in -common, the
	# configured build (.config, generated headers) per flavour.
	kdir="/usr/src/linux-headers-$uname"
	ksrc="/usr/src/linux-headers-$abi-common"
	[ -f "$kdir/.config" ] && [ -f "$ksrc/Makefile" ] ||
		die "step 'build': no kernel headers for $uname at $kdir and $ksrc (scripts/setup.sh installs them)"
	core_files >/dev/null || die "step 'core': policy core files missing in $core_dir"
	glue_files >/dev/null || die "step 'glue': no uvm_ember*.[ch] in $glue_dir"
	[ "$stock_only" = 1 ] || [ -f "$compat_header" ] || die "step 'glue': no $compat_header"
	[ -f "$uapi_header" ] || die "step 'glue': no $uapi_header"
	[ -f "$branch_dir/patches/series" ] || die "step 'patch': no $branch_dir/patches/series"

	series_tree="$cache/tree"
	tree=$series_tree outdir="$cache/out" keep=("${nvidia_modules[@]}")
	make_args=(SYSSRC="$ksrc" SYSOUT="$kdir" KERNEL_UNAME="$uname")
	if [ $stock = 1 ]; then
		tree="$cache/tree-stock" outdir="$cache/out-stock" keep=(nvidia-uvm)
		make_args+=(NV_KERNEL_MODULES=nvidia-uvm
			    KBUILD_EXTRA_SYMBOLS="$series_tree/Module.symvers")
		check_conftest_shared
		# before this build takes the branch's lock
		bash "$0" "$branch_dir" >/dev/null ||
			die "step 'build': the series build the stock tree takes its conftest results from failed"
	else
		make_args+=(NV_KERNEL_MODULES="${nvidia_modules[*]}")
	fi

	# tree_key: what forces a fresh tree (conftest results live in it);
	# key: what the modules depend on.
	tree_key=$(printf '%s\n' "$sha256" "${make_args[@]}" | sha256sum | cut -c1-16)
	key=$( {
		echo "$tree_key"
		cat "$0" "$here/common.sh"
		if [ $stock = 1 ] || [ "$stock_only" = 1 ]; then
			echo stock	# the package and its build fixes
			build_fixes | while read -r f; do cat "$branch_dir/patches/$f"; done
		else
			cat "$branch_dir/patches/series"
			series_patches | while read -r f; do
				cat "$branch_dir/patches/$f" 2>/dev/null || echo "missing $f"
			done
			core_files | while read -r f; do echo "$f"; cat "$core_dir/$f"; done
			glue_files | while read -r f; do echo "$f"; cat "$glue_dir/$f"; done
			cat "$compat_header" "$uapi_header"
		fi
	} | sha256sum | cut -c1-16)
	out="$outdir/$key"

	mkdir -p "$cache"
	exec 9>"$cache/lock"
	flock 9

	if [ -n "$nvidia_src" ]; then
		import_tree
	else
		fetch
		unpack
	fi

	# The series and the core go into a hard-linked copy of the pristine
	# tree (patch breaks the links of the files it changes), then into the
	# build tree by content, so the files that did not change keep their
	# mtimes and make rebuilds only what changed.
	staging="$cache/staging"
	rm -rf "$staging"
	cp -al "$cache/pristine" "$staging"
	apply_series "$staging"
	if [ $stock = 0 ] && [ "$stock_only" = 0 ]; then
		copy_core "$staging"
		copy_glue "$staging"
	else
		diff -r "$cache/pristine/nvidia-uvm" "$staging/nvidia-uvm" >/dev/null ||
			fail "a build fix changed nvidia-uvm/: not the stock module"
	fi

	if [ "$(cat "$tree/.ember-tree" 2>/dev/null)" != "$tree_key" ]; then
		log "fresh build tree for $version, $uname ($tree)"
		rm -rf "$tree"
		mkdir -p "$tree"
	fi
	# Core or glue files the new inputs no longer have.
	for f in "$tree"/nvidia-uvm/ember_*.[ch] "$tree"/nvidia-uvm/uvm_ember*.[ch]; do
		[ -e "$f" ] && [ ! -e "$staging/nvidia-uvm/$(basename "$f")" ] && rm -f "$f" "${f%.c}.o"
	done
	rsync -rlc "$staging/" "$tree/"
	rm -rf "$staging"
	[ $stock = 1 ] && [ ! -d "$tree/conftest" ] && seed_conftest
	echo "$tree_key" >"$tree/.ember-tree"

	if [ -f "$out/nvidia-uvm.ko" ]; then
		log "modules cached ($key)"
	else
		build_modules
	fi
	if [ -n "$into" ]; then
		mkdir -p "$into/$version"
		cp "$out"/*.ko "$into/$version/"
	fi
	echo "$out"
}

main "$@"
