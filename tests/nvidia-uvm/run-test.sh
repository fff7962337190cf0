#!/usr/bin/env bash
# NVIDIA's nvidia-uvm in the VM against emgpu (make nvidia-vm-test): for each
# driver branch,
#   - the stand-in exports what NVIDIA's nvidia.ko exports for nvidia-uvm
#     (every nvUvmInterface* function and whatever else nvidia-uvm.ko
#     imports from it), each with the CRC nvidia.ko's build gave it, so
#     that nvidia-uvm.ko's modversions match;
#   - the nvidia-uvm.ko in the image is the very file make nvidia built,
#     and the real-card image of that branch (make image-nvidia) carries it
#     byte for byte;
# then one boot of the image (images/nvidia-uvm/) under TCG with emgpu in
# the personality NVIDIA_PERSONALITY names (ga10x, the default: the
# stand-in reports an Ampere GA102 and nvidia-uvm takes its Ampere HAL;
# gh100: a Hopper GH100, its Hopper HAL), in which per branch emgpu-rm.ko binds the emulated
# GPU and nvidia-uvm.ko (uvm_enable_builtin_tests=1, Ember's master switch
# on, so the glue's load-time checks and VA-space hooks run) loads,
# NVIDIA's GPU-free built-in tests and a managed range's checks pass, then
# the GPU is registered with nvidia-uvm and NVIDIA's one-GPU tests
# (channels, copy engine, host methods, page tree, PMM, PMA, ...) pass on
# it, then those that need a GPU VA space, a registered channel, managed
# memory on the GPU and a tools session, one by one (under Ember-adaptive, whose glue makes the CPU the
# range's preferred location, then again under NVIDIA's defaults), and
# then a program doing what libcuda does (uvm-launch-test: an RM VA space
# and compute channel through /dev/emgpu-rm registered with nvidia-uvm, the
# STREAM kernel on a managed range, its faults serviced by nvidia-uvm, a
# cancelled launch, another file's handles refused, the per-open limits,
# a launch whose channel nvidia-uvm stops under it, two unprivileged
# users, one's launch timed out, whose channels never share a hardware
# channel while the first one's is retained and whose data the other's
# launch never touches, the per-user and total limits) passes, and both
# modules unload; the
# console must show no oops, BUG or warning (ember-agent vm's judgement);
# then per branch stream on a 64 MiB card under Debian's module must
# verify, and a matrix run of stream under Debian's module and one of
# kmeans under Ember-adaptive (below), each twice on fresh VMs, must give
# the same modelled time, device stats and trace hash.
# KTAP, then "N passed, M failed, K skipped".
#
#   [NVIDIA_PERSONALITY=ga10x|gh100] run-test.sh AGENT QEMU KERNEL INITRD WORKDIR BRANCH_DIR...
set -uo pipefail

agent=$1 qemu=$2 kernel=$3 initrd=$4 work=$5
shift 5
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/scripts/common.sh"
. "$top/scripts/ktap.sh"
# the emulated GPU's personality, the name the stand-in gives it and what
# nvidia-uvm's info file must then say of the GPU (the architecture picks
# its HAL; the classes, nvidia-uvm's host and copy HALs)
personality=${NVIDIA_PERSONALITY:-ga10x}
case $personality in
ga10x)
	gpu_name='emgpu GA10x'
	uvm_gpu='architecture 0x170 implementation 0x2 host_class 0xC56F ce_class 0xC7B5 big_page_size 65536'
	;;
gh100)
	gpu_name='emgpu GH100'
	uvm_gpu='architecture 0x180 implementation 0x0 host_class 0xC86F ce_class 0xC8B5 big_page_size 65536'
	;;
*) die "NVIDIA_PERSONALITY=$personality: ga10x or gh100" ;;
esac
rm -rf "$work"
mkdir -p "$work"
# for make nvidia-vm-record
printf '%s\n' "$@" >"$work/branches"

# export_crcs SYMVERS MODULE: "symbol crc" of MODULE's exports, sorted
export_crcs() { awk -v m="$2" '$3 ~ "(^|/)" m "$" { print $2, $1 }' "$1" | LC_ALL=C sort; }

# uvm_side SYMVERS NVIDIA_UVM_KO: nvidia.ko's exports that are the UVM
# interface or that nvidia-uvm.ko imports (its others serve nvidia-modeset
# and nvidia-drm)
uvm_side() {
	local imports
	imports=$(/sbin/modprobe --dump-modversions "$2" | awk '{ print $2 }')
	export_crcs "$1" nvidia | while read -r sym crc; do
		case $sym in
		nvUvmInterface*) echo "$sym $crc" ;;
		*) grep -qx "$sym" <<<"$imports" && echo "$sym $crc" ;;
		esac
	done
}

same_exports() {
	local nv=$1 rm=$2
	[ -s "$nv" ] || { echo "no nvidia.ko exports in the build tree's Module.symvers"; return 1; }
	diff "$nv" "$rm" && echo "$(wc -l <"$nv") exports, CRCs equal"
}

# real_card_carries VERSION BUILT: a real-card image (images/nvidia/, in
# the images folder beside INITRD) whose nvidia-uvm.ko is that version's
# carries these very bytes
real_card_carries() {
	local version=$1 built=$2 cpio x
	for cpio in "$(dirname "$initrd")"/initramfs-nvidia*.cpio; do
		[ "$cpio" = "$initrd" ] && continue
		case $cpio in *.again.cpio) continue ;; esac
		x=$work/real-card/$(basename "$cpio" .cpio)
		rm -rf "$x"
		mkdir -p "$x"
		(cd "$x" && cpio -idm --quiet lib/modules/nvidia-uvm.ko) <"$cpio"
		[ -f "$x/lib/modules/nvidia-uvm.ko" ] || continue
		[ "$(/sbin/modinfo -F version "$x/lib/modules/nvidia-uvm.ko")" = "$version" ] || continue
		cmp "$built" "$x/lib/modules/nvidia-uvm.ko" && echo "$(basename "$cpio")" && return
		return 1
	done
	echo "no real-card image with nvidia-uvm.ko $version beside $initrd (make image-nvidia)"
	return 1
}

# stock_imports_match KO STANDIN_CRCS: every nvUvmInterface* KO imports is
# one the stand-in exports, with the same CRC
stock_imports_match() {
	local imports
	imports=$(/sbin/modprobe --dump-modversions "$1" |
		awk '$2 ~ /^nvUvmInterface/ { print $2, $1 }' | LC_ALL=C sort)
	[ -n "$imports" ] || { echo "no nvUvmInterface imports in $1"; return 1; }
	join <(echo "$imports") "$2" | awk '$2 != $3 { print "CRC differs:", $0; bad = 1 } END { exit bad }' || return 1
	[ "$(join <(echo "$imports") "$2" | wc -l)" = "$(echo "$imports" | wc -l)" ] ||
		{ echo "imports the stand-in does not export:"; join -v1 <(echo "$imports") "$2"; return 1; }
	echo "$(echo "$imports" | wc -l) imports, CRCs equal"
}

# image_module_is_built VERSION MODULE BUILT
image_module_is_built() {
	cmp "$3" "$work/image/lib/modules/$1/$2.ko"
}

echo "KTAP version 1"
mkdir -p "$work/image"
(cd "$work/image" && cpio -idm --quiet) <"$initrd"
versions=()
declare -A stock_only_of
for branch_dir in "$@"; do
	eval "$(bash "$top/guest-kmod/nvidia-uvm/branch-info.sh" "$branch_dir")"
	v=$version
	versions+=("$v")
	stock_only_of[$v]=$stock_only
	nvidia_out=$(bash "$top/guest-kmod/nvidia-uvm/build.sh" "$branch_dir" 2>/dev/null)
	standin_out=$(bash "$top/guest-kmod/emgpu-rm/build.sh" "$branch_dir" 2>/dev/null)
	stock_out=$(bash "$top/guest-kmod/nvidia-uvm/build.sh" --stock "$branch_dir" 2>/dev/null)
	symvers="$nvidia_cache/tree/Module.symvers"
	uvm_side "$symvers" "$nvidia_out/nvidia-uvm.ko" >"$work/nvidia-$v.crcs"
	export_crcs "$standin_out/emgpu-rm.symvers" emgpu-rm >"$work/emgpu-rm-$v.crcs"
	check "$v: emgpu-rm.ko exports nvidia.ko's UVM interface, each with nvidia.ko's CRC" \
		same_exports "$work/nvidia-$v.crcs" "$work/emgpu-rm-$v.crcs"
	if [ "$stock_only" = 1 ]; then
		skip "$v: the image's nvidia-uvm.ko is make nvidia's" "a stock-only branch: no module of the series"
		skip "$v: the real-card image carries that same nvidia-uvm.ko" "a stock-only branch: no module of the series"
	else
		check "$v: the image's nvidia-uvm.ko is make nvidia's" \
			image_module_is_built "$v" nvidia-uvm "$nvidia_out/nvidia-uvm.ko"
		if [ "$real_card" = 1 ]; then
			check "$v: the real-card image carries that same nvidia-uvm.ko" \
				real_card_carries "$v" "$nvidia_out/nvidia-uvm.ko"
		else
			skip "$v: the real-card image carries that same nvidia-uvm.ko" \
				"images/nvidia makes no real-card image of this branch"
		fi
	fi
	check "$v: the image's nvidia-uvm-stock.ko is make nvidia's --stock" \
		image_module_is_built "$v" nvidia-uvm-stock "$stock_out/nvidia-uvm.ko"
	check "$v: NVIDIA's nvidia-uvm.ko as packaged (--stock) imports the stand-in's exports with their CRCs" \
		stock_imports_match "$stock_out/nvidia-uvm.ko" "$work/emgpu-rm-$v.crcs"
	check "$v: every UVM_TEST_* ioctl is run or listed as not run with its reason" \
		bash "$top/tests/nvidia-uvm/coverage.sh" \
		"$nvidia_cache/pristine/nvidia-uvm/uvm_test_ioctl.h" \
		"$top/tests/nvidia-uvm/uvm-builtin-tests.c" "$top/docs/nvidia-uvm.md"
done

# emgpu in that personality: the stand-in binds it and nvidia-uvm
# registers it (the runner's --gpu section)
"$agent" vm --qemu "$qemu" --kernel "$kernel" --initrd "$initrd" --memory 1024 \
	--timeout 900 --scenarios none --json --workdir "$work/vm" \
	--profile h200-512m --device-opts ",personality=$personality" \
	--append 'nvuvm_modparams=cpu_preferred_blocks_enable=1 nvuvm_refused=cpu_preferred_blocks_enable=1,perf_access_counter_threshold=0' \
	>"$work/lines" 2>"$work/agent.err"
rc=$?
check "the VM powers off cleanly, console clean (ember-agent vm exit 0)" \
	sh -c "[ $rc = 0 ] || cat '$work/agent.err'"

line() { grep -F -- "$1" "$work/lines" | grep -F -- "$2"; }
# test_ok BRANCH_KEY NAME [KEY]: the runner printed "ok N NAME" (and the
# failure comment that follows a "not ok" otherwise); KEY is the JSON key
# of its KTAP lines (ktap: uvm-builtin-tests, launch_ktap: uvm-launch-test)
test_ok() {
	local key=${3:-ktap}
	# grep -c, not -q: an early exit would SIGPIPE the pipeline's writer,
	# and pipefail would fail a test that passed
	[ "$(grep -F -- "$1" "$work/lines" | grep -F "\"$key\":\"ok " |
		sed "s/.*\"$key\":\"ok [0-9]* //" | grep -cxF "$2\"}")" -gt 0 ] && return
	grep -F -- "$1" "$work/lines" | grep -F "\"$key\":" | grep -A1 -F " $2\"}"
	return 1
}

# planned_ran BRANCH_KEY [KEY]: as many ok / not ok lines as the plan promised
planned_ran() {
	local key=${2:-ktap} plan lines
	plan=$(grep -F -- "$1" "$work/lines" | sed -n "s/.*\"$key\":\"1\.\.\([0-9]*\)\".*/\1/p")
	lines=$(grep -F -- "$1" "$work/lines" | grep -cE "\"$key\":\"(not )?ok [0-9]+ ")
	[ -n "$plan" ] && [ "$plan" = "$lines" ] || { echo "plan ${plan:-missing}, $lines results"; return 1; }
}

# ktap_checks LABEL BRANCH_SETTING_KEY KEY: one check a KTAP line of KEY
# (named by the line), a skip for each "ok N NAME # SKIP WHY" (not in the
# names: the directive stops the name; a test that did not run counts as
# skipped, never passed), and that every planned test ran
ktap_checks() {
	local label=$1 bs=$2 key=$3 tests skips t why
	tests=$(grep -F "$bs" "$work/lines" |
		sed -n "s/.*\"$key\":\"\(not \)\{0,1\}ok [0-9]* \([^\"#]*\)\".*/\2/p")
	[ -n "$tests" ] || check "$label: the tests ran" false
	while IFS= read -r t; do
		[ -n "$t" ] && check "$label: $t" test_ok "$bs" "$t" "$key"
	done <<<"$tests"
	skips=$(grep -F "$bs" "$work/lines" |
		sed -n "s/.*\"$key\":\"ok [0-9]* \([^\"#]*[^\"# ]\) *# SKIP *\([^\"]*\)\".*/\1\t\2/p")
	while IFS=$'\t' read -r t why; do
		[ -n "$t" ] && skip "$label: $t" "${why:-no reason given}"
	done <<<"$skips"
	check "$label: every planned test ran" planned_ran "$bs" "$key"
}
for v in "${versions[@]}"; do
	b="\"branch\":\"$v\""
	check "$v: emgpu-rm.ko loads" line "$b" '"insmod":"emgpu-rm","ret":0'
	check "$v: emgpu-rm.ko binds the emgpu ($personality) and names its UUID" \
		line "$b" '"gpu_uuid":"GPU-'
	check "$v: emgpu-rm.ko reports it as $gpu_name (the PCI device id's personality)" \
		line "$b" ": $gpu_name, "
	check "$v: nvidia-uvm took it as that GPU: $uvm_gpu" \
		line "$b" "nvidia-uvm's GPU: $uvm_gpu "
	settings="ember off stock" module=nvidia-uvm
	if [ "${stock_only_of[$v]}" = 1 ]; then
		settings=stock module=nvidia-uvm-stock
		skip "$v: the Ember glue refuses perf_access_counter_threshold=0 at load, naming it" \
			"a stock-only branch: no Ember glue"
	else
		check "$v: the Ember glue refuses perf_access_counter_threshold=0 at load, naming it" \
			line "$b" 'Invalid Ember-adaptive parameters: perf_access_counter_threshold'
	fi
	check "$v: $module.ko loads against it" line "$b" "\"insmod\":\"$module\",\"ret\":0"
	check "$v: nvidia-uvm registers its device" line "$b" '"chrdev":"nvidia-uvm '
	if [ "${stock_only_of[$v]}" = 1 ]; then
		skip "$v: the Ember glue makes Ember-adaptive the policy of new VA spaces" \
			"a stock-only branch: no Ember glue"
	else
		check "$v: the Ember glue makes Ember-adaptive the policy of new VA spaces" \
			line "$b" '"ember":"' 'Ember-adaptive is the policy of new VA spaces'
	fi
	# NVIDIA's tests and the managed-range checks, then a kernel launched
	# through /dev/emgpu-rm on a managed range (uvm-launch-test), one check
	# each, named by the runners' KTAP lines. settings: ember (our series,
	# Ember's switch on), off (our series, switch off: NVIDIA's behaviour),
	# stock (NVIDIA's nvidia-uvm.ko as packaged, guest-kmod/nvidia-uvm/build.sh --stock:
	# NVIDIA's source alone; a stock-only branch has this one only)
	for setting in $settings; do
		bs="$b,\"setting\":\"$setting\""
		ktap_checks "$v ($setting)" "$bs" ktap
		ktap_checks "$v ($setting) launch" "$bs" launch_ktap
	done
	check "$v: nvidia-uvm.ko unloads" line "$b" '"rmmod":"nvidia-uvm","ret":0'
	check "$v: emgpu-rm.ko unloads" line "$b" '"rmmod":"emgpu-rm","ret":0'
done
check "no warning, BUG or oops in the guest's kernel log" line '"scenario":"boot"' '"warnings":0,'

# Determinism under nvidia-uvm: per branch the smallest matrix run, stream
# at 0.05x under Debian's module (uvm), and an Ember-adaptive run under our
# series (ember_gpu_clock=1: the glue on the device's clock), each on two
# fresh VMs at once (ember-agent run: the host reads the device's stats at the
# guest's hold). Verified both times (every output word checked, the
# result too where the application has one), the same modelled times, trace hash
# and device counters but the TLB's hits and walks: a TLB invalidate
# nvidia-uvm sends while warps run lands between two of the device's
# slices where the guest's timing puts it (one of four pairs differed by
# one hit and one walk, times and hash equal). The adaptive run must also
# have had the glue's notifications, promotions and eager evictions.
# The adaptive run on h200-128m, a quarter of h200-512m's work with every
# glue counter > 0 (h200-64m has one notification and no eager eviction).
ADAPTIVE_APP=${ADAPTIVE_APP:-kmeans} ADAPTIVE_FACTOR=${ADAPTIVE_FACTOR:-1.5}
ADAPTIVE_PROFILE=${ADAPTIVE_PROFILE:-h200-128m}
# the run's output verified: every word checked, the result too where the
# application has one
VERIFIED='(.run.result_ok != 0 and .run.mismatches == 0 and .run.words_checked > 0)'
# run_stats DIR RUN: what must be equal, one line
run_stats() {
	jq -c "[.status, $VERIFIED,"'
		.run.sim_ns, (.device | del(.tlb_hits, .walks)),
		.run.notifications, .run.promotions, .run.eager_evictions]' "$1/runs/$2/result.json"
}
# nvuvm_conf FILE NAME PROFILE APP VARIANT FACTOR MEMORY TIMEOUT: a one-run
# matrix on nvidia-uvm, branch $v
nvuvm_conf() {
	printf '%s\n' "name = $2" "profile = $3" "apps = $4" "variants = $5" \
		"driver = nvidia-uvm" "nvuvm_branch = $v" "nvuvm_personality = $personality" \
		"factors = $6" "seeds = 1" \
		"memory = $7" "timeout = $8" "jobs = 1" >"$1"
}
# same_twice DIR1 DIR2 RUN [adaptive]
same_twice() {
	local a b
	a=$(run_stats "$1" "$3") && b=$(run_stats "$2" "$3") || { echo "no result.json"; return 1; }
	if [ "$a" != "$b" ] || [ "$(jq -r '.[0:2] | @tsv' <<<"$a")" != $'ok\ttrue' ]; then
		echo "first:  $a"
		echo "second: $b"
		return 1
	fi
	jq -r '"trace hash \(.[3].trace_hash), sim_ns \(.[2]), notifications \(.[4]), promotions \(.[5]), eager evictions \(.[6])"' <<<"$a"
	[ "${4:-}" != adaptive ] || jq -e '.[4] > 0 and .[5] > 0 and .[6] > 0' <<<"$a" >/dev/null ||
		{ echo "adaptive: a glue counter is 0"; return 1; }
}
# verified DIR RUN: status ok, the output verified
verified() {
	jq -e ".status == \"ok\" and $VERIFIED" "$1/runs/$2/result.json" >/dev/null ||
		{ jq -c '[.status, .why, .run.ret, .run.failed, .run.mismatches]' "$1/runs/$2/result.json"; return 1; }
}
for v in "${versions[@]}"; do
	nvuvm_conf "$work/det-$v.conf" "det-$v" h200-512m stream uvm 0.05 1024 600
	nvuvm_conf "$work/det-adaptive-$v.conf" "det-adaptive-$v" "$ADAPTIVE_PROFILE" "$ADAPTIVE_APP" \
		adaptive "$ADAPTIVE_FACTOR" 1536 1200
	pairs="det-$v det-adaptive-$v"
	[ "${stock_only_of[$v]}" = 1 ] && pairs="det-$v"
	# the two runs of a pair side by side: each is the other's load
	for conf in $pairs; do
		for k in 1 2; do
			"$agent" run "$work/$conf.conf" --qemu "$qemu" --kernel "$kernel" --initrd "$initrd" \
				--nvidia-uvm-initrd "$initrd" --results "$work/det-$k" >"$work/$conf-$k.log" 2>&1 &
		done
		wait
	done
	# A card smaller than nvidia-uvm's PMA batch as packaged (64 root
	# chunks, 128 MiB, not the scaling rule's): the stand-in must hand out
	# what it has (UVM_PMA_ALLOCATE_ALLOW_PARTIAL)
	nvuvm_conf "$work/small-$v.conf" "small-$v" h200-64m stream uvm 0.5 1024 300
	echo "nvuvm_pma_batch_order = 6" >>"$work/small-$v.conf"
	"$agent" run "$work/small-$v.conf" --qemu "$qemu" --kernel "$kernel" --initrd "$initrd" \
		--nvidia-uvm-initrd "$initrd" --results "$work/small" >"$work/small-$v.log" 2>&1
	check "$v: stream at 0.5x on h200-64m (48 MiB for nvidia-uvm's PMA) under NVIDIA's nvidia-uvm as packaged: verified" \
		verified "$work/small/small-$v" stream-uvm-x0.5-s1-Dnvidia-uvm
	check "$v: stream at 0.05x under NVIDIA's nvidia-uvm as packaged, twice: the same sim_ns, trace hash and device stats (TLB hits and walks aside)" \
		same_twice "$work/det-1/det-$v" "$work/det-2/det-$v" stream-uvm-x0.05-s1-Dnvidia-uvm
	adaptive_name="$v: $ADAPTIVE_APP at ${ADAPTIVE_FACTOR}x on $ADAPTIVE_PROFILE under Ember-adaptive on nvidia-uvm, twice: the same sim_ns, trace hash, device stats and glue counters, notifications, promotions and eager evictions > 0"
	if [ "${stock_only_of[$v]}" = 1 ]; then
		skip "$adaptive_name" "a stock-only branch: no Ember-adaptive"
	else
		check "$adaptive_name" \
			same_twice "$work/det-1/det-adaptive-$v" "$work/det-2/det-adaptive-$v" \
			"$ADAPTIVE_APP-adaptive-x$ADAPTIVE_FACTOR-s1-Dnvidia-uvm" adaptive
	fi
done
echo "1..$n"
ktap_summary
