# Shared definitions for the testbed's shell scripts; sourced, never run.

# Expensive builds (QEMU, the guest kernel pin) live outside the clone so that
# a fresh clone reuses them; every entry is keyed by a hash of its inputs.
: "${EMBER_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/ember-testbed}"
export EMBER_CACHE

log() { printf '[%s] %s\n' "$(basename "$0")" "$*" >&2; }
die() { log "error: $*"; exit 1; }

# Prints the pinned guest kernel ABI (e.g. 6.1.0-57); setup.sh records it.
kernel_abi() {
	[ -s "$EMBER_CACHE/kernel-abi" ] ||
		die "no pinned guest kernel: run scripts/setup.sh first"
	cut -d' ' -f1 "$EMBER_CACHE/kernel-abi"
}
