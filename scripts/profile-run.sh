#!/bin/bash
# SPDX-License-Identifier: MIT
# make profile-run: where one VM run's host CPU goes. Boots one VM (ember-agent
# vm --run) under `perf record -e cpu-clock` and splits the samples of the
# QEMU process into: the GPU model (libgpumodel and emgpu's callbacks), the
# guest's code under TCG (JIT), the rest of QEMU (TCG helpers, translation,
# devices), the host kernel zeroing fresh pages (guest RAM and VRAM touched
# for the first time) and the rest of the host kernel. Prints one line per
# part and the ember-run phase times the guest printed (with what verified
# the outputs: the host's digest or the in-guest reference).
#
# usage: profile-run.sh AGENT QEMU KERNEL INITRD WORKDIR PROFILE MEMORY 'RUN ARGS' MODEL_LIB
# (MODEL_LIB: libgpumodel.a, whose function names, static ones included,
# are the model's; QEMU compiles the same sources)
set -euo pipefail
agent=$1 qemu=$2 kernel=$3 initrd=$4 work=$5 profile=$6 memory=$7 args=$8 lib=$9
rm -rf "$work"
mkdir -p "$work"
perf record -q -e cpu-clock -F 499 -o "$work/perf.data" -- \
	"$agent" vm --qemu "$qemu" --kernel "$kernel" --initrd "$initrd" \
	--profile "$profile" --memory "$memory" --run "$args" --timeout 3600 \
	--workdir "$work/vm" >"$work/vm.log" 2>&1 ||
	{ echo "profile-run: step 'perf record' (the VM run) failed; its log:" >&2
	  cat "$work/vm.log" >&2; exit 1; }
phases=$(grep -hoE 'ember-run: .* ms( \([a-z ]+\))?' "$work"/vm/*.log "$work/vm.log" 2>/dev/null || true)
if [ -n "$phases" ]; then
	head -n1 <<<"$phases"
else
	echo "profile-run: the guest printed no ember-run phase times" >&2
fi
nm --defined-only "$lib" | awk 'NF == 3 && $2 ~ /[tT]/ { print $3 }' >"$work/model.syms" ||
	{ echo "profile-run: step 'nm $lib' failed" >&2; exit 1; }
perf report -q -i "$work/perf.data" --comm qemu-system-x86 --no-children \
	--sort dso,sym --stdio -g none 2>"$work/perf-report.err" >"$work/perf-report.txt" ||
	{ echo "profile-run: step 'perf report' failed:" >&2; cat "$work/perf-report.err" >&2; exit 1; }
awk -v syms="$work/model.syms" '
BEGIN { while ((getline s < syms) > 0) model[s] = 1 }
{
	pct = $1; sub("%", "", pct); dso = $2; sym = $NF
	if (dso ~ /^\[JIT\]/) part = "guest code under TCG (JIT)"
	else if (dso == "qemu-system-x86_64" && (sym in model || sym ~ /^emgpu_/))
		part = "GPU model (libgpumodel, emgpu)"
	else if (dso == "qemu-system-x86_64") part = "QEMU: TCG helpers, translation, devices"
	else if (sym ~ /clear_page|clear_huge_page|folio_zero/) part = "host kernel: zeroing fresh pages"
	else if (dso ~ /kernel/) part = "host kernel: other (scheduling, faults, I/O)"
	else part = "libraries (libc memcpy, glib)"
	share[part] += pct; total += pct
}
END {
	if (!total) {
		print "profile-run: perf recorded no sample of qemu-system-x86" > "/dev/stderr"
		exit 1
	}
	for (p in share) printf "profile-run: %5.1f%%  %s\n", 100 * share[p] / total, p
}' "$work/perf-report.txt" | sort -t: -k2 -rn
