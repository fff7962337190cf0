#!/usr/bin/env bash
# Adds the emgpu device (qemu-device/, copied to hw/emgpu/ by build-qemu.sh)
# to a QEMU 7.2 source tree: one meson subdir, one Kconfig source line, one
# trace-events directory, and its qtest (tests/qtest/emgpu-test.c, copied
# likewise) in the x86_64 qtest list. Idempotent.
set -euo pipefail
tree=${1:?usage: qemu-hook.sh QEMU_SOURCE_TREE}

add_line() {	# file line: append line unless present
	grep -qxF "$2" "$1" || printf '%s\n' "$2" >>"$1"
}

add_line "$tree/hw/meson.build" "subdir('emgpu')"
add_line "$tree/hw/Kconfig" "source emgpu/Kconfig"
grep -q "'hw/emgpu'," "$tree/meson.build" ||
	sed -i "s|^    'hw/misc',\$|&\n    'hw/emgpu',|" "$tree/meson.build"
grep -q "'hw/emgpu'," "$tree/meson.build" ||
	{ echo "qemu-hook.sh: trace_events_subdirs not found in meson.build" >&2; exit 1; }

qtest_build=$tree/tests/qtest/meson.build
grep -q "emgpu-test" "$qtest_build" || sed -i \
	-e "s|^qtests_x86_64 = qtests_i386\$|&\nqtests_x86_64 += ['emgpu-test']|" \
	-e "s|^qtest_executables = {}\$|qtests += {'emgpu-test': [emgpu_dep]}\n&|" \
	"$qtest_build"
[ "$(grep -c emgpu-test "$qtest_build")" = 2 ] ||
	{ echo "qemu-hook.sh: qtest lists not found in $qtest_build" >&2; exit 1; }
