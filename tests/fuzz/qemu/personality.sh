# Sourced by common.sh and report.sh: which of emgpu's personalities a run
# fuzzes, and the corpus and runs table that belong to it.
#
# FUZZ_PERSONALITY=emgpu (the default) fuzzes the device ember.ko drives;
# FUZZ_PERSONALITY=ga10x the GA10x personality (docs/specs/emgpu.md): BAR0
# of 64 KiB with the GA10x block, BAR2 on VRAM (64 MiB at h200-64m, the
# second fuzzable range after emgpu-regs) and the poll of blocked channels,
# which generic-fuzz's clock-step command runs; FUZZ_PERSONALITY=gh100 the
# GH100 personality, laid out as GA10x's (its MMU VER3 page tables and its
# engine ids differ). Each keeps its own corpus and runs table, so they
# never mix in a merge or a report.
personality=${FUZZ_PERSONALITY:-emgpu}
case $personality in
emgpu)
	corpus=$top/tests/fuzz/corpus/emgpu-generic
	runs=$top/tests/fuzz/qemu/runs.tsv
	device_props= ;;
ga10x)
	corpus=$top/tests/fuzz/corpus/emgpu-ga10x-generic
	runs=$top/tests/fuzz/qemu/runs-ga10x.tsv
	device_props=,personality=ga10x ;;
gh100)
	corpus=$top/tests/fuzz/corpus/emgpu-gh100-generic
	runs=$top/tests/fuzz/qemu/runs-gh100.tsv
	device_props=,personality=gh100 ;;
*)
	echo "FUZZ_PERSONALITY must be emgpu, ga10x or gh100, not '$personality'" >&2
	exit 2 ;;
esac
