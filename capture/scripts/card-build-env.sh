# Sourced by the card scripts: what building ember-capture on a card
# machine needs. card_build_env DEPS sets sanitizer_dir (the CUDA
# toolkit's compute-sanitizer, whose patching API ember-capture uses) and
# the array extra (make variables for zstd from DEPS, a folder with
# include/ and lib/, where the machine has no zstd headers); fails when
# the toolkit has no compute-sanitizer.
card_build_env() {
	local deps=$1 header
	header=$(find /usr/local /opt -name sanitizer_patching.h 2>/dev/null | head -1)
	[ -n "$header" ] || { echo "no compute-sanitizer headers found"; return 1; }
	sanitizer_dir=$(cd "$(dirname "$header")/.." && pwd)
	extra=()
	if [ ! -e /usr/include/zstd.h ] && [ -n "$deps" ]; then
		deps=$(cd "$deps" && pwd)
		extra=(CPPFLAGS="-Ilibtrace -D_POSIX_C_SOURCE=200809L -I$deps/include"
		       ZSTD_LIBS="-L$deps/lib -l:libzstd.so.1 -Wl,-rpath,$deps/lib")
	fi
}
