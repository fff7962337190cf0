# Shared by build.sh and check.sh; sourced, never run. Expects $top (the
# repository root) and $branch_dir (a directory with branch.conf and
# patches/).

. "$top/scripts/common.sh"

# branch.conf names either a Debian package (suite, package, version,
# sha256 of the .deb) or a local tree (tree=ABSOLUTE_PATH: a checkout of
# NVIDIA's open-gpu-kernel-modules, kernel-open/ beside src/nvidia/, or a
# kernel-open-like directory that carries nvidia/nv-kernel.o_binary, as
# Debian's and the .run installer's do). A tree's version is the one its
# Kbuild compiles in, suffixed -tree; its sha256 is that of its sources.
# stock_only=1: the branch builds NVIDIA's nvidia-uvm alone (its series
# holds build fixes only), for a tree the Ember series was not ported to.
tree= stock_only=0
# shellcheck source=branch.conf
. "$branch_dir/branch.conf"
nvidia_src=$tree	# build.sh's $tree is its build tree

# tree_kernel_open: the tree's kernel-open-like directory
tree_kernel_open() { if [ -d "$nvidia_src/kernel-open" ]; then echo "$nvidia_src/kernel-open"; else echo "$nvidia_src"; fi; }

# tree_sources_sha256: of every source file of the tree's kernel-open and
# src/nvidia (names and contents), build products left out, so a build in
# the tree itself does not change it
tree_sources_sha256() {
	(cd "$nvidia_src" && find . \( -name _out -o -name conftest -o -name .git \) -prune -o -type f \
		! -name '*.o' ! -name '*.ko' ! -name '*.mod' ! -name '*.mod.c' ! -name '.*.cmd' \
		! -name Module.symvers ! -name modules.order ! -name '*.rej' ! -name '*.orig' \
		\( -path './kernel-open/*' -o -path './src/nvidia/*' -o -path './src/common/*' \
		-o -path './nvidia/*' -o -path './nvidia-uvm/*' -o -path './common/*' -o -name Kbuild \
		-o -name Makefile -o -name '*.mk' -o -name '*.sh' -o -name 'nv-kernel.o_binary' \) -print0 |
		LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)
}

if [ -n "$nvidia_src" ]; then
	case $nvidia_src in /*) ;; *) die "branch.conf: tree=$nvidia_src is not an absolute path" ;; esac
	[ -f "$(tree_kernel_open)/Kbuild" ] && [ -d "$(tree_kernel_open)/nvidia-uvm" ] ||
		die "branch.conf: $nvidia_src is neither an open-gpu-kernel-modules checkout nor a kernel-open tree (no Kbuild and nvidia-uvm/)"
	version=$(sed -n 's/.*-DNV_VERSION_STRING=\\"\([0-9.]*\)\\".*/\1/p' "$(tree_kernel_open)/Kbuild" | head -n1)
	[ -n "$version" ] || die "branch.conf: no NV_VERSION_STRING in $(tree_kernel_open)/Kbuild"
	version="$version-tree"
	package="open kernel modules at $nvidia_src"
	sha256=$(tree_sources_sha256)
fi
: "${version:?}" "${package:?}" "${sha256:?}"
[ -n "$nvidia_src" ] || : "${suite:?}"
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
