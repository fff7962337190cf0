#!/usr/bin/env bash
# The figures of the docs (Markdown pipe tables and fenced blocks) that
# name a commit, checked against HEAD: a figure is current when every
# commit its caption (the paragraph before it) or its body names has the
# sources of HEAD that its runs execute, stale otherwise. Every run
# executes SOURCES (the model, device, ember.ko, the core, the runner, the
# guest's programs and images); a figure whose caption or body names
# nvidia-uvm, NVIDIA, nvidia-vm-test or a driver branch (its runs, or some
# of them, load NVIDIA's module: every report and command of such runs
# names one of those) executes NVIDIA_SOURCES as well. A stale figure must say
# so in a line of its own directly before it, "> Stale: ...", which
# `label` writes; a current one must not.
#
#   docs-tables.sh list    every figure that names a commit, current or stale
#   docs-tables.sh check   exit 1 naming each stale figure without its line,
#                          and each current one with it
#   docs-tables.sh label   write (or drop) the "> Stale:" lines to match
#
# Run from the top of the tree; needs the whole history (a shallow clone
# cannot tell a commit from a trace hash, so it is refused).
set -euo pipefail

shopt -s nullglob
PAGES=(README.md docs/*.md experiments/*.md)
SOURCES=(models qemu-device guest-kmod/ember policy userspace workloads host-agent
	images ':(exclude)images/nvidia-uvm' ':(exclude)images/nvidia')
# Under nvidia/ the series and the glue (the scripts beside them only
# build it, and build.sh's own key rebuilds the modules when they change),
# not the real-card image; the resource-manager stand-in; the image
# nvidia-uvm runs boot; under tests/nvidia-uvm/ the guest programs that
# image carries, not make nvidia-vm-test's scripts.
NVIDIA_SOURCES=(guest-kmod/emgpu-rm guest-kmod/nvidia-uvm/branches guest-kmod/nvidia-uvm/glue images/nvidia-uvm
	':(glob)tests/nvidia-uvm/*.[ch]')
STALE_PREFIX='> Stale:'

mode=${1:-check}
if [ "$(git rev-parse --is-shallow-repository)" = true ]; then
	echo "docs-tables.sh: a shallow clone; fetch the history (git fetch --unshallow)" >&2
	exit 2
fi

# FILE LINE LABELLED NVIDIA WORD... per figure: the line where it starts,
# whether a stale line precedes it (1/0), whether it names nvidia-uvm
# (1/0), the hex words of its caption and body
figures() {
	awk -v prefix="$STALE_PREFIX" '
	function hexes(s,   out, n, i, a) {
		out = ""
		n = split(s, a, /[^0-9a-f]+/)
		for (i = 1; i <= n; i++)
			if (length(a[i]) >= 7 && length(a[i]) <= 40 && a[i] ~ /[a-f]/ && a[i] ~ /[0-9]/)
				out = out " " a[i]
		return out
	}
	function start() { fig = FNR; body = ""; cap = prevpara; lab = labelled }
	function flush(   h) {
		h = hexes(cap " " body)
		if (h != "") print FILENAME, fig, lab, ((cap " " body) ~ /nvidia-uvm|nvuvm|nvidia-vm-test|NVIDIA|535\.261|550\.163/ ? 1 : 0) h
		fig = 0; para = ""; prevpara = ""; labelled = 0
	}
	FNR == 1 { para = ""; prevpara = ""; fence = 0; table = 0; fig = 0; labelled = 0 }
	fence { body = body " " $0; if (/^```/) { fence = 0; flush() }; next }
	/^```/ { if (para != "") prevpara = para; start(); fence = 1; next }
	/^\|/ { if (!table) { if (para != "") prevpara = para; start(); table = 1 }; body = body " " $0; next }
	table { table = 0; flush() }
	/^#/ { para = ""; prevpara = ""; labelled = 0; next }
	/^[ \t]*$/ { if (para != "") { prevpara = para; para = "" }; next }
	index($0, prefix) == 1 { labelled = 1; next }
	{ if (para == "") labelled = 0; para = para " " $0 }
	END { if (table) flush() }
	' "${PAGES[@]}"
}

# prints those of the words that name a commit
commits_of() {
	local w
	for w in "$@"; do
		git rev-parse --verify --quiet "$w^{commit}" >/dev/null 2>&1 && printf '%s ' "$w"
	done
	return 0
}

# NVIDIA WORD...: prints the first commit among the words whose sources
# (NVIDIA 1: NVIDIA_SOURCES too) differ from HEAD's
stale_commit() {
	local w c sources=("${SOURCES[@]}")
	[ "$1" = 1 ] && sources+=("${NVIDIA_SOURCES[@]}")
	shift
	for w in "$@"; do
		c=$(git rev-parse --verify --quiet "$w^{commit}" 2>/dev/null) || continue
		git diff --quiet "$c" HEAD -- "${sources[@]}" || { echo "$w"; return 0; }
	done
	return 1
}

# COMMIT: the line a figure stale since COMMIT carries
stale_line() {
	echo "$STALE_PREFIX the model, device, driver or runner sources changed after $1, which this figure names; re-run its command to make it current."
}

bad=0 n=0 nstale=0
declare -A want	# "FILE:LINE" -> the stale line it needs ("" when current)
while read -r file line labelled nvidia words; do
	read -ra commits <<<"$(commits_of $words)"
	[ ${#commits[@]} -gt 0 ] || continue
	n=$((n + 1))
	if c=$(stale_commit "$nvidia" "${commits[@]}"); then
		nstale=$((nstale + 1))
		state="stale (sources changed since $c)"
		want["$file:$line"]=$(stale_line "$c")
	else
		state=current
		want["$file:$line"]=""
	fi
	case $mode in
	list)
		echo "$file:$line: $state; names ${commits[*]}"
		;;
	check)
		if [ -n "${want[$file:$line]}" ] && [ "$labelled" = 0 ]; then
			echo "$file:$line: $state but not marked '$STALE_PREFIX' (scripts/docs-tables.sh label)" >&2
			bad=1
		elif [ -z "${want[$file:$line]}" ] && [ "$labelled" = 1 ]; then
			echo "$file:$line: current but marked '$STALE_PREFIX'" >&2
			bad=1
		fi
		;;
	esac
done < <(figures)

if [ "$mode" = label ]; then
	# drop every stale line, then put one before each stale figure; line
	# numbers are those of the page without stale lines, so go again
	for page in "${PAGES[@]}"; do
		grep -q "^$STALE_PREFIX" "$page" || continue
		awk -v p="$STALE_PREFIX" '
			index($0, p) == 1 { skip = 1; next }
			skip && /^[ \t]*$/ { skip = 0; next }
			{ skip = 0; print }' "$page" >"$page.tmp" && mv "$page.tmp" "$page"
	done
	while read -r file line labelled nvidia words; do
		read -ra commits <<<"$(commits_of $words)"
		[ ${#commits[@]} -gt 0 ] || continue
		c=$(stale_commit "$nvidia" "${commits[@]}") || continue
		echo "$file $line $(stale_line "$c")"
	done < <(figures) | sort -k1,1 -k2,2nr | while read -r file line text; do
		sed -i "${line}i\\
$text\\
" "$file"
	done
	exec "$0" check
fi

[ "$mode" = check ] && echo "docs-tables: $n figures name a commit, $nstale stale (each marked), $((n - nstale)) current"
exit $bad
