#!/usr/bin/env bash
# libvirt test: starts a private libvirtd as this test's own service, runs
# one small matrix job through `ember-agent run` with `connect = <its URI>`,
# checks an unreachable URI is named in a clear error, and stops the daemon.
#
# The daemon must not touch the machine's libvirt: it runs in its own mount
# namespace where /etc/libvirt is a private copy (QEMU as root, no security
# driver, logs to files), with its sockets in the test's directory.
#
# usage: run-test.sh AGENT QEMU KERNEL INITRD WORKDIR
set -uo pipefail

agent=$1 qemu=$2 kernel=$3 initrd=$4 work=$5
. "$(cd "$(dirname "$0")/../.." && pwd)/scripts/netns-hosts.sh"
n=0 failed=0

report() {	# ok|fail name [diagnostic]
	n=$((n + 1))
	if [ "$1" = ok ]; then
		echo "ok $n $2"
	else
		failed=$((failed + 1))
		echo "not ok $n $2"
		[ -n "${3:-}" ] && sed 's/^/    # /' <<<"$3"
	fi
}

echo "KTAP version 1"
echo "1..3"
rm -rf "$work"
mkdir -p "$work/etc"
cp -a /etc/libvirt/. "$work/etc/"
libvirt_private_qemu_conf "$work/etc/qemu.conf"
cat >"$work/etc/libvirtd.conf" <<CONF
unix_sock_dir = "$work"
unix_sock_ro_perms = "0700"
unix_sock_rw_perms = "0700"
auth_unix_rw = "none"
auth_unix_ro = "none"
log_outputs = "3:file:$work/libvirtd.log"
CONF

unshare -m sh -c "mount --bind '$work/etc' /etc/libvirt &&
	exec libvirtd --config /etc/libvirt/libvirtd.conf --pid-file '$work/libvirtd.pid'" \
	>"$work/libvirtd.out" 2>&1 &
daemon=$!
trap 'kill $daemon 2>/dev/null; wait $daemon 2>/dev/null' EXIT
for _ in $(seq 100); do
	[ -S "$work/libvirt-sock" ] && break
	sleep 0.1
done
uri="qemu:///system?socket=$work/libvirt-sock"
if [ -S "$work/libvirt-sock" ]; then
	report ok "libvirtd started as the test's own service"
else
	report fail "libvirtd started as the test's own service" "$(tail -n 5 "$work/libvirtd.log" "$work/libvirtd.out" 2>&1)"
fi

cat >"$work/job.conf" <<CONF
name     = libvirt-job
profile  = h200-128m
apps     = stream
variants = mapped
factors  = 0.5
memory   = 512
timeout  = 120
connect  = $uri
CONF
out=$("$agent" run "$work/job.conf" --qemu "$qemu" --kernel "$kernel" \
	--initrd "$initrd" --results "$work/results" 2>&1)
rc=$?
line=$(cat "$work/results/libvirt-job/results.jsonl" 2>/dev/null)
if [ "$rc" = 0 ] && grep -q '"status":"ok"' <<<"$line" &&
   grep -q "\"host\":\"$uri\"" <<<"$line" && grep -q '"mismatches":0' <<<"$line"; then
	report ok "one job through --connect $uri"
else
	report fail "one job through libvirt" "rc $rc: $out
$line"
fi

sed -i "s|^connect .*|connect  = qemu:///system?socket=$work/no-such-sock|" "$work/job.conf"
rm -rf "$work/results"
out=$("$agent" run "$work/job.conf" --qemu "$qemu" --kernel "$kernel" \
	--initrd "$initrd" --results "$work/results" 2>&1)
rc=$?
if [ "$rc" != 0 ] && grep -q "cannot connect to libvirt at qemu:///system?socket=$work/no-such-sock" <<<"$out"; then
	report ok "an unreachable URI is refused by name"
else
	report fail "an unreachable URI is refused by name" "rc $rc: $out"
fi

kill "$daemon" 2>/dev/null
wait "$daemon" 2>/dev/null
trap - EXIT
echo "$((n - failed)) passed, $failed failed, 0 skipped"	# it skips no check
[ "$failed" = 0 ]
