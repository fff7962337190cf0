#!/bin/bash
# SPDX-License-Identifier: MIT
# scripts/docs-tables.sh on a repository made here: a figure naming a
# commit whose sources differ from HEAD's fails the check until it is
# marked stale; a marked figure whose sources are HEAD's fails too; a
# change to NVIDIA's series or glue stales only the figures that name
# nvidia-uvm; the real tree's docs pass.
#
# usage: test-docs-tables.sh WORKDIR   (run from the top of the tree)
set -u
top=$PWD script=$PWD/scripts/docs-tables.sh work=$1
. scripts/ktap.sh
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
git init -q . && git config user.email t@t && git config user.name t
mkdir -p docs models
echo 'int a;' >models/a.c && echo '# t' >README.md
git add . && git commit -qm one
# the whole hash: the script takes a word for a commit only when it has
# a letter and a digit, and a short one is all digits now and then
one=$(git rev-parse HEAD)
printf '# Page\n\nMeasured at %s (trace hash 22c56ae94aac920c):\n\n| a | b |\n|---|---|\n| 1 | 2 |\n' \
	"$one" >docs/page.md
git add . && git commit -qm docs

echo "1..7"
check "a figure naming a commit with HEAD's sources is current" bash "$script" check
check "a docs-only commit keeps it current" \
	bash -c "echo more >>README.md && git commit -qam readme && bash '$script' check"
echo 'int b;' >models/a.c && git commit -qam model
check "a model change since the named commit fails the check" \
	bash -c "! bash '$script' check 2>&1 && bash '$script' check 2>&1 | grep -q 'docs/page.md:5: stale (sources changed since $one)'"
check "label marks it and the check passes" \
	bash -c "bash '$script' label >/dev/null && grep -qx '> Stale: .*$one.*' docs/page.md && bash '$script' check"
echo 'int a;' >models/a.c && git commit -qam back
check "a marked figure whose sources are HEAD's again fails" \
	bash -c "! bash '$script' check 2>/dev/null && bash '$script' label >/dev/null && ! grep -q '^> Stale:' docs/page.md"
mkdir -p guest-kmod/nvidia-uvm/glue && echo 'int g;' >guest-kmod/nvidia-uvm/glue/g.c && git add . && git commit -qm glue
printf '\nThe same runs under nvidia-uvm, at %s:\n\n| c |\n|---|\n| 3 |\n' "$(git rev-parse HEAD)" \
	>>docs/page.md && git commit -qam nvidia-docs
echo 'int h;' >guest-kmod/nvidia-uvm/glue/g.c && git commit -qam glue-again
check "a glue change stales the figure naming nvidia-uvm, not the other" \
	bash -c "bash '$script' list | grep -qx 'docs/page.md:5: current; names $one' &&
		bash '$script' list | grep -q '^docs/page.md:11: stale'"
cd "$top" || exit 1
if [ "$(git rev-parse --is-shallow-repository)" = true ]; then
	skip "this tree's docs" "a shallow clone: its history cannot name the commits"
else
	check "this tree's docs: every figure naming a changed commit is marked" bash "$script" check
fi
ktap_summary
