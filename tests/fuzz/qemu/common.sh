# Sourced by run.sh and report.sh: the fuzz build of QEMU (built or found in
# the cache), generic-fuzz's configuration for emgpu and the corpus.
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
. "$top/tests/fuzz/qemu/personality.sh"	# corpus, runs, device_props
fuzzer=$(bash "$top/scripts/build-qemu.sh" --fuzz)
# run-budget: the device's bottom half yields to the main loop after that
# many modelled accesses, and generic-fuzz runs at most 10 main-loop
# iterations after each command, so a command's device work is bounded in
# device terms (~20 K accesses). At the default (1 M per yield) an input
# whose commands let a large kernel run took 47 CPU seconds under ASan
# and ended a run with a timeout; the forking mode cut such commands at
# 100 ms. At 16384 the fuzzer filled the corpus with long kernel launches
# (kmeans over many points, ~80 % of the cycles in the model's warps) and
# made 323 executions per CPU second; the corpus, run once, then covered
# 3,730 edges in 16.7 CPU seconds at 16384 and 3,722 in 4.3 at 2048.
# The corpus grown at 2048 (2,955 inputs), run once with -runs=0 beside
# a fuzzer: 4,038 edges in 26.8 CPU seconds at 2048, 4,032 in 10.0 at 512
# and 4,001 in 5.3 at 128 (perf at 2048: gm_run 36 % of the fuzzer's
# cycles, kmeans_step 22 %). 512 keeps all but 6 edges at 2.7x the rate.
# FUZZ_RUN_BUDGET overrides it for a run (runs.tsv records the value).
# positive_int NAME VALUE: exits naming NAME unless VALUE is a positive integer
positive_int() {
	case $2 in
	'' | *[!0-9]* | 0 | 00*) echo "$1 must be a positive integer, not '$2'" >&2; exit 2 ;;
	esac
}
run_budget=${FUZZ_RUN_BUDGET:-512}
positive_int FUZZ_RUN_BUDGET "$run_budget"
# work-max: the copy work (bytes) one register write, bottom-half run or
# poll does at most. At the device's default (64 MiB) a push of large
# copies into generic-fuzz's sparse memory (a hash lookup per access under
# ASan) held one input for 104 s, and a corpus holding such inputs ran at
# 49 executions a second instead of 2,933. 256 KiB (four 64 KiB pieces)
# bounds a command's copying to a few MiB. FUZZ_WORK_MAX overrides it
# (bytes; runs.tsv records the value).
work_max=${FUZZ_WORK_MAX:-262144}
positive_int FUZZ_WORK_MAX "$work_max"
export QEMU_FUZZ_ARGS="-M q35 -m 64 -nodefaults -L /usr/share/qemu -L /usr/share/seabios -device emgpu,profile=h200-64m,run-budget=$run_budget,work-max=$work_max$device_props"
export QEMU_FUZZ_OBJECTS="emgpu*"
