#!/usr/bin/env bash
# Installs everything the testbed builds and runs with, from Debian 12 only.
#
# Idempotent: apt sources are written once (derived from this machine's own
# apt configuration, so no mirror is named here), and apt is not touched at
# all when every package is already installed.
#
# The guest kernel is pinned: image and headers are installed at one ABI and
# one package version, resolved once from linux-image-cloud-amd64 and recorded
# in $EMBER_CACHE/kernel-abi, so ember.ko is always built against the headers
# of the kernel that boots it.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

sources=/etc/apt/sources.list.d/ember-testbed.sources
want_components="main contrib non-free"

packages=(
	# QEMU build (x86_64-softmmu, minimal features) and its Debian source
	build-essential dpkg-dev pkg-config ninja-build meson python3 flex bison
	libglib2.0-dev libpixman-1-dev zlib1g-dev libfdt-dev rsync
	# firmware our QEMU boots with (SeaBIOS, linuxboot option ROM), from
	# Debian's packages so that no blob is built or committed here
	qemu-system-data seabios
	# guest image
	busybox-static cpio kmod
	# host tools and tests
	libcunit1-dev libjansson-dev valgrind gnuplot-nox
	# capture/libtrace: zstd-compressed trace sections
	libzstd-dev
	# make scale's report (scripts/scale.sh), make profile-run, make loaded-test
	jq linux-perf
	# libFuzzer (tests/fuzz); patch applies tests/fuzz/qemu/*.patch
	clang libclang-rt-14-dev patch
	# ember-agent's libvirt back end and its test's private daemon
	libvirt-dev libvirt-daemon-system libvirt-clients
	# host compiler of Debian's CUDA toolkit 11.8 (images/nvidia: nvcc
	# 11.8 accepts GCC up to 11; the toolkit itself is cached, not installed)
	g++-11
)

as_root() {
	if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

# Emit deb-src stanzas (and deb stanzas for missing components) mirroring
# every Debian stanza already configured on this machine.
derive_sources() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ "$f" = "$sources" ] && continue
		awk -v want="$want_components" '
		function flush() {
			if (uris == "" || suites == "") return
			n = split(want, w, " ")
			if (types ~ /deb-src/) have_src = comps; else have_src = ""
			missing_bin = ""; missing_src = ""
			for (i = 1; i <= n; i++) {
				if ((" " comps " ") !~ (" " w[i] " ")) missing_bin = missing_bin " " w[i]
				if ((" " have_src " ") !~ (" " w[i] " ")) missing_src = missing_src " " w[i]
			}
			if (missing_bin != "" && types ~ /(^| )deb( |$)/)
				printf "Types: deb\nURIs: %s\nSuites: %s\nComponents:%s\n%s\n\n", uris, suites, missing_bin, signed
			if (missing_src != "")
				printf "Types: deb-src\nURIs: %s\nSuites: %s\nComponents:%s\n%s\n\n", uris, suites, missing_src, signed
			uris = suites = comps = types = signed = ""
		}
		/^[ \t]*$/ { flush(); next }
		/^#/ { next }
		/^Types:/ { sub(/^Types:[ \t]*/, ""); types = $0 }
		/^URIs:/ { sub(/^URIs:[ \t]*/, ""); uris = $0 }
		/^Suites:/ { sub(/^Suites:[ \t]*/, ""); suites = $0 }
		/^Components:/ { sub(/^Components:[ \t]*/, ""); comps = $0 }
		/^Signed-By:/ { signed = $0 }
		END { flush() }
		' "$f"
	done
}

configure_sources() {
	local tmp
	tmp=$(mktemp)
	derive_sources >"$tmp"
	if [ ! -s "$tmp" ]; then
		rm -f "$tmp"
		die "no Debian stanza found in /etc/apt/sources.list.d/*.sources to derive deb-src from"
	fi
	if ! cmp -s "$tmp" "$sources" 2>/dev/null; then
		as_root install -m 0644 "$tmp" "$sources"
		rm -f "$tmp"
		return 0	# changed: apt lists must be refreshed
	fi
	rm -f "$tmp"
	return 1
}

have_source_index() {
	# no grep -q: an early exit would fail the pipe (pipefail) on SIGPIPE
	apt-cache showsrc qemu 2>/dev/null | grep '^Package: qemu' >/dev/null
}

missing_packages() {
	local p
	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep '^install ok installed' >/dev/null || echo "$p"
	done
}

# Records "<abi> <version>" of the guest kernel in $EMBER_CACHE/kernel-abi.
resolve_kernel() {
	local abi_file="$EMBER_CACHE/kernel-abi" abi ver
	[ -s "$abi_file" ] && return
	abi=$(apt-cache depends linux-image-cloud-amd64 |
		sed -n 's/.*Depends: linux-image-\(.*\)-cloud-amd64$/\1/p' | head -n1)
	[ -n "$abi" ] || die "cannot resolve the cloud kernel ABI from linux-image-cloud-amd64"
	ver=$(apt-cache policy "linux-image-$abi-cloud-amd64" |
		sed -n 's/^  Candidate: //p')
	apt-cache policy "linux-headers-$abi-cloud-amd64" |
		grep "Candidate: $ver\$" >/dev/null ||
		die "linux-headers-$abi-cloud-amd64 $ver is not installable beside the image"
	mkdir -p "$EMBER_CACHE"
	echo "$abi $ver" >"$abi_file"
}

main() {
	local changed=0 abi ver missing
	configure_sources && changed=1
	if [ "$changed" = 1 ] || ! have_source_index; then
		log "apt-get update (sources changed or no source index)"
		as_root apt-get update -qq
	fi

	resolve_kernel
	read -r abi ver <"$EMBER_CACHE/kernel-abi"
	missing=$(missing_packages "${packages[@]}" \
		"linux-image-$abi-cloud-amd64" "linux-headers-$abi-cloud-amd64")
	if [ -n "$missing" ]; then
		log "installing:" $missing
		# shellcheck disable=SC2086
		as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends $(echo "$missing" |
			sed -e "s/^linux-image-$abi-cloud-amd64\$/&=$ver/" \
			    -e "s/^linux-headers-$abi-cloud-amd64\$/&=$ver/") >/dev/null
	fi
	log "dependencies ready (guest kernel $abi-cloud-amd64 $ver)"
}

main "$@"
