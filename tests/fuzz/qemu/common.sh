# Sourced by run.sh and report.sh: the fuzz build of QEMU (built or found in
# the cache), generic-fuzz's configuration for emgpu and the corpus.
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
corpus=$top/tests/fuzz/corpus/emgpu-generic
fuzzer=$(bash "$top/scripts/build-qemu.sh" --fuzz)
export QEMU_FUZZ_ARGS="-M q35 -m 64 -nodefaults -L /usr/share/qemu -L /usr/share/seabios -device emgpu,profile=h200-64m"
export QEMU_FUZZ_OBJECTS="emgpu*"
