#!/usr/bin/env bash
# Where a run's modelled time goes on each driver. Boots each cell on
# ember.ko and on nvidia-uvm (ember-agent run, one matrix with both
# drivers) with QEMU's emgpu_event and emgpu_run trace points on, and
# prints per run what the trace counts:
#   ms         the kernels' modelled time (its result's sim_ns; setup_ns,
#              the advice and prefetches before them, is not in it)
#   batches    fault stops the driver answered with a replay
#   stall ms   sum over batches of fault stop -> the stalled warps' resume
#              (batches that overlap count each: it can exceed ms)
#   med us     the median batch's stop -> resume
#   driver ms  modelled driver CPU time per driver thread (DRIVER events:
#              ember.ko's DRIVER_TIME/ACTION charges; under nvidia-uvm the
#              device's own per fault entry, models/src/fault.c): fault,
#              notify, worker, populate. Not in it: fault_service_ns per
#              batch, which the device charges either driver when it
#              hands the batch over (models/src/sm.c, handoff()), with
#              no DRIVER event
#   copies     copy-engine transfers (a PTE write by CE counts as one)
#
#   driver-time.sh AGENT QEMU KERNEL INITRD NVIDIA_UVM_INITRD RESULTS \
#                  PROFILE BRANCH APP:VARIANT:FACTOR...
#
# e.g. driver-time.sh build/host-agent/ember-agent "$(cat build/qemu-path)" \
#   build/images/vmlinuz build/images/initramfs.cpio \
#   build/images/initramfs-nvidia-uvm.cpio results h200-512m 550.163.01 bfs:uvm:0.5
# Finished runs are kept (a rerun resumes); the traces stay in each run's
# folder as emgpu-trace.log.
set -euo pipefail
if [ $# -lt 9 ]; then
	sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
fi
agent=$1 qemu=$2 kernel=$3 initrd=$4 nvuvm_initrd=$5 results=$6 profile=$7 branch=$8
shift 8
for f in "$agent" "$qemu" "$kernel" "$initrd" "$nvuvm_initrd"; do
	[ -e "$f" ] || { echo "$0: no $f" >&2; exit 2; }
done
mkdir -p "$results"
results=$(cd "$results" && pwd)

# QEMU with the trace on, written beside the run's console log
wrap=$results/.qemu-traced
cat >"$wrap" <<EOF
#!/bin/sh
dir=
for a in "\$@"; do
	case \$a in file:*/console.log) dir=\${a#file:}; dir=\${dir%/console.log} ;; esac
done
[ -n "\$dir" ] || { echo "\$0: no console log in the arguments" >&2; exit 2; }
exec '$(realpath "$qemu")' -trace emgpu_event -trace emgpu_run -D "\$dir/emgpu-trace.log" "\$@"
EOF
chmod +x "$wrap"

confs=()
for cell in "$@"; do
	IFS=: read -r app variant factor <<<"$cell"
	[ -n "$app" ] && [ -n "$variant" ] && [ -n "$factor" ] ||
		{ echo "$0: $cell: want APP:VARIANT:FACTOR" >&2; exit 2; }
	name=driver-time-$app-$variant-x$factor
	cat >"$results/$name.conf" <<EOF
name     = $name
profile  = $profile
apps     = $app
variants = $variant
driver   = ember nvidia-uvm
nvuvm_branch = $branch
factors  = $factor
seeds    = 1
memory   = 1536
timeout  = 1800
jobs     = 1
EOF
	confs+=("$results/$name.conf")
done
"$agent" run "${confs[@]}" --qemu "$wrap" --kernel "$kernel" --initrd "$initrd" \
	--nvidia-uvm-initrd "$nvuvm_initrd" --results "$results" >&2

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
printf '%-40s %9s %7s %9s %7s  %-31s %7s\n' run ms batches "stall ms" "med us" \
	"driver ms fault/notify/worker/pop" copies
for conf in "${confs[@]}"; do
	name=$(basename "$conf" .conf)
	for dir in "$results/$name"/runs/*/; do
		id=$(basename "$dir")
		[ -f "$dir/emgpu-trace.log" ] || { echo "$0: $id: no trace" >&2; exit 1; }
		ms=$(jq -r '(.run.sim_ns // 0) / 1e6' "$dir/result.json")
		awk -v id="$id" -v ms="$ms" -v tmp="$tmp" -v sorted="sort -n >$tmp" '
		function hex(s,   i, v) {
			s = tolower(s); sub(/^0x/, "", s); v = 0
			for (i = 1; i <= length(s); i++)
				v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v
		}
		$1 == "emgpu_run" && $3 == "fault" { stop = $5; pending = 1 }
		# the replay that resumes warps carries their resume time; the
		# GA10x REPLAY register event before it carries its type (1, 2)
		$1 == "emgpu_event" && $2 == "replay" && hex($4) > 2 && pending {
			lat[++n] = hex($4) - stop; sum += lat[n]; pending = 0
		}
		$1 == "emgpu_event" && $2 == "driver" { drv[hex($3) % 256] += hex($4) }
		$1 == "emgpu_event" && $2 == "copy" { copies++ }
		END {
			for (i = 1; i <= n; i++)
				print lat[i] | sorted
			close(sorted)
			for (i = 1; i <= int((n + 1) / 2) && (getline v <tmp) > 0; i++)
				med = v
			printf "%-40s %9.2f %7d %9.2f %7.1f  %7.2f/%7.2f/%7.2f/%7.2f %7d\n",
				id, ms, n, sum / 1e6, med / 1e3,
				drv[0] / 1e6, drv[1] / 1e6, drv[2] / 1e6, drv[3] / 1e6, copies
		}' "$dir/emgpu-trace.log"
	done
done
