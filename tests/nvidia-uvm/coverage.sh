#!/usr/bin/env bash
# Every UVM_TEST_* ioctl of a branch's uvm_test_ioctl.h is either issued by
# the runner (tests/nvidia-uvm/uvm-builtin-tests.c) or listed, with the
# reason, in docs/nvidia-uvm.md's "Not run" table; none is both.
#
#   coverage.sh UVM_TEST_IOCTL_H RUNNER_C DOC_MD
# Prints one line per problem; exit status 1 if there is one.
set -euo pipefail
header=$1 runner=$2 doc=$3

ioctls=$(sed -n 's/^#define \(UVM_TEST_[A-Z0-9_]*\) *UVM_TEST_IOCTL_BASE(.*/\1/p' "$header" | sort -u)
# the runner names a test as TEST(ID, ...), TEST_CHECKED(ID, ...) or UVM_TEST_ID
run=$( { grep -o 'TEST\(_CHECKED\)\?([A-Z0-9_]*' "$runner" | sed 's/.*(/UVM_TEST_/'
	grep -o 'UVM_TEST_[A-Z0-9_]*' "$runner"; } | sort -u)
# the rows of the doc's "Not run, and why" table: | `UVM_TEST_ID` | why |
# (other tables of the page may name tests that run)
skipped=$(sed -n '/^### Not run, and why/,/^#/ s/^| `\(UVM_TEST_[A-Z0-9_]*\)` |.*/\1/p' "$doc" | sort -u)
bad=0
while read -r t; do
	r=0 s=0
	grep -qxF "$t" <<<"$run" && r=1
	grep -qxF "$t" <<<"$skipped" && s=1
	if [ $r = 0 ] && [ $s = 0 ]; then
		echo "$t: neither run nor listed as not run in $doc"
		bad=1
	elif [ $r = 1 ] && [ $s = 1 ]; then
		echo "$t: run, yet listed as not run in $doc"
		bad=1
	fi
done <<<"$ioctls"
[ $bad = 0 ] && echo "$(wc -l <<<"$ioctls") ioctls: $(comm -12 <(echo "$ioctls") <(echo "$run") | wc -l) run, $(comm -12 <(echo "$ioctls") <(echo "$skipped") | wc -l) not run, each with its reason"
exit $bad
