#!/usr/bin/env bash
# A generated block of a docs page: the lines between a line that starts
# with "<!-- generated:" (its comment may run over several lines, up to
# "-->") and the line "<!-- end of generated table -->" are a command's
# output, kept in the page so that it reads on its own. A page with
# several blocks names the one meant by text of its opening line
# (--block TEXT); without, the first.
#
#   doc-block.sh check PAGE [--block TEXT] CMD...   exit 1, naming the page,
#                                    if the block differs from CMD's output
#   doc-block.sh write PAGE [--block TEXT] CMD...   replace the block with
#                                    CMD's output
set -euo pipefail

mode=$1 page=$2
shift 2
block=
if [ "${1:-}" = --block ]; then
	block=$2
	shift 2
fi
out=$(mktemp)
trap 'rm -f "$out" "$out.page"' EXIT
"$@" >"$out"

# the page with its block replaced by the file $out; exit 2 without markers
awk -v gen="$out" -v block="$block" '
	state == 0 && /^<!-- generated:/ && index($0, block) { state = 1 }
	state == 1 { print; if (/-->/) { state = 2; while ((getline l < gen) > 0) print l } ; next }
	state == 2 && /^<!-- end of generated table -->$/ { state = 3 }
	state == 2 { next }
	{ print }
	END { if (state != 3) exit 2 }
' "$page" >"$out.page" || { echo "$page: no generated block (<!-- generated: ... <!-- end of generated table -->)" >&2; exit 2; }

case $mode in
check)
	cmp -s "$out.page" "$page" || {
		echo "$page is stale: its generated block is not the output of '$*'" >&2
		diff "$page" "$out.page" | head -20 >&2
		exit 1
	}
	;;
write)
	cmp -s "$out.page" "$page" || cp "$out.page" "$page"
	;;
*)
	echo "usage: doc-block.sh check|write PAGE CMD..." >&2
	exit 2
	;;
esac
