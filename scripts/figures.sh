#!/usr/bin/env bash
# The figures of experiments/figures.conf (its header says what a figure
# is): each made by its command into its result set,
# experiments/results/NAME/, which nobody edits by hand.
#
#   figures.sh list             every figure, its command and matrices
#   figures.sh status           every figure: current, stale (its sources
#                               changed since the commit it was made at) or
#                               never generated; exit 0 in every case
#   figures.sh check            the list parses, every figure's command
#                               exists (its make targets, or its script),
#                               every matrix it names exists; exit 1 if not
#   figures.sh run [NAME...]    regenerate those figures (default: all):
#                               build, then the matrices of all of them in
#                               one pool, then each command (those reading
#                               other figures' result sets last), its result
#                               set replaced only when the command succeeded
#   figures.sh same DIR DIR     exit 1, naming the differences, unless two
#                               result sets hold the same results: commit,
#                               date, wall and CPU times and host left out
#   figures.sh docs             rewrite the figure blocks of the pages
#   figures.sh docs-check       exit 1 naming each block that differs
#
# A result set: the files of the figure's `keep`, report.txt (what the
# command printed: its report) and provenance.json:
#   figure          the figure's name
#   command         its command, as figures.conf gives it
#   commit          HEAD when it started
#   sources_digest  the digest of its sources when it started (the
#                   sha256 of `git ls-files -s -- SOURCES` over an index
#                   holding the working tree: tracked and untracked files,
#                   ignored ones left out); for a figure whose sources lie
#                   in the result sets' folder (it reads other figures'
#                   result sets), when its command started, after every
#                   other figure of the run was made
#   sources_clean   whether those sources were the commit's (no
#                   uncommitted change in them)
#   date            when it ended, UTC
#   host_cpu        the host's CPU model; host_cores its online CPUs
#   wall_s, cpu_s   the command's wall time and its processes' user + system
#                   CPU time (VMs on libvirt hosts not counted)
#   pool            when its matrices ran in make figures' pool: the
#                   figures of that pool and its wall and CPU seconds (the
#                   command's own times then cover only its reporting)
#   connect         the libvirt hosts the pool ran on ("": this machine)
#
# Figure blocks of the pages (README.md, docs/*.md, experiments/*.md): the
# lines between "<!-- figure: NAME FILE -->" and "<!-- end of figure -->"
# are experiments/results/NAME/FILE, in a ``` fence unless FILE is
# Markdown (*.md), or, where NAME has no result set yet, the line
# "(no result set yet: make figures FIGURES=NAME)".
#
# Environment: FIGURES_OUT (the result sets' parent, default
# experiments/results), FIGURES_WORK (the work folders' parent, default
# build/figures), FIGURES_RESUME=1 (keep the work folders: finished runs
# are not run again), FIGURES_JOBS (VMs at a time in the pool, default 0:
# one per core), CONNECT (libvirt URIs for the pool; matrices that must
# run with QEMU here, injection campaigns and nvidia-uvm's, run in a
# second pool beside it), ACCEL (tcg).
#
# Run from the top of the tree.
set -euo pipefail
shopt -s nullglob

CONF=experiments/figures.conf
PAGES=(README.md docs/*.md experiments/*.md)
OUT=${FIGURES_OUT:-experiments/results}
WORK=${FIGURES_WORK:-build/figures}
KEYS=" command report matrices pool build sources keep "
NO_RESULT_SET='(no result set yet: make figures FIGURES=%s)'

die() { echo "figures.sh: $*" >&2; exit 2; }

# --- the list ---------------------------------------------------------------

declare -A F=()		# "NAME key" -> value
declare -A GROUP=()	# group name -> its pathspecs
NAMES=()

parse() {
	local line n=0 cur= last= key val
	[ -f "$CONF" ] || die "no $CONF"
	while IFS= read -r line || [ -n "$line" ]; do
		n=$((n + 1))
		case $line in
		'#'* | '') continue ;;
		[[:space:]]*)
			[ -n "$last" ] || die "$CONF:$n: a continuation line with no key above"
			line=${line#"${line%%[![:space:]]*}"}
			if [ "${last:0:1}" = @ ]; then
				GROUP[${last:1}]+=" $line"
			else
				F[$last]+=" $line"
			fi
			continue
			;;
		'['*']')
			cur=${line:1:-1}
			[[ $cur =~ ^[a-z0-9][a-z0-9-]*$ ]] || die "$CONF:$n: bad figure name '$cur'"
			! known "$cur" || die "$CONF:$n: figure $cur listed twice"
			NAMES+=("$cur")
			last=
			continue
			;;
		*=*) ;;
		*) die "$CONF:$n: not 'key = value': $line" ;;
		esac
		key=${line%%=*} val=${line#*=}
		key=${key%"${key##*[![:space:]]}"}
		val=${val#"${val%%[![:space:]]*}"}
		if [ "${key:0:1}" = @ ]; then
			[ -z "$cur" ] || die "$CONF:$n: group $key inside figure $cur"
			GROUP[${key:1}]=$val
			last=$key
			continue
		fi
		[ -n "$cur" ] || die "$CONF:$n: key $key before any [figure]"
		[[ $KEYS == *" $key "* ]] || die "$CONF:$n: unknown key '$key'"
		[ -z "${F[$cur $key]+x}" ] || die "$CONF:$n: $cur: $key given twice"
		F[$cur $key]=$val
		last="$cur $key"
	done <"$CONF"
	local f
	for f in "${NAMES[@]}"; do
		[ -n "${F[$f command]:-}" ] || die "$CONF: $f has no command"
		[ -n "${F[$f sources]:-}" ] || die "$CONF: $f has no sources"
		case ${F[$f pool]:-yes} in yes | no) ;; *) die "$CONF: $f: pool is yes or no" ;; esac
	done
}

known() {
	local f
	for f in "${NAMES[@]}"; do [ "$f" = "$1" ] && return 0; done
	return 1
}

# NAME: its matrices, one a line (patterns expanded, in the order given)
matrices() {
	local p m
	set -f
	for p in ${F[$1 matrices]:-}; do
		set +f
		m=($p)
		set -f
		[ ${#m[@]} -gt 0 ] || { set +f; die "$1: no matrix matches $p"; }
		[ -f "${m[0]}" ] || { set +f; die "$1: no matrix $p"; }
		printf '%s\n' "${m[@]}"
	done
	set +f
}

# NAME: its pathspecs, one a line (groups expanded, quotes around a word
# dropped, its matrices added)
pathspecs() {
	local w
	set -f
	for w in ${F[$1 sources]}; do
		if [ "${w:0:1}" = @ ]; then
			[ -n "${GROUP[${w:1}]+x}" ] || { set +f; die "$1: no source group $w"; }
			printf '%s\n' ${GROUP[${w:1}]}
		else
			printf '%s\n' "$w"
		fi
	done | sed -e "s/^'\(.*\)'\$/\1/" -e 's/^"\(.*\)"$/\1/'
	set +f
	matrices "$1"
}

# a matrix's name (its results folder)
matrix_name() { sed -n 's/^name *= *//p' "$1" | head -n1; }

# --- digests ----------------------------------------------------------------

TMPDIR_FIG=
cleanup() { [ -z "$TMPDIR_FIG" ] || rm -rf "$TMPDIR_FIG"; }
trap cleanup EXIT
tmpdir() {
	[ -n "$TMPDIR_FIG" ] || TMPDIR_FIG=$(mktemp -d)
}

# An index holding the working tree (git add -A into a copy of the index:
# only changed files are read), made once; WORKTREE_INDEX names it.
WORKTREE_INDEX=
worktree_index() {
	[ -z "$WORKTREE_INDEX" ] || return 0
	tmpdir
	WORKTREE_INDEX=$TMPDIR_FIG/index
	cp "$(git rev-parse --git-path index)" "$WORKTREE_INDEX" 2>/dev/null || :
	GIT_INDEX_FILE=$WORKTREE_INDEX git add -A -- . >/dev/null ||
		die "cannot read the working tree into an index"
}
HEAD_INDEX=
head_index() {
	[ -z "$HEAD_INDEX" ] || return 0
	tmpdir
	HEAD_INDEX=$TMPDIR_FIG/head-index
	GIT_INDEX_FILE=$HEAD_INDEX git read-tree HEAD
}

# NAME [INDEX]: the digest of its sources in the working tree (or INDEX)
digest() {
	local specs
	worktree_index
	mapfile -t specs < <(pathspecs "$1")
	GIT_INDEX_FILE=${2:-$WORKTREE_INDEX} git ls-files -s -- "${specs[@]}" |
		sha256sum | cut -d' ' -f1
}

# NAME: whether a source of it lies in $OUT, the result sets this run writes
reads_results() {
	local out w
	out=$(realpath -m --relative-to=. "$OUT")
	case $out in .. | ../* | /*) return 1 ;; esac
	while read -r w; do
		w=${w#:\(*\)}	# pathspec magic, ":(glob)"
		case $w in "$out"/*) return 0 ;; esac
	done < <(pathspecs "$1")
	return 1
}

# NAME: START_DIGEST and START_CLEAN, its sources as they are now
take_digest() {
	START_DIGEST[$1]=$(digest "$1")
	START_CLEAN[$1]=false
	[ "${START_DIGEST[$1]}" != "$(digest "$1" "$HEAD_INDEX")" ] || START_CLEAN[$1]=true
}

# --- list, status, check ----------------------------------------------------

cmd_list() {
	local f
	local m
	for f in "${NAMES[@]}"; do
		printf '%-22s %s\n' "$f" "${F[$f command]}"
		m=$(matrices "$f" | paste -sd' ')
		[ -z "$m" ] || printf '%-22s   matrices: %s%s\n' "" "$m" \
			"$([ "${F[$f pool]:-yes}" = no ] && echo ' (its own pools)')"
	done
}

cmd_status() {
	local f p recorded commit date state
	for f in "${NAMES[@]}"; do
		p=$OUT/$f/provenance.json
		if [ ! -f "$p" ]; then
			state="never generated"
		else
			recorded=$(jq -r '.sources_digest // ""' "$p")
			commit=$(jq -r '.commit // "?"' "$p")
			date=$(jq -r '.date // "?"' "$p")
			if [ "$recorded" = "$(digest "$f")" ]; then
				state="current (made at ${commit:0:12}, $date)"
			else
				state="stale (sources changed since ${commit:0:12}, made $date)"
			fi
		fi
		printf '%-22s %s\n' "$f" "$state"
	done
	return 0
}

# the make targets of a command line: the words after `make` that are
# neither options nor assignments, up to the end of that command
make_targets() {
	local w on=0
	set -f
	for w in $1; do
		case $w in
		make) on=1 ;;
		'&&' | '||' | ';' | '|') on=0 ;;
		-* | *=*) ;;
		*) [ $on = 1 ] && echo "$w" ;;
		esac
	done
	set +f
}

cmd_check() {
	local f t w bad=0 m name
	declare -A seen=()
	for f in "${NAMES[@]}"; do
		set -f
		read -ra w <<<"${F[$f command]}"
		set +f
		case ${w[0]} in
		make)
			for t in $(make_targets "${F[$f command]}"); do
				make -n EMBER_BUILT=1 NVIDIA_BUILT=1 "$t" >/dev/null 2>&1 ||
					{ echo "figures: $f: no make target '$t'" >&2; bad=1; }
			done
			;;
		bash | sh)
			[ -f "${w[1]}" ] || { echo "figures: $f: no script ${w[1]}" >&2; bad=1; }
			;;
		*)
			[ -x "${w[0]}" ] || { echo "figures: $f: no program ${w[0]}" >&2; bad=1; }
			;;
		esac
		for t in ${F[$f build]-all}; do
			make -n EMBER_BUILT=1 NVIDIA_BUILT=1 "$t" >/dev/null 2>&1 ||
				{ echo "figures: $f: build: no make target '$t'" >&2; bad=1; }
		done
		while read -r m; do
			name=$(matrix_name "$m")
			[ -n "$name" ] || { echo "figures: $f: $m has no name" >&2; bad=1; continue; }
			if [ "${F[$f pool]:-yes}" = yes ] && [ -n "${seen[$name]:-}" ]; then
				echo "figures: $f: matrix $name is also ${seen[$name]}'s" >&2
				bad=1
			fi
			seen[$name]=$f
		done < <(matrices "$f")
		digest "$f" >/dev/null
	done
	[ $bad = 0 ] && echo "figures: ${#NAMES[@]} figures, every command and matrix present"
	return $bad
}

# --- run --------------------------------------------------------------------

# seconds.fraction now
now() { date +%s.%N; }
# FILE: the children's user + system seconds that `times` wrote to FILE
cpu_of() {
	sed -n 2p "$1" | awk '{
		s = 0
		for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); s += a[1] * 60 + a[2] }
		printf "%.1f", s }'
}
host_cpu() { sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1; }

# MATRIX DEST: a copy of MATRIX for the pool (jobs and hosts set)
pool_copy() {
	cp "$1" "$2"
	echo "jobs     = ${FIGURES_JOBS:-0}" >>"$2"
	[ -z "${3:-}" ] || echo "connect  = $3" >>"$2"
}

# whether a matrix must run with QEMU on this machine (no libvirt hosts)
local_only() { grep -Eq '^(injects|driver *=.*nvidia-uvm)' "$1"; }

# POOLDIR CONNECT MATRIX...: one ember-agent run over the matrices
run_pool() {
	local dir=$1 connect=$2
	shift 2
	[ $# -gt 0 ] || return 0
	"$AGENT" run "$@" --qemu "$QEMU" --kernel "$KERNEL" --initrd "$INITRD" \
		--results "$dir/results" --accel "$ACCEL" \
		${NVUVM_INITRD_PRESENT:+--nvidia-uvm-initrd "$NVUVM_INITRD"} \
		>"$dir/pool${connect:+-hosts}.out"
}

# NAME: run its command, then make its result set. POOL_JSON: the pool's
# record (or null).
run_figure() {
	local f=$1 work=$WORK/$1 rc start end new dest keep k matrices_list m
	mkdir -p "$work"
	mapfile -t matrices_list < <(matrices "$f")
	echo "figures: $f: ${F[$f command]}" >&2
	start=$(now)
	set +e
	(
		export RESULTS=$work FIGURE=$f MATRICES="${matrices_list[*]}"
		# make silent: its command lines are no part of the report
		case ${MAKEFLAGS:-} in
		[a-zA-Z]*) export MAKEFLAGS="s$MAKEFLAGS" ;;
		*) export MAKEFLAGS="s${MAKEFLAGS:+ $MAKEFLAGS}" ;;
		esac
		bash -c "${F[$f command]}" >"$work.out" 2> >(tee "$work.log" >&2)
		rc=$?
		times >"$work.times"
		exit $rc
	)
	rc=$?
	set -e
	end=$(now)
	if [ $rc != 0 ]; then
		echo "figures: $f: the command failed (exit $rc; $work.log); result set unchanged" >&2
		return 1
	fi
	new=$OUT/.$f.new
	rm -rf "$new"
	mkdir -p "$new"
	if [ -n "${F[$f report]+x}" ]; then
		(export RESULTS=$work FIGURE=$f MATRICES="${matrices_list[*]}"
		 bash -c "${F[$f report]}") >"$new/report.txt" ||
			{ echo "figures: $f: its report failed; result set unchanged" >&2; return 1; }
	else
		grep -v -E -e '^(results|plot): ' -e '^make(\[[0-9]+\])?: (Entering|Leaving) directory' "$work.out" >"$new/report.txt" || :
	fi
	if [ -n "${F[$f keep]+x}" ]; then
		keep=${F[$f keep]}
	else
		keep=
		for m in "${matrices_list[@]}"; do
			keep+=" $(matrix_name "$m")/results.jsonl $(matrix_name "$m")/results.csv"
		done
	fi
	dest=$(cd "$new" && pwd)
	(
		cd "$work"
		set -f
		for k in $keep; do
			set +f
			p=($k)
			[ ${#p[@]} -gt 0 ] || echo "figures: $f: keep: nothing matches $k" >&2
			[ ${#p[@]} = 0 ] || cp --parents -- "${p[@]}" "$dest"
			set -f
		done
	) || { echo "figures: $f: keeping its files failed; result set unchanged" >&2; return 1; }
	jq -n --arg figure "$f" --arg command "${F[$f command]}" --arg commit "$START_COMMIT" \
		--arg digest "${START_DIGEST[$f]}" --argjson clean "${START_CLEAN[$f]}" \
		--arg date "$(date -u +%Y-%m-%dT%H:%M:%SZ)" --arg cpu "$(host_cpu)" \
		--argjson cores "$(nproc)" \
		--argjson wall "$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')" \
		--argjson cpus "$(cpu_of "$work.times")" \
		--argjson pool "${POOL_JSON[$f]:-null}" --arg connect "${CONNECT:-}" \
		'{figure: $figure, command: $command, commit: $commit, sources_digest: $digest,
		  sources_clean: $clean, date: $date, host_cpu: $cpu, host_cores: $cores,
		  wall_s: $wall, cpu_s: $cpus, pool: $pool, connect: $connect}' >"$new/provenance.json"
	rm -rf "${OUT:?}/$f"
	mv "$new" "$OUT/$f"
	echo "figures: $f: $OUT/$f" >&2
}

cmd_run() {
	local f sel=() pooled=() rest=() readers=() builds=() t m name bad=0 start end
	local local_m=() remote_m=() pooldir
	declare -gA START_DIGEST=() START_CLEAN=() POOL_JSON=()
	[ $# -gt 0 ] && sel=("$@") || sel=("${NAMES[@]}")
	for f in "${sel[@]}"; do
		known "$f" || die "no figure '$f' in $CONF (figures.sh list)"
		for t in ${F[$f build]-all}; do
			[[ " ${builds[*]} " == *" $t "* ]] || builds+=("$t")
		done
	done
	if [ ${#builds[@]} -gt 0 ]; then
		echo "figures: make ${builds[*]}" >&2
		make "${builds[@]}" >&2
	fi
	export ACCEL=${ACCEL:-tcg}
	export AGENT=$PWD/build/host-agent/ember-agent KERNEL=$PWD/build/images/vmlinuz
	export INITRD=$PWD/build/images/initramfs.cpio
	export NVUVM_INITRD=$PWD/build/images/initramfs-nvidia-uvm.cpio
	export QEMU=
	[ ! -f build/qemu-path ] || QEMU=$(cat build/qemu-path)
	NVUVM_INITRD_PRESENT=
	[ ! -f "$NVUVM_INITRD" ] || NVUVM_INITRD_PRESENT=1

	# the sources as they are at the start
	START_COMMIT=$(git rev-parse HEAD)
	head_index
	for f in "${sel[@]}"; do
		take_digest "$f"
	done

	# a figure reading other figures' result sets runs its command after
	# them all, also when its matrices run in the pool
	mkdir -p "$WORK" "$OUT"
	for f in "${sel[@]}"; do
		[ "${FIGURES_RESUME:-0}" = 1 ] || rm -rf "${WORK:?}/$f"
		if [ -n "${F[$f matrices]:-}" ] && [ "${F[$f pool]:-yes}" = yes ]; then
			pooled+=("$f")
		fi
		if reads_results "$f"; then
			readers+=("$f")
		else
			rest+=("$f")
		fi
	done

	# the pool: every pooled figure's matrices, each matrix's results in
	# its figure's work folder (a link in the pool's results folder); one
	# figure alone runs its matrices itself
	if [ ${#pooled[@]} -gt 1 ]; then
		pooldir=$WORK/pool
		rm -rf "$pooldir"
		mkdir -p "$pooldir/matrices" "$pooldir/results"
		for f in "${pooled[@]}"; do
			while read -r m; do
				name=$(matrix_name "$m")
				mkdir -p "$WORK/$f/$name"
				ln -s "../../$f/$name" "$pooldir/results/$name"
				if [ -n "${CONNECT:-}" ] && ! local_only "$m"; then
					pool_copy "$m" "$pooldir/matrices/$(basename "$m")" "$CONNECT"
					remote_m+=("$pooldir/matrices/$(basename "$m")")
				else
					pool_copy "$m" "$pooldir/matrices/$(basename "$m")"
					local_m+=("$pooldir/matrices/$(basename "$m")")
				fi
			done < <(matrices "$f")
		done
		echo "figures: one pool of ${#local_m[@]} matrices here${CONNECT:+ and ${#remote_m[@]} on $CONNECT} for: ${pooled[*]}" >&2
		start=$(now)
		set +e
		(
			run_pool "$pooldir" "${CONNECT:-}" "${remote_m[@]}" &
			run_pool "$pooldir" "" "${local_m[@]}"
			rc=$?
			wait $! || rc=1
			times >"$pooldir/times"
			exit $rc
		)
		[ $? = 0 ] || echo "figures: some runs of the pool did not succeed (each figure's report shows them)" >&2
		set -e
		end=$(now)
		for f in "${pooled[@]}"; do
			POOL_JSON[$f]=$(jq -cn --argjson w "$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')" \
				--argjson c "$(cpu_of "$pooldir/times")" --arg figs "${pooled[*]}" \
				'{figures: ($figs | split(" ")), wall_s: $w, cpu_s: $c}')
		done
	fi
	for f in "${rest[@]}"; do
		run_figure "$f" || bad=1
	done
	# their digest once the result sets they read are made (the working
	# tree read into the index again)
	for f in "${readers[@]}"; do
		WORKTREE_INDEX=
		take_digest "$f"
		run_figure "$f" || bad=1
	done
	return $bad
}

# --- comparing result sets --------------------------------------------------

# FILE: its contents less what may differ between two makings
comparable() {
	case $1 in
	*/provenance.json)
		jq -S 'del(.commit, .sources_digest, .sources_clean, .date, .host_cpu,
			   .host_cores, .wall_s, .cpu_s, .pool, .connect)' "$1" ;;
	*.jsonl)
		jq -cS 'del(.commit, .wall_s, .cpu_s, .host)' "$1" ;;
	*.csv)
		# the columns but commit, wall_s, cpu_s and host (fields may be
		# quoted), and but a column empty in every row: a field no run
		# has, as results.jsonl leaves it out (so a field added to the
		# record since, that none of these runs has, is no difference)
		awk '
		function split_csv(line, f,    n, i, c, q, cur) {
			n = 0; cur = ""; q = 0
			for (i = 1; i <= length(line); i++) {
				c = substr(line, i, 1)
				if (c == "\"") q = !q
				if (c == "," && !q) { f[++n] = cur; cur = "" } else cur = cur c
			}
			f[++n] = cur
			return n
		}
		{
			n = split_csv($0, f)
			if (NR == 1)
				for (i = 1; i <= n; i++) skip[i] = f[i] == "commit" || f[i] == "wall_s" || f[i] == "cpu_s" || f[i] == "host"
			else
				for (i = 1; i <= n; i++) if (f[i] != "") used[i] = 1
			line[NR] = $0
		}
		END {
			for (r = 1; r <= NR; r++) {
				n = split_csv(line[r], f)
				s = ""
				for (i = 1; i <= n; i++) if (!skip[i] && used[i]) s = s f[i] ","
				print s
			}
		}' "$1" ;;
	*)
		cat "$1" ;;
	esac
}

cmd_same() {
	local a=$1 b=$2 f bad=0
	[ -d "$a" ] && [ -d "$b" ] || die "same: two result sets, please"
	diff <(cd "$a" && find . -type f | sort) <(cd "$b" && find . -type f | sort) >&2 ||
		{ echo "figures: $a and $b hold different files" >&2; return 1; }
	while read -r f; do
		if ! diff -u <(comparable "$a/$f") <(comparable "$b/$f") >"${TMPDIR:-/tmp}/figures-diff.$$" 2>&1; then
			echo "figures: $f differs:" >&2
			head -n 40 "${TMPDIR:-/tmp}/figures-diff.$$" >&2
			bad=1
		fi
	done < <(cd "$a" && find . -type f | sort)
	rm -f "${TMPDIR:-/tmp}/figures-diff.$$"
	[ $bad = 0 ] && echo "figures: $a and $b hold the same results"
	return $bad
}

# --- docs blocks ------------------------------------------------------------

# PAGE: the page with every figure block rewritten; exit 1 on a bad block
rewrite_page() {
	local page=$1
	awk -v out="$OUT" -v none="$NO_RESULT_SET" -v names=" ${NAMES[*]} " '
	function fail(msg) { printf "%s:%d: %s\n", FILENAME, FNR, msg > "/dev/stderr"; bad = 1 }
	function body(name, file,    path, line, md) {
		if (index(names, " " name " ") == 0) { fail("no figure " name " in experiments/figures.conf"); return }
		if (file ~ /(^|\/)\.\.(\/|$)/ || file ~ /^\//) { fail("bad file " file); return }
		path = out "/" name "/" file
		if ((getline line < (out "/" name "/provenance.json")) <= 0) {
			printf none "\n", name
			return
		}
		close(out "/" name "/provenance.json")
		md = file ~ /\.md$/
		if ((getline line < path) < 0) { fail(path " does not exist"); return }
		close(path)
		if (!md) print "```"
		while ((getline line < path) > 0) print line
		close(path)
		if (!md) print "```"
	}
	inblock && /^<!-- end of figure -->$/ { inblock = 0; print; next }
	inblock { next }
	/^<!-- figure: / {
		print
		if (NF != 5 || $5 != "-->") { fail("not <!-- figure: NAME FILE -->"); next }
		body($3, $4)
		inblock = 1
		start = FNR
		next
	}
	/^<!-- end of figure -->$/ { fail("an end of figure with no start") }
	{ print }
	END {
		if (inblock) { FNR = start; fail("a figure block with no end") }
		exit bad
	}' "$page"
}

cmd_docs() {
	local mode=$1 page bad=0 n
	tmpdir
	for page in "${PAGES[@]}"; do
		grep -q '^<!-- figure: ' "$page" || continue
		rewrite_page "$page" >"$TMPDIR_FIG/page" || { bad=1; continue; }
		cmp -s "$TMPDIR_FIG/page" "$page" && continue
		if [ "$mode" = write ]; then
			cat "$TMPDIR_FIG/page" >"$page"
			echo "figures: rewrote $page" >&2
		else
			echo "figures: $page: a figure block differs from its result set (make figures-docs)" >&2
			bad=1
		fi
	done
	n=$(cat "${PAGES[@]}" | grep -c '^<!-- figure: ' || :)
	[ $bad = 0 ] && [ "$mode" = check ] && echo "figures: $n figure blocks, each as its result set"
	return $bad
}

# ----------------------------------------------------------------------------

[ -d .git ] || [ -f .git ] || die "run from the top of the tree"
mode=${1:-status}
[ $# = 0 ] || shift
parse
case $mode in
list) cmd_list ;;
status) cmd_status ;;
check) cmd_check ;;
run) cmd_run "$@" ;;
same) [ $# = 2 ] || die "usage: figures.sh same DIR DIR"; cmd_same "$1" "$2" ;;
docs) cmd_docs write ;;
docs-check) cmd_docs check ;;
*) die "usage: figures.sh list|status|check|run [NAME...]|same DIR DIR|docs|docs-check" ;;
esac
