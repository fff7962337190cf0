#!/usr/bin/env bash
# The Ember paper's six applications on a card (capture/traces/
# paper/PROVENANCE.md): builds them as their authors ship them (UVMBench's
# pathfinder, kmeans_standard and CNN, EMOGI's bfs: only the compiler and
# the architecture named) and our two drivers (capture/programs/
# radix_sort.cu, bitonic_sort.cu), generates their inputs at each SIZE,
# and captures each program as it runs: accesses (ember-capture, every
# record: the run fails if a launch dropped one), timing, and timing with
# the data resident (libember-static.so's EMBER_STATIC_MODE=prefetch).
# With VALIDATE, it then times each program at that size under uvm,
# prefetch, mapped and static: a warm-up round, then ROUNDS rounds, each
# a timing capture (validate-on-card.sh's layout: validation-table.sh
# reads it).
#   bash capture/scripts/paper-programs-on-card.sh OUTDIR [DEPS [UVMBENCH [EMOGI]]]
# DEPS as capture-on-card.sh's; UVMBENCH and EMOGI default to .uvmbench and
# .emogi (capture/scripts/fetch-uvmbench.sh, fetch-emogi.sh).
# Environment (defaults in brackets):
#   SIZES      footprints captured ["256m 512m"]: 256m, 512m or 768m
#   PROGRAMS   programs captured ["pathfinder kmeans bfs radix bitonic"]
#   MODES      captures per program and size ["accesses timing resident"]
#   NO_ACCESSES  programs captured without accesses ["bitonic": its
#              p (p + 1) / 2 patched passes over 2^p keys outlast a run]
#   VALIDATE   the size timed under the four variants [none]
#   VALIDATE_PROGRAMS  [PROGRAMS]; ROUNDS [5]
#   VALIDATE_DIR  OUTDIR's folder of the variants' runs [validate]
#   OVERLAP    runs of the validation started ahead of the one that has
#              the card [0: one run at a time]; see validate_overlapped
#   LEVEL      zstd level the accesses traces are rewritten at [19]
#   RECOMPRESS programs whose accesses traces are rewritten [PROGRAMS]
#   DELTA      1: rewritten delta-coded (trace-recompress --delta), 0:
#              plainly [1]; each rewrite is compared record for record
#              with the capture (trace-compare) before it replaces it
#   SPLIT_MB   a trace larger than this many MiB is also written in parts
#              of that size, NAME.trace.partNN (cat them in order; sha256
#              lists the whole) [15: a returned file's 16 MiB cap; 0: none]
#   KMEANS_ITERATIONS  kmeans_standard's iterations [100: its authors' run file's; every
#              iteration's fine_reduce records the same lines, which the
#              trace keeps once (shared sections, docs/trace-format.md)]
#   RUN_TIMEOUT  seconds per run [300]; with OVERLAP, from the run's
#              start, its wait for the card included
# OUTDIR gets paper-programs.log, PROG-SIZE-MODE.trace per capture,
# sha256 (of every trace written) and, with VALIDATE, VALIDATE_DIR (its
# validate.log and PROG-VARIANT-ROUND.trace).
set -uo pipefail
out=$(mkdir -p "$1" && cd "$1" && pwd)
deps=${2:-}
here=$(cd "$(dirname "$0")/.." && pwd)
root=$(cd "$here/.." && pwd)
uvmbench=$(cd "${3:-$root/.uvmbench}" && pwd) || exit 1
emogi=$(cd "${4:-$root/.emogi}" && pwd) || exit 1
sizes=${SIZES-256m 512m}
programs=${PROGRAMS-pathfinder kmeans bfs radix bitonic}
modes=${MODES-accesses timing resident}
no_accesses=${NO_ACCESSES-bitonic}
level=${LEVEL:-19}
recompress=${RECOMPRESS-$programs}
delta=()
[ "${DELTA:-1}" = 1 ] && delta=(--delta)
split_mb=${SPLIT_MB:-15}
build=$root/build/paper-programs
inputs=$build/inputs
exec > >(tee -a "$out/paper-programs.log") 2>&1

. "$here/scripts/card-build-env.sh"
. "$here/scripts/card-turns.sh"
card_build_env "$deps" || exit 1

echo "== build $(date -u +%H:%M:%S)"
mkdir -p "$build" "$inputs"
make -C "$here" O="$build" SANITIZER_DIR="$sanitizer_dir" "${extra[@]}" tool || exit 1
make -C "$root/cuda/ember-static" O="$build" "$build/libember-static.so" || exit 1
compat="-include $here/programs/cuda12_compat.h"
# Built once per machine: the fetched trees are copied, then built by
# their own Makefiles (make release for pathfinder), naming only nvcc 13,
# sm_90 and the shared runtime (which the interposer needs).
if [ ! -x "$build/uvmbench/UVM_benchmarks/kmeans/kmeans_standard" ] ||
   [ ! -x "$build/emogi/bfs" ]; then
	rm -rf "$build/uvmbench" "$build/emogi"
	cp -r "$uvmbench" "$build/uvmbench"
	cp -r "$emogi" "$build/emogi"
	make -C "$build/uvmbench/UVM_benchmarks/rodinia/pathfinder" CUDA_DIR=/usr/local/cuda \
		CC="nvcc -arch=sm_90 -cudart shared" || exit 1
	make -C "$build/uvmbench/UVM_benchmarks/kmeans" CUDA_DIR=/usr/local/cuda \
		CC="nvcc -arch=sm_90 -cudart shared" kmeans_standard || exit 1
	# CNN and bfs call CUDA 12's int-device advice and prefetch.
	make -C "$build/uvmbench/UVM_benchmarks/CNN" CUDA_DIR=/usr/local/cuda \
		CC="nvcc -arch=sm_90 -cudart shared $compat" || exit 1
	make -C "$build/emogi" NVCCFLAGS="-arch=sm_90 -cudart shared $compat" bfs || exit 1
fi
for p in radix_sort bitonic_sort; do
	[ "$build/$p" -nt "$here/programs/$p.cu" ] ||
		nvcc -O2 -std=c++17 -arch=sm_90 -cudart shared -I"$root/models/include" \
			-o "$build/$p" "$here/programs/$p.cu" || exit 1
done
for p in gen_points gen_graph; do
	cc -O2 -std=c11 -Wall -Wextra -Werror -I"$root/models/include" \
		-o "$build/${p/_/-}" "$here/programs/$p.c" || exit 1
done

echo "== versions"
date -u +%Y-%m-%dT%H:%M:%SZ
nvidia-smi --query-gpu=name,driver_version,memory.total,memory.used --format=csv,noheader
nvcc --version | tail -1
"$sanitizer_dir/compute-sanitizer" --version 2>/dev/null | tail -1
echo "uvmbench $(cat "$uvmbench/COMMIT") emogi $(cat "$emogi/COMMIT")"
nproc
free -g | head -2
device=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)

# The inputs per size, each sized so the managed allocations (plus, for
# bfs, its vertex list in device memory) come to the footprint:
#  pathfinder COLS 101 20: a wall of 100 x COLS ints and two result rows
#    of COLS ints, 408 bytes a column;
#  kmeans_standard: 8 bytes a point (two float arrays) and its per-block
#    sums (24 bytes per 1024 points, k = 3);
#  bfs: a graph of 2^21 (2^22, 3 x 2^21) vertices and 15 edges a vertex
#    less one edge, 8 bytes a vertex and an edge: 256 (512, 768) MiB;
#  radix_sort KEYS: 4 bytes a key (Thrust's temporaries, device memory,
#    about as much again, are not counted);
#  bitonic_sort LOG2_KEYS: 4 bytes a key (768m has no power of two: 512m's).
size_args() {
	case $1:$2 in
	pathfinder:256m) echo 657920 101 20 ;;
	pathfinder:512m) echo 1315840 101 20 ;;
	pathfinder:768m) echo 1973760 101 20 ;;
	kmeans:256m) echo 33456128 ;;
	kmeans:512m) echo 66912256 ;;
	kmeans:768m) echo 100368384 ;;
	bfs:256m) echo 2097152 31457279 ;;
	bfs:512m) echo 4194304 62914559 ;;
	bfs:768m) echo 6291456 94371839 ;;
	radix:256m) echo 67108864 ;;
	radix:512m) echo 134217728 ;;
	radix:768m) echo 201326592 ;;
	bitonic:256m) echo 26 ;;
	bitonic:512m | bitonic:768m) echo 27 ;;
	esac
}

# prepare PROG SIZE: the input files, made once per machine.
prepare() {
	local a
	a=($(size_args "$1" "$2"))
	case $1 in
	kmeans)
		[ -s "$inputs/points-$2.txt" ] ||
			"$build/gen-points" "${a[0]}" 3 "$inputs/points-$2.txt" || return 1 ;;
	bfs)
		[ -s "$inputs/graph-$2.bel.dst" ] ||
			"$build/gen-graph" "${a[0]}" "${a[1]}" "$inputs/graph-$2" || return 1 ;;
	esac
	return 0
}

# prog_cmd PROG SIZE: the command line (run from capture's folder).
prog_cmd() {
	local a
	a=($(size_args "$1" "$2"))
	case $1 in
	pathfinder) echo "$build/uvmbench/UVM_benchmarks/rodinia/pathfinder/pathfinder ${a[*]}" ;;
	kmeans) echo "$build/uvmbench/UVM_benchmarks/kmeans/kmeans_standard 3 $inputs/points-$2.txt 3 ${KMEANS_ITERATIONS:-100}" ;;
	bfs) echo "$build/emogi/bfs -f $inputs/graph-$2.bel -r 0 -t 2 -m 1" ;;
	radix) echo "$build/radix_sort ${a[0]}" ;;
	bitonic) echo "$build/bitonic_sort ${a[0]}" ;;
	esac
}

# capture NAME PROG SIZE MODE TRACE [ENV...]: one run under ember-capture,
# in the folder CAPTURE_DIR [$build/run], made anew, its output beside it.
capture() {
	local name=$1 prog=$2 size=$3 mode=$4 trace=$5 start end rc cmd
	local dir=${CAPTURE_DIR:-$build/run}
	shift 5
	cmd=$(prog_cmd "$prog" "$size")
	rm -rf "$dir"
	mkdir -p "$dir/results/standard"
	start=$(date +%s%N)
	(cd "$dir" && env "$@" CUDA_INJECTION64_PATH="$build/libember-capture.so" \
		EMBER_CAPTURE_MODE="$mode" EMBER_CAPTURE_OUTPUT="$trace" \
		EMBER_CAPTURE_META="program=$prog;size=$size;device=$device;driver=$driver;${META:-}" \
		timeout "${RUN_TIMEOUT:-300}" $cmd >"$dir.out" 2>"$dir.err")
	rc=$?
	end=$(date +%s%N)
	grep -h -i -E 'time|took|ember-capture:|error|fail|out of order' "$dir.out" "$dir.err" | head -6
	grep -c '^ember-static:' "$dir.err" | sed 's/^/ember-static lines: /'
	grep '^ember-static:' "$dir.err" | sed 's/0x[0-9a-f]*/ADDR/g' | sort | uniq -c | head -6
	echo "RUN $name $(basename "$trace" .trace) rc=$rc wall_ms=$(( (end - start) / 1000000 ))"
	return $rc
}

rewriters=()
for size in $sizes; do
	for p in $programs; do
		echo "== $p $size $(date -u +%H:%M:%S)"
		prepare "$p" "$size" || { echo "PREPARE-FAILED $p $size"; continue; }
		for mode in $modes; do
			trace=$out/$p-$size-$mode.trace
			case $mode in
			accesses)
				case " $no_accesses " in *" $p "*) continue ;; esac
				META="mode_name=accesses;args=$(prog_cmd "$p" "$size" | cut -d' ' -f2- | tr ' ' ',')" \
					capture "$p" "$p" "$size" accesses "$trace" ;;
			timing)
				capture "$p" "$p" "$size" timing "$trace" ;;
			resident)
				META="variant=prefetch" capture "$p" "$p" "$size" timing "$trace" \
					LD_PRELOAD="$build/libember-static.so" EMBER_STATIC_MODE=prefetch \
					EMBER_STATIC_ALIGN_KB=4 ;;
			esac
			[ -e "$trace" ] || continue
			summary=$("$build/trace-dump" --summary "$trace" | tail -1)
			echo "SUMMARY $p-$size-$mode $summary"
			case $summary in
			*" dropped 0 "*) ;;
			*) echo "INCOMPLETE $p-$size-$mode: records dropped" ;;
			esac
			# Rewritten at LEVEL while the next runs go on; the
			# rewrite replaces the capture only once it reads back
			# the same, record for record.
			case $mode:" $recompress " in
			accesses:*" $p "*)
				( was=$(stat -c %s "$trace")
				  "$build/trace-recompress" "-$level" "${delta[@]}" "$trace" "$trace.z" &&
					"$build/trace-compare" "$trace" "$trace.z" 1 >"$trace.compare" &&
					mv "$trace.z" "$trace" &&
					echo "RECOMPRESSED $(basename "$trace") $was -> $(stat -c %s "$trace") bytes${delta:+ delta-coded}: $(head -1 "$trace.compare") $(date -u +%H:%M:%S)" ||
					echo "RECOMPRESS-FAILED $(basename "$trace"): the capture is kept as it was"
				  rm -f "$trace.z" "$trace.compare" ) &
				rewriters+=($!) ;;
			esac
		done
	done
	# Inputs of a size are not needed past it (disk).
	[ -n "${KEEP_INPUTS:-}" ] || [ "$size" = "${VALIDATE:-}" ] ||
		rm -f "$inputs"/*-"$size".*
done
echo "== waiting for trace-recompress $(date -u +%H:%M:%S)"
# By pid: a bare wait would also wait for the log's tee.
for pid in "${rewriters[@]}"; do
	wait "$pid"
done

# validate_run PROG VARIANT ROUND [ENV...]: one run of the validation, a
# timing capture under libember-static.so's EMBER_STATIC_MODE.
validate_run() {
	local p=$1 v=$2 r=$3 verbose=0
	shift 3
	[ "$r" = 0 ] && verbose=1
	META="variant=$v;round=$r" capture "$p" "$p" "$VALIDATE" timing \
		"$vdir/$p-$v-$r.trace" "$@" LD_PRELOAD="$build/libember-static.so" \
		EMBER_STATIC_MODE="$v" EMBER_STATIC_ALIGN_KB=4 EMBER_STATIC_VERBOSE=$verbose
}

# validate_slot N RUN...: validate_run in a folder of its own, run-N.
validate_slot() {
	local n=$1
	shift
	CAPTURE_DIR=$build/run-$n validate_run "$@"
}

# validate_done N: run-N and its output, once card_turns has its log.
validate_done() {
	rm -rf "$build/run-$1" "$build/run-$1.out" "$build/run-$1.err"
}

# validate_overlapped RUN...: the runs ("PROG VARIANT ROUND"), each in a
# folder of its own (validate_slot), with up to OVERLAP of them started ahead of the one
# that has the card (card_turns), so that their work before CUDA
# overlaps: kmeans_standard parses its 33 M-line input (about 40 s)
# before its first CUDA call (pathfinder's first call comes first). The
# card's work does not overlap: ember-capture holds each run at its
# gate, in cuInit, before the process has a context, and the next run
# gets its turn only once this one has exited; so every launch time a
# trace holds (ember-capture's host clock across the synchronized
# launch) was taken while no other process had a context on the card,
# and the runs take the card in a serial validation's order. What the
# others share with it is the host: processes parsing on other cores
# could slow the fault handling and launch overhead inside those times
# through the CPUs and host memory alone. The check: pathfinder's
# variants timed alone (OVERLAP=0) in the same session against its
# variants timed here.
validate_overlapped() {
	local -a numbered=()
	local i
	for ((i = 1; i <= $#; i++)); do
		numbered+=("$((i - 1)) ${!i}")
	done
	CARD_TURN_DONE=validate_done card_turns "$OVERLAP" "$build/gates" "$vdir/validate.log" \
		validate_slot "${numbered[@]}"
}

if [ -n "${VALIDATE:-}" ]; then
	vdir=$out/${VALIDATE_DIR:-validate}
	echo "== variants at $VALIDATE $(date -u +%H:%M:%S), ${OVERLAP:-0} ahead"
	mkdir -p "$vdir"
	validation=()
	for r in $(seq 0 "${ROUNDS:-5}"); do
		for p in ${VALIDATE_PROGRAMS-$programs}; do
			prepare "$p" "$VALIDATE" || continue
			for v in uvm prefetch mapped static; do
				validation+=("$p $v $r")
			done
		done
	done
	if [ "${OVERLAP:-0}" -gt 0 ]; then
		validate_overlapped "${validation[@]}"
	else
		for run in "${validation[@]}"; do
			validate_run $run >>"$vdir/validate.log"
		done
	fi
	grep -c '^RUN' "$vdir/validate.log"
fi

echo "== traces $(date -u +%H:%M:%S)"
(cd "$out" && find . -name '*.trace' | sort | xargs sha256sum >sha256)
ls -l "$out"
# Each trace's size, and its bytes a record (the accesses traces).
for trace in "$out"/*.trace; do
	[ -e "$trace" ] || continue
	records=$("$build/trace-dump" --summary "$trace" 2>/dev/null | tail -1 |
		  sed -n 's/.* records \([0-9]*\).*/\1/p')
	bytes=$(stat -c %s "$trace")
	echo "SIZE $(basename "$trace") $bytes bytes, ${records:-?} records$(
		[ "${records:-0}" -gt 0 ] 2>/dev/null &&
		awk -v b="$bytes" -v r="$records" 'BEGIN { printf ", %.3f bytes a record", b / r }')"
	if [ "$split_mb" -gt 0 ] && [ "$bytes" -gt $((split_mb << 20)) ]; then
		split -b "${split_mb}M" -d -a 2 "$trace" "$trace.part"
		echo "SPLIT $(basename "$trace") into $(ls "$trace".part* | wc -l) parts of ${split_mb} MiB"
	fi
done
