# KTAP results for the shell test scripts; sourced, never run.
# n, failed and skipped count the checks so far (a script may save and
# restore them around checks it runs for another purpose).
n=0 failed=0 skipped=0

# check NAME COMMAND...: "ok N NAME" when the command succeeds, otherwise
# "not ok N NAME" and the last lines of its output as comments.
check() {
	local name=$1 out
	shift
	n=$((n + 1))
	if out=$("$@" 2>&1); then
		echo "ok $n $name"
	else
		failed=$((failed + 1))
		echo "not ok $n $name"
		sed 's/^/    # /' <<<"$out" | tail -n 8
	fi
}

# skip NAME REASON: "ok N NAME # SKIP REASON", the KTAP form of a check
# that did not run; counted apart, never as passed.
skip() {
	n=$((n + 1))
	skipped=$((skipped + 1))
	echo "ok $n $1 # SKIP $2"
}

# ktap_summary: "N passed, M failed, K skipped"; fails when any check did.
ktap_summary() {
	echo "$((n - failed - skipped)) passed, $failed failed, $skipped skipped"
	[ "$failed" = 0 ]
}
