#!/usr/bin/env bash
# Adds the emgpu device (qemu-device/, copied to hw/emgpu/ by build-qemu.sh)
# to a QEMU 7.2 source tree: one meson subdir, one Kconfig source line and
# one trace-events directory. Idempotent.
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
