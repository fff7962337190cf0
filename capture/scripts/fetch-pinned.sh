# Sourced by the fetch scripts: fetch_pinned NAME SOURCE DEST COMMIT PATH...
# puts PATH... of SOURCE (a git URL or a local clone) at COMMIT into DEST,
# which it empties first, and writes the commit to DEST/COMMIT; fails when
# SOURCE has no such commit.
fetch_pinned() {
	local name=$1 source=$2 dest=$3 commit=$4 tmp
	shift 4
	tmp=$(mktemp -d)
	trap 'rm -rf "${tmp:-}"' EXIT RETURN
	git clone --quiet --no-checkout "$source" "$tmp/repo"
	git -C "$tmp/repo" cat-file -e "$commit^{commit}" ||
		{ echo "$name: $source has no commit $commit" >&2; return 1; }
	rm -rf "$dest"
	mkdir -p "$dest"
	git -C "$tmp/repo" archive "$commit" "$@" | tar -x -C "$dest"
	echo "$commit" >"$dest/COMMIT"
	echo "$name: $source at $commit into $dest"
}
