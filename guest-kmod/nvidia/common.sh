# Shared by build.sh and check.sh; sourced, never run. Expects $top (the
# repository root) and $branch_dir (a directory with branch.conf and
# patches/).

. "$top/scripts/common.sh"

# shellcheck source=branch.conf
. "$branch_dir/branch.conf"
: "${suite:?}" "${package:?}" "${version:?}" "${sha256:?}"
deb_name="${package}_${version}_amd64.deb"
cache="$EMBER_CACHE/nvidia/$version"	# pristine/, tree/, out/<key>/
nvidia_modules=(nvidia nvidia-uvm)

# The hardware-neutral policy core, compiled unchanged into ember.ko too.
# Until the core has its own directory, its files sit in guest-kmod/.
core_dir="$top/guest-kmod/policy"
core_names="*.[ch]"
if [ ! -d "$core_dir" ]; then
	core_dir="$top/guest-kmod"
	core_names="ember_policy.h ember_perf_prefetch.c ember_policy_uvm.c ember_adaptive.h
		ember_adaptive.c ember_policy_ember.h ember_policy_ember.c"
fi

# The core's file names, sorted.
# shellcheck disable=SC2086 # core_names are globs and names
core_files() { (cd "$core_dir" && ls -- $core_names | LC_ALL=C sort); }

# The series' patch names, in order.
series_patches() { grep -v '^[[:space:]]*\(#\|$\)' "$branch_dir/patches/series"; }
