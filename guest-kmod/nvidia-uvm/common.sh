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

# The hardware-neutral policy core: the sources of policy/ that
# ember.ko compiles (guest-kmod/ember/Kbuild's policy/*.o; policy/ also holds code for
# user space) and every header there, copied unchanged into nvidia-uvm/.
core_dir="$top/policy"

# The core's file names, sorted.
core_files() {
	{
		(cd "$core_dir" && ls -- *.h)
		grep -o 'policy/[A-Za-z0-9_]*\.o' "$top/guest-kmod/ember/Kbuild" | sed 's|^policy/||; s|\.o$|.c|'
	} | LC_ALL=C sort -u
}

# The glue that hosts the core in nvidia-uvm: one copy for every branch,
# copied unchanged into nvidia-uvm/ with the branch's compat header (the
# spellings of the nvidia-uvm interfaces that differ between branches).
glue_dir="$top/guest-kmod/nvidia-uvm/glue"
glue_files() { (cd "$glue_dir" && ls -- uvm_ember*.[ch]) | LC_ALL=C sort; }
compat_header="$branch_dir/uvm_ember_compat.h"
# ember.ko's ABI header, copied in beside the glue: the glue's counters
# (ember_stats) take their names from it.
uapi_header="$top/include/uapi/ember.h"

# The series' patch names, in order.
series_patches() { grep -v '^[[:space:]]*\(#\|$\)' "$branch_dir/patches/series"; }

# Table 1 as the core defines it, "name default" lines: the list of
# ember_adaptive_params.h expanded by the C preprocessor.
table1() {
	printf '#include "ember_adaptive_params.h"\n#define T1(name, def, min, max, desc) name def @\nEMBER_TABLE1_PARAMS(T1)\n' |
		"${CC:-cc}" -E -P -I "$core_dir" -x c - | tr '@' '\n' | sed 's/^[[:space:]]*//; s/[[:space:]]*$//; /^$/d'
}
