#!/usr/bin/env bash
# Checks one branch's build of NVIDIA's modules with the Ember series
# (make nvidia-test; part of make test):
#   - the series applies to the pristine package with no fuzz and no offset;
#   - the policy core in the build tree is byte-identical to the repository's;
#   - so is the glue (guest-kmod/nvidia-uvm/glue/, with the branch's compat header and
#     include/uapi/ember.h), and no patch of the series adds a glue file
#     of its own;
#   - modinfo of nvidia-uvm.ko lists every Table 1 parameter with the
#     default of the core's list (ember_adaptive_params.h);
#   - every global symbol the core's objects and the glue's (uvm_ember.o)
#     define is in nvidia-uvm.ko;
#   - NVIDIA's objects call the glue where the series hooks it in (nm -u);
#   - both modules carry the guest kernel's vermagic;
#   - bad input stops build.sh at the step it names (a series that does not
#     apply, to the package or to a local tree, whose refusal names
#     NVIDIA_STOCK=1; a wrong package checksum, a kernel ABI without headers).
#
#   check.sh [BRANCH_DIR]   (default: branches/535.261.03)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
branch_dir=$(cd "${1:-$here/branches/535.261.03}" && pwd)
. "$here/common.sh"

failures=0
pass() { log "ok: $*"; }
flunk() { log "FAIL: $*"; failures=$((failures + 1)); }

out=$(bash "$here/build.sh" "$branch_dir")
tree="$cache/tree"
uvm_ko="$out/nvidia-uvm.ko"

check_series_exact() {
	local scratch name report
	scratch=$(mktemp -d)
	cp -al "$cache/pristine/." "$scratch/"
	for name in $(series_patches); do
		# patch's default fuzz, so that fuzz shows up in the report
		if ! report=$(patch -d "$scratch" -p1 --no-backup-if-mismatch <"$branch_dir/patches/$name" 2>&1); then
			flunk "$name does not apply"
		elif grep -E 'with fuzz|offset' <<<"$report" >&2; then
			flunk "$name applies only with fuzz or offset"
		fi
	done
	rm -rf "$scratch"
	[ "$failures" = 0 ] && pass "series ($(series_patches | wc -l) patches) applies exactly"
}

check_core_identical() {
	local f n=0 bad=0
	for f in $(core_files); do
		n=$((n + 1))
		cmp "$core_dir/$f" "$tree/nvidia-uvm/$f" || bad=1
	done
	for f in "$tree"/nvidia-uvm/ember_*.[ch]; do
		[ -e "$core_dir/$(basename "$f")" ] || { log "$f is not in $core_dir"; bad=1; }
	done
	if [ "$bad" = 0 ]; then pass "$n core files identical to $core_dir"; else flunk "core files differ"; fi
}

# The glue in the build tree is guest-kmod/nvidia-uvm/glue/ byte for byte, with this
# branch's compat header and the uapi header, and no patch of the series carries a glue file
# of its own.
check_glue_identical() {
	local f n=0 bad=0
	for f in $(glue_files); do
		n=$((n + 1))
		cmp "$glue_dir/$f" "$tree/nvidia-uvm/$f" || bad=1
	done
	cmp "$compat_header" "$tree/nvidia-uvm/uvm_ember_compat.h" || bad=1
	cmp "$uapi_header" "$tree/nvidia-uvm/$(basename "$uapi_header")" || bad=1
	for f in "$tree"/nvidia-uvm/uvm_ember*.[ch]; do
		case $(basename "$f") in
		uvm_ember_compat.h) ;;
		*) [ -e "$glue_dir/$(basename "$f")" ] || { log "$f is not in $glue_dir"; bad=1; } ;;
		esac
	done
	if grep -l '^+++ b/nvidia-uvm/uvm_ember' "$branch_dir"/patches/*.patch >&2; then
		log "the patches above add a glue file: it belongs in $glue_dir"
		bad=1
	fi
	if [ "$bad" = 0 ]; then
		pass "$n glue files identical to $glue_dir, compat header $(basename "$branch_dir")'s, $(basename "$uapi_header") the uapi's, no patch adds glue"
	else
		flunk "glue differs from $glue_dir"
	fi
}

check_parameters() {
	local name def n=0 bad=0 parms
	parms=$(modinfo -p "$uvm_ko")
	while read -r name def; do
		n=$((n + 1))
		grep -E "^$name:.*default ${def}[,)]" <<<"$parms" >/dev/null ||
			{ log "modinfo: no $name with default $def"; bad=1; }
	done < <(table1)
	if [ "$n" -lt 17 ]; then
		flunk "only $n Table 1 parameters found in ember_adaptive_params.h"
	elif [ "$bad" = 0 ]; then
		pass "modinfo lists all $n Table 1 parameters with their defaults"
	else
		flunk "Table 1 parameters missing or with other defaults"
	fi
}

check_core_linked() {
	local f sym n=0 bad=0 syms
	syms=$(nm "$uvm_ko" | awk '$2 ~ /^[TDBR]$/ { print $3 }' | sort -u)
	# the core's objects and the glue's
	for f in $(core_files | grep '\.c$') uvm_ember.c; do
		for sym in $(nm --defined-only "$tree/nvidia-uvm/${f%.c}.o" | awk '$2 ~ /^[TDBR]$/ { print $3 }'); do
			n=$((n + 1))
			grep -qx "$sym" <<<"$syms" || { log "$sym of $f not in nvidia-uvm.ko"; bad=1; }
		done
	done
	if [ "$n" = 0 ]; then
		flunk "no global symbols in the core's objects"
	elif [ "$bad" = 0 ]; then
		pass "$n global symbols of the core and uvm_ember.o linked into nvidia-uvm.ko"
	else
		flunk "core objects not linked"
	fi
}

# Where the series must call the glue: object, then the glue functions it
# calls (its undefined symbols). A port that drops a hook fails here.
hooks() {
	cat <<-'EOF'
	uvm_global.o uvm_ember_init
	uvm_va_space.o uvm_ember_va_space_create uvm_ember_va_space_destroy uvm_ember_va_space_gpu_registered
	uvm.o uvm_ember_va_range_created
	uvm_policy.o uvm_ember_mark_hinted
	uvm_migrate.o uvm_ember_mark_hinted
	uvm_gpu_replayable_faults.o uvm_ember_service_fault_block uvm_ember_gpu_serviced
	uvm_gpu_access_counters.o uvm_ember_enabled uvm_ember_service_notification uvm_ember_access_counter_threshold uvm_ember_gpu_serviced
	uvm_va_block.o uvm_ember_block_state_alloc uvm_ember_block_state_free uvm_ember_block_is_managed uvm_ember_residency_snapshot uvm_ember_residency_changed uvm_ember_va_space_is_ember
	uvm_pmm_gpu.o uvm_ember_pmm_init uvm_ember_pmm_deinit uvm_ember_pmm_pick_victim uvm_ember_pmm_root_chunk_allocated uvm_ember_pmm_root_chunk_freed uvm_ember_pmm_root_chunk_evicted
	uvm_ember.o ember_policy_ember ember_policy_ember_check uvm_pmm_gpu_evict_root_chunk_index uvm_va_block_service_locked
	EOF
}

check_hooks() {
	local obj fn n=0 bad=0 undef
	while read -r obj fns; do
		undef=$(nm -u "$tree/nvidia-uvm/$obj" | awk '{ print $2 }')
		for fn in $fns; do
			n=$((n + 1))
			grep -qx "$fn" <<<"$undef" || { log "$obj does not call $fn"; bad=1; }
		done
	done < <(hooks)
	if [ "$bad" = 0 ]; then pass "$n hook calls in place"; else flunk "hooks missing"; fi
}

check_vermagic() {
	local m vm
	for m in "${nvidia_modules[@]}"; do
		vm=$(modinfo -F vermagic "$out/$m.ko")
		case $vm in
		"$(kernel_abi)-cloud-amd64 "*) pass "$m.ko vermagic $vm" ;;
		*) flunk "$m.ko vermagic '$vm'" ;;
		esac
	done
}

# A refused parameter set must say why in the kernel log: as a plain
# KERN_ERR line ("nvidia-uvm: Invalid Ember-adaptive parameters: ..."),
# not through UVM_ERR_PRINT, which release builds print only with
# uvm_debug_prints=1.
check_refusal_printed() {
	local text
	# KERN_ERR is "\001" "3": strings shows the 3 before the prefix
	text=$(strings "$uvm_ko")
	if grep -qF '3nvidia-uvm: Invalid Ember-adaptive parameters: %s' <<<"$text"; then
		pass "a refused Table 1 set is printed at KERN_ERR unconditionally"
	else
		flunk "nvidia-uvm.ko has no unconditional KERN_ERR line for a refused Table 1 set"
	fi
}

# build.sh on bad input must stop at the named step.
expect_refusal() {
	local what=$1 want=$2 msg
	shift 2
	if msg=$("$@" 2>&1 >/dev/null); then
		flunk "$what: build.sh succeeded"
	elif grep -F "$want" <<<"$msg" >/dev/null; then
		pass "$what: $(grep -F "$want" <<<"$msg" | head -n1 | sed 's/^\[[^]]*\] //')"
	else
		flunk "$what: expected '$want', got: $msg"
	fi
}

check_bad_input() {
	local bad
	bad=$(mktemp -d)
	mkdir -p "$bad/noapply/patches" "$bad/checksum/patches" "$bad/cache"
	cp "$branch_dir/branch.conf" "$compat_header" "$bad/noapply/"
	printf -- '--- a/nvidia-uvm/uvm.c\n+++ b/nvidia-uvm/uvm.c\n@@ -1,1 +1,1 @@\n-no such line\n+x\n' \
		>"$bad/noapply/patches/0001-bogus.patch"
	echo 0001-bogus.patch >"$bad/noapply/patches/series"
	expect_refusal "series that does not apply" "step 'patch': patch 0001-bogus.patch does not apply" \
		bash "$here/build.sh" "$bad/noapply"

	sed 's/^sha256=.*/sha256=0000000000000000000000000000000000000000000000000000000000000000/' \
		"$branch_dir/branch.conf" >"$bad/checksum/branch.conf"
	cp "$branch_dir/patches/series" "$bad/checksum/patches/"
	cp "$compat_header" "$bad/checksum/"
	expect_refusal "wrong package checksum" "step 'fetch': sha256 of $deb_name is $sha256" \
		bash "$here/build.sh" "$bad/checksum"

	mkdir -p "$bad/nocompat"
	cp -r "$branch_dir/branch.conf" "$branch_dir/patches" "$bad/nocompat/"
	expect_refusal "branch without a compat header" "step 'glue': no $bad/nocompat/uvm_ember_compat.h" \
		bash "$here/build.sh" "$bad/nocompat"

	# a local tree the series does not apply to: the refusal names NVIDIA_STOCK=1
	mkdir -p "$bad/tree/kernel-open/nvidia-uvm" "$bad/tree/kernel-open/nvidia" "$bad/treecache"
	: >"$bad/tree/kernel-open/nvidia/nv-kernel.o_binary"
	printf 'ccflags-y += -DNV_VERSION_STRING=\\"999.1\\"\n' >"$bad/tree/kernel-open/Kbuild"
	cp "$EMBER_CACHE/kernel-abi" "$bad/treecache/"
	bash "$here/tree-branch.sh" "$bad/treebranch" "$bad/tree" "$branch_dir" 2>/dev/null
	expect_refusal "a tree the series does not apply to" \
		"does not apply to open kernel modules at $bad/tree 999.1-tree (patch -p1 --fuzz=0); NVIDIA_STOCK=1 builds this tree's nvidia-uvm alone" \
		env EMBER_CACHE="$bad/treecache" bash "$here/build.sh" "$bad/treebranch"

	echo "0.0.0-0 0" >"$bad/cache/kernel-abi"
	expect_refusal "kernel ABI without headers" "step 'build': no kernel headers for 0.0.0-0-cloud-amd64" \
		env EMBER_CACHE="$bad/cache" bash "$here/build.sh" "$branch_dir"
	rm -rf "$bad"
}

check_series_exact
check_core_identical
check_glue_identical
check_parameters
check_core_linked
check_hooks
check_vermagic
check_refusal_printed
check_bad_input

if [ "$failures" != 0 ]; then
	die "$failures check(s) failed for $package $version"
fi
log "all checks passed for $package $version"
