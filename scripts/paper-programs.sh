#!/usr/bin/env bash
# The paper's own programs replayed (issue 51; docs/trace-replay.md, "The
# paper's programs"): their accesses traces captured on a card at the
# scaled card's footprints (capture/traces/paper-h200/ and paper/, each
# with its PROVENANCE.md), replayed under the five variants on ember.ko
# and on nvidia-uvm, beside the built-in apps of the same names run at the
# same factors, as one job pool.
#
# A trace PROG-SIZE-accesses.trace replays at the factor of h200-512m that
# its footprint is (256m: 0.5x, every column's 0.5x inputs; 512m: 1.0x,
# the H200 column's "~1.5x" inputs: docs/paper-inputs.md), so its
# allocations are not rescaled; its compute is the card's time of the
# resident capture PROG-SIZE-resident.trace (-T), the data on the card.
# A program-size pair is replayed from the first folder of TRACE_DIRS
# holding both of its traces, so one card's pair is never mixed with
# another's; the report names each pair's folder and card. A pair found
# in none is not replayed and is named in the report, with the command
# that captures it.
#
# usage: paper-programs.sh AGENT QEMU KERNEL RESULTS ACCEL
#   TRACE_DIRS folders of traces, searched in order [capture/traces/
#              paper-h200 capture/traces/paper: the H200's captures where
#              there are, as the paper's Table 4 is an H200's]
#   PROGRAMS   [pathfinder kmeans radix bfs bitonic]
#   SIZES      [256m 512m]
#   DRIVERS    [ember nvidia-uvm]; NVIDIA_BRANCHES names the nvidia-uvm
#              branch folders its image is built from (the top Makefile's)
#   VARIANTS   [uvm prefetch mapped static adaptive]
#   JOBS       VMs at a time [0: one per core]
#   FIGURES_RESUME  1: keep the runs an interrupted invocation with the
#              same RESULTS finished (ember-agent run resumes them) [0]
# RESULTS/paper-programs/ holds the pool's runs, results.jsonl (every
# run of every matrix) and traces.tsv (each replayed accesses trace, its
# folder and the card it was captured on), RESULTS/paper-programs.md the page
# (ember-agent agreement over it) and RESULTS/paper-programs.png its plot.
set -euo pipefail

agent=$1 qemu=$2 kernel=$3 accel=${5:-tcg}
mkdir -p "$4"
results=$(cd "$4" && pwd)	# absolute: the images are made from images/
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/common.sh"
dirs=${TRACE_DIRS:-$top/capture/traces/paper-h200 $top/capture/traces/paper}
dump=${TRACE_DUMP:-$top/build/capture/trace-dump}
programs=${PROGRAMS:-pathfinder kmeans radix bfs bitonic}
sizes=${SIZES:-256m 512m}
drivers=${DRIVERS:-ember nvidia-uvm}
variants=${VARIANTS:-uvm prefetch mapped static adaptive}
profile=h200-512m
work=$results/paper-programs-work
set=$results/paper-programs

factor_of() {	# SIZE: the factor of h200-512m that the size is
	case $1 in
	256m) echo 0.5 ;;
	512m) echo 1 ;;
	*) die "paper-programs: no factor of $profile for size $1 (256m or 512m)" ;;
	esac
}

# the nvidia-uvm branch, where nvidia-uvm is one of the drivers (a matrix
# refuses the key without it)
branch_line=
[[ " $drivers " == *" nvidia-uvm "* ]] && branch_line="nvuvm_branch = 550.163.01"
for d in $dirs; do
	[ -d "$d" ] || die "paper-programs: no folder $d (TRACE_DIRS)"
done
# paths as the tree names them: the report and the page are committed
rel() { realpath -m --relative-to="$top" "$1" | sed 's|^\.\./.*|'"$1"'|'; }
# card_of TRACE: the card its META's device= names, less its vendor (sed
# reads the whole listing: quitting early would end the dump by SIGPIPE)
card_of() {
	"$dump" "$1" | sed -n '/^device=/{ s/^device=\(NVIDIA \)\{0,1\}//; p; }'
}

rm -rf "$work/matrices" "$work/traces" "$work/image" "$set"
[ "${FIGURES_RESUME:-0}" = 1 ] || rm -rf "$work"
# the chosen traces, by name: the host agent checks trace:NAME there
mkdir -p "$work/matrices" "$work/traces" "$set"
traces=() matrices=() apps=() missing=() origins=()
for p in $programs; do
	found=0
	for s in $sizes; do
		acc=$p-$s-accesses.trace res=$p-$s-resident.trace dir=
		for d in $dirs; do
			if [ -f "$d/$acc" ] && [ -f "$d/$res" ]; then
				dir=$d
				break
			fi
		done
		if [ -z "$dir" ]; then
			missing+=("$p-$s")
			continue
		fi
		found=1
		traces+=("$dir/$acc" "$dir/$res")
		ln -s "$(realpath "$dir/$acc")" "$(realpath "$dir/$res")" "$work/traces/"
		card=$(card_of "$dir/$acc")
		origins+=("$p-$s from $(rel "$dir") ($card)")
		printf '%s\t%s\t%s\n' "$acc" "$(rel "$dir")" "$card" >>"$set/traces.tsv"
		cat >"$work/matrices/$p-$s.conf" <<CONF
name     = $p-$s
profile  = $profile
apps     = trace:$acc
variants = $variants
factors  = $(factor_of "$s")
seeds    = 1
driver   = $drivers
$branch_line
run_args = -T /traces/$res
memory   = 2048
timeout  = 3600
jobs     = ${JOBS:-0}
CONF
		matrices+=("$work/matrices/$p-$s.conf")
	done
	[ $found = 0 ] || apps+=("$p")
done
[ ${#matrices[@]} -gt 0 ] || die "paper-programs: no accesses trace of $programs in $dirs"
factors=$(for s in $sizes; do factor_of "$s"; done | tr '\n' ' ')
# the built-in apps of the same names, at the same factors
cat >"$work/matrices/built-in.conf" <<CONF
name     = built-in
profile  = $profile
apps     = ${apps[*]}
variants = $variants
factors  = $factors
seeds    = 1
driver   = $drivers
$branch_line
memory   = 2048
timeout  = 3600
jobs     = ${JOBS:-0}
CONF
matrices+=("$work/matrices/built-in.conf")

# images carrying these traces (the default images carry capture/traces/*.trace)
make -s -C "$top/images" O="$work/image" TRACES="${traces[*]}" \
	"$work/image/initramfs.cpio" >"$work/image.log" 2>&1 ||
	die "paper-programs: ember's image did not build ($work/image.log)"
nvuvm=()
if [[ " $drivers " == *" nvidia-uvm "* ]]; then
	make -s -C "$top/images" nvidia-uvm-image NVIDIA_UVM_IMAGE="$work/image/nvidia-uvm.cpio" \
		NVIDIA_BRANCHES="${NVIDIA_BRANCHES:?names the nvidia-uvm branch folders}" \
		TRACES="${traces[*]}" >>"$work/image.log" 2>&1 ||
		die "paper-programs: the nvidia-uvm image did not build ($work/image.log)"
	nvuvm=(--nvidia-uvm-initrd "$work/image/nvidia-uvm.cpio")
fi

rc=0
EMBER_TRACES="$work/traces" "$agent" run "${matrices[@]}" --qemu "$qemu" --kernel "$kernel" \
	--initrd "$work/image/initramfs.cpio" "${nvuvm[@]}" --results "$work/results" \
	--accel "$accel" >"$work/run.log" 2>&1 || rc=$?
[ $rc = 0 ] || echo "paper-programs: a run failed or the pool stopped ($work/run.log)"
for m in "${matrices[@]}"; do
	name=$(sed -n 's/^name *= *//p' "$m")
	# an interrupted pool: its finished runs stay for FIGURES_RESUME=1
	[ -f "$work/results/$name/results.jsonl" ] ||
		die "paper-programs: no runs of $name (the pool stopped first); FIGURES_RESUME=1 goes on from $work/results"
	cat "$work/results/$name/results.jsonl"
done >"$set/results.jsonl"
mv "$work/results" "$set/runs"

echo "paper-programs: $(wc -l <"$set/results.jsonl") runs, $(jq -s 'map(select(.status == "ok")) | length' "$set/results.jsonl") ok"
for o in "${origins[@]}"; do
	echo "paper-programs: $o"
done
for m in "${missing[@]}"; do
	echo "paper-programs: $m not replayed: no $m-accesses.trace and $m-resident.trace in" \
	     "one of $(for d in $dirs; do rel "$d"; done | paste -sd ' ') (each folder's PROVENANCE.md" \
	     "names the command that captures it on a card)"
done
cd "$top"
"$agent" agreement "$(rel "$set")" --paper experiments/paper/table4.csv \
	--title "The paper's programs replayed, beside the paper and the built-in apps" \
	--out "$results/paper-programs.md" \
	--plot-href ../experiments/results/paper-programs/paper-programs.png || rc=1
exit $rc
