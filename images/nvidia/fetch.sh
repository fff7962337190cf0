#!/usr/bin/env bash
# Downloads one package set of packages.conf (pinned versions, sha256
# checked) and unpacks it, once, into the cache outside the clone.
#
#   fetch.sh SET      SET: toolkit, guest-535 or guest-550; prints the
#                     unpacked root
#
# The .debs are kept in $EMBER_CACHE/nvidia/debs (beside the kernel module
# source packages); the unpacked root is $EMBER_CACHE/nvidia-image/SET-<key>,
# key = hash of the set's rows and of this script, so a warm call does
# nothing but hash. The toolkit's root gets an nvcc.profile naming its own
# directories (Debian's points at /usr), so nvcc runs from the cache;
# Debian's gcc/g++ wrappers beside nvcc pick g++-11, which setup.sh installs.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$top/scripts/common.sh"
. "$top/scripts/apt-private.sh"

set_name=${1:-}
conf=$here/packages.conf
components="non-free non-free-firmware"

rows() { awk -v s="$set_name" '!/^#/ && $1 == s' "$conf"; }
[ -n "$set_name" ] && [ -n "$(rows)" ] ||
	die "usage: fetch.sh toolkit|guest-535|guest-550 (a set of packages.conf)"

key=$( { rows; cat "$0" "$here/deb-members.py" "$top/scripts/apt-private.sh"; } | sha256sum | cut -c1-16)
root=$EMBER_CACHE/nvidia-image/$set_name-$key
if [ -f "$root/.ember-unpacked" ]; then
	echo "$root"
	exit 0
fi

debs=$EMBER_CACHE/nvidia/debs
mkdir -p "$debs" "$EMBER_CACHE/nvidia-image"
exec 9>"$EMBER_CACHE/nvidia-image/lock"
flock 9

sha_of() { sha256sum <"$1" | cut -d' ' -f1; }

# fetch: whatever is not in the cache with the pinned checksum, per suite
for suite in $(rows | awk '{ print $2 }' | sort -u); do
	missing=()
	while read -r _ _ pkg ver sum _; do
		deb=$debs/${pkg}_${ver}_amd64.deb
		[ -f "$deb" ] && [ "$(sha_of "$deb")" = "$sum" ] || missing+=("$pkg=$ver")
	done < <(rows | awk -v s="$suite" '$2 == s')
	[ ${#missing[@]} -gt 0 ] || continue
	log "step 'fetch': ${missing[*]} ($suite)"
	tmp=$(mktemp -d "$debs/dl.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	private_apt_download "$EMBER_CACHE/nvidia/apt/$suite-non-free" "$suite" "$components" \
		"$tmp" "${missing[@]}" ||
		die "step 'fetch': apt-get download of ${missing[*]} ($suite $components) failed"
	while read -r _ _ pkg ver sum _; do
		f=$tmp/${pkg}_${ver}_amd64.deb
		[ -f "$f" ] || continue
		got=$(sha_of "$f")
		[ "$got" = "$sum" ] ||
			die "step 'fetch': sha256 of $(basename "$f") is $got, packages.conf pins $sum"
		mv "$f" "$debs/"
	done < <(rows)
	rm -rf "$tmp"
done

# unpack: the members each row names, into a fresh root
log "step 'unpack': $set_name into $root"
rm -rf "$root" "$root.tmp"
mkdir -p "$root.tmp"
while read -r _ _ pkg ver _ paths; do
	deb=$debs/${pkg}_${ver}_amd64.deb
	members=()
	[ "$paths" = "*" ] || IFS=, read -ra members <<<"${paths#regular:}"
	if [ "${paths#regular:}" != "$paths" ]; then
		python3 "$here/deb-members.py" "$deb" "$root.tmp" "${members[@]}"
	else
		dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$root.tmp" --wildcards "${members[@]}"
	fi || die "step 'unpack': $(basename "$deb") (members: $paths)"
done < <(rows)
if [ "$set_name" = toolkit ]; then
	bin=$root.tmp/usr/lib/nvidia-cuda-toolkit/bin
	[ -x "$bin/nvcc" ] || die "step 'unpack': no nvcc in the toolkit packages"
	# the runtime's link-time name, which nvidia-cuda-dev ships as the
	# last member of its archive (the programs link -cudart shared)
	lib=$root.tmp/usr/lib/x86_64-linux-gnu
	[ -e "$lib/libcudart.so.11.0" ] || die "step 'unpack': no libcudart.so.11.0 in the toolkit packages"
	ln -sfn libcudart.so.11.0 "$lib/libcudart.so"
	rm -f "$bin/nvcc.profile"
	cat >"$bin/nvcc.profile" <<'PROFILE'
# written by images/nvidia/fetch.sh: Debian's profile with this root's paths
TOP = $(_HERE_)/../../../..
NVVMIR_LIBRARY_DIR = $(TOP)/usr/lib/nvidia-cuda-toolkit/libdevice
PATH += $(TOP)/usr/lib/nvidia-cuda-toolkit/bin:$(TOP)/usr/bin:
INCLUDES += "-I$(TOP)/usr/include" $(_SPACE_)
LIBRARIES =+ $(_SPACE_) "-L$(TOP)/usr/lib/x86_64-linux-gnu/stubs" "-L$(TOP)/usr/lib/x86_64-linux-gnu"
PROFILE
fi
touch "$root.tmp/.ember-unpacked"
mv "$root.tmp" "$root"
echo "$root"
