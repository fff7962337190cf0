#!/usr/bin/env bash
# Multi-host test: two libvirt hosts on this machine, each a libvirtd in a
# network namespace this test creates (scripts/netns-hosts.sh), reached as
# qemu+tcp:// URIs over a veth pair on private addresses (10.213.H.0/30: no
# traffic leaves the machine). A small matrix spread over both must give
# results identical to the same matrix run here with QEMU directly, run by
# run (trace hash, device counters, the guest's results: everything but
# host and wall time). Then the same matrix again with host 1 killed (its
# libvirtd and its QEMU) once its first run is under way: the run is
# rescheduled on host 2, every run is recorded exactly once, and the
# results are identical again. Namespaces, daemons and their QEMUs go on
# exit, failed or not.
#
# usage: run-test.sh AGENT QEMU KERNEL INITRD WORKDIR
set -uo pipefail

agent=$1 qemu=$2 kernel=$3 initrd=$4 work=$5
hosts=(1 2)
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

top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/scripts/netns-hosts.sh"
ns_of() { netns_host_ns "$1"; }
uri_of() { netns_host_uri "$1"; }
kill_host() { netns_host_kill "$1"; }
start_host() { netns_host_start "$1" "$work/host$1"; }

cleanup() {
	local h

	[ -n "${agent_pid:-}" ] && kill "$agent_pid" 2>/dev/null
	for h in "${hosts[@]}"; do
		netns_host_stop "$h"
	done
}
trap cleanup EXIT

# results.jsonl without what may differ between hosts, one line a run, by id.
comparable() {
	jq -cS 'del(.host, .wall_s, .cpu_s)' "$1" | sort
}

# matrix.conf NAME [CONNECT...]
# The assumed rule for the driver's CPU time: a libvirt domain is not the
# machine `ember-agent run` starts itself (libvirt adds its own devices and
# serial ports), so the guest executes other instructions, and measured
# charges would differ between the pools for that alone; what this test
# checks is the spreading, the same under either rule.
write_matrix() {
	local file=$1 name=$2
	shift 2
	cat >"$file" <<-CONF
	name     = $name
	profile  = h200-64m
	apps     = stream
	variants = uvm mapped
	factors  = 0.5 1.5
	seeds    = 1 2
	memory   = 512
	timeout  = 180
	jobs     = 1
	driver_cost = assumed
	CONF
	[ $# -gt 0 ] && echo "connect  = $*" >>"$file"
}

run_agent() {	# conf: runs it, output in $work/NAME.out, returns its status
	"$agent" run "$1" --qemu "$qemu" --kernel "$kernel" --initrd "$initrd" \
		--results "$work/results" >"$work/$(basename "$1" .conf).out" 2>&1
}

echo "KTAP version 1"
echo "1..12"
rm -rf "$work"
mkdir -p "$work"
runs=8

up=0
for h in "${hosts[@]}"; do
	if start_host "$h"; then
		up=$((up + 1))
	else
		echo "# host $h: $(tail -n 3 "$work/host$h/libvirtd.log" "$work/host$h/libvirtd.out" 2>&1)"
	fi
done
if [ "$up" = "${#hosts[@]}" ]; then
	report ok "two libvirtd hosts in their own network namespaces, on $(uri_of 1) and $(uri_of 2)"
else
	report fail "two libvirtd hosts in their own network namespaces" "$up of ${#hosts[@]} up"
fi

# the reference: QEMU directly, here
write_matrix "$work/local.conf" local
sed -i 's/^jobs .*/jobs     = 2/' "$work/local.conf"
run_agent "$work/local.conf"
rc=$?
local_n=$(wc -l <"$work/results/local/results.jsonl" 2>/dev/null || echo 0)
local_ok=$(grep -c '"status":"ok"' "$work/results/local/results.jsonl" 2>/dev/null)
local_hashes=$(jq -r '.device.trace_hash // empty' "$work/results/local/results.jsonl" 2>/dev/null | sort -u | wc -l)
if [ "$rc" = 0 ] && [ "$local_n" = "$runs" ] && [ "$local_ok" = "$runs" ] && [ "$local_hashes" -ge 2 ]; then
	report ok "the local run: $runs runs ok, $local_hashes distinct trace hashes"
else
	report fail "the local run" "rc $rc, $local_n lines, $local_ok ok, $local_hashes hashes: $(tail -n 5 "$work/local.out")"
fi

# spread over both hosts, as one pool of two matrices (a seed each)
for seed in 1 2; do
	write_matrix "$work/spread$seed.conf" "spread$seed" "$(uri_of 1)" "$(uri_of 2)"
	sed -i "s/^seeds .*/seeds    = $seed/" "$work/spread$seed.conf"
done
"$agent" run "$work/spread1.conf" "$work/spread2.conf" --qemu "$qemu" --kernel "$kernel" \
	--initrd "$initrd" --results "$work/results" >"$work/spread.out" 2>&1
rc=$?
res=$work/spread.jsonl
cat "$work/results/spread1/results.jsonl" "$work/results/spread2/results.jsonl" >"$res" 2>/dev/null
on1=$(grep -c "\"host\":\"$(uri_of 1)\"" "$res" 2>/dev/null)
on2=$(grep -c "\"host\":\"$(uri_of 2)\"" "$res" 2>/dev/null)
if [ "$rc" = 0 ] && [ "$on1" -ge 1 ] && [ "$on2" -ge 1 ] && [ $((on1 + on2)) = "$runs" ]; then
	report ok "two matrices in one pool spread over both hosts: $on1 runs on host 1, $on2 on host 2"
else
	report fail "the matrix spread over both hosts" "rc $rc, $on1 + $on2 runs: $(tail -n 5 "$work/spread.out")"
fi
d=$(diff <(comparable "$work/results/local/results.jsonl") <(comparable "$res") 2>&1)
if [ -n "$(comparable "$res")" ] && [ -z "$d" ]; then
	report ok "spread results identical to the local run's, run by run (trace hashes, counters, results)"
else
	report fail "spread results identical to the local run's" "$(head -c 1500 <<<"$d")"
fi
# Each spread domain was ended by the agent, its console streams closed
# first (libvirt 9.0 can deadlock when a console stream closes as its
# domain goes): the console's last line is the guest's EM_VM_END_LINE. A
# guest that powered off by itself would end it with the kernel's
# "reboot: Power down".
ended=0 consoles=0 last=
for c in "$work"/results/spread[12]/runs/*/console.log; do
	[ -f "$c" ] || continue
	consoles=$((consoles + 1))
	l=$(tr -d '\r' <"$c" | grep -v '^$' | tail -n 1)
	if [ "$l" = "ember: end of boot" ]; then
		ended=$((ended + 1))
	else
		last="$c: $l"
	fi
done
if [ "$consoles" = "$runs" ] && [ "$ended" = "$runs" ]; then
	report ok "every spread domain ended by the agent after its console streams closed ($ended of $runs)"
else
	report fail "every spread domain ended by the agent after its console streams closed" \
		"$ended of $consoles consoles end with the guest's last line ($runs runs); $last"
fi

# Host 1 lost once its first run is under way, on the matrix's runs of
# one seed (4 runs): "kill" (its daemon and QEMU die: the connection resets), or
# "freeze" (they stop, the connection stays open and silent: keepalive
# finds it). The run goes to host 2, every run is recorded once, and the
# results are the local run's.
lose_host() {	# kill|freeze SEED
	local how=$1 seed=$2 conf=$work/$1.conf res=$work/results/$1/results.jsonl
	local lost lines ids okn on2 d rc started

	write_matrix "$conf" "$how" "$(uri_of 1)" "$(uri_of 2)"
	sed -i "s/^seeds .*/seeds    = $seed/" "$conf"
	started=$(date +%s)
	"$agent" run "$conf" --qemu "$qemu" --kernel "$kernel" --initrd "$initrd" \
		--results "$work/results" >"$work/$how.out" 2>&1 &
	agent_pid=$!
	lost_at=none
	for _ in $(seq 300); do
		# host 1 runs a domain (created and resumed): its first run is under way
		if [ -n "$(virsh -c "$(uri_of 1)" list --state-running --name 2>/dev/null)" ]; then
			sleep 2
			if [ "$how" = kill ]; then
				kill_host 1
			else
				kill -STOP $(ip netns pids "$(ns_of 1)") 2>/dev/null
			fi
			lost_at=$(($(date +%s) - started))
			break
		fi
		sleep 0.2
	done
	wait "$agent_pid"
	rc=$?
	agent_pid=
	lost=$(grep -c "went away after" "$work/$how.out")
	if [ "$lost_at" != none ] && [ "$lost" = 1 ] &&
	   grep -q "libvirt host $(uri_of 1) went away" "$work/$how.out"; then
		report ok "host 1 lost by $how at $lost_at s: its run named as lost, the host as gone"
	else
		report fail "host 1 lost by $how" "lost at $lost_at s, $lost runs lost: $(tail -n 8 "$work/$how.out")"
	fi
	lines=$(wc -l <"$res" 2>/dev/null || echo 0)
	ids=$(jq -r .id "$res" 2>/dev/null | sort -u | wc -l)
	okn=$(grep -c '"status":"ok"' "$res" 2>/dev/null)
	on2=$(grep -c "\"host\":\"$(uri_of 2)\"" "$res" 2>/dev/null)
	if [ "$rc" = 0 ] && [ "$lines" = 4 ] && [ "$ids" = 4 ] && [ "$okn" = 4 ] && [ "$on2" = 4 ]; then
		report ok "$how: every run recorded once: 4 of 4 ok, all on host 2"
	else
		report fail "$how: every run recorded once" "rc $rc, $lines lines, $ids ids, $okn ok, $on2 on host 2: $(tail -n 5 "$work/$how.out")"
	fi
	d=$(diff <(comparable "$work/results/local/results.jsonl" | grep "\"seed\":$seed,") \
		 <(comparable "$res") 2>&1)
	if [ -n "$(comparable "$res")" ] && [ -z "$d" ]; then
		report ok "$how: results identical to the local run's, run by run"
	else
		report fail "$how: results identical to the local run's" "$(head -c 1500 <<<"$d")"
	fi
}

lose_host kill 1
# a fresh host 1 for the next
netns_host_stop 1
mv "$work/host1" "$work/host1.killed"	# its state names the killed domain
if ! start_host 1; then
	echo "# host 1 did not start again: $(tail -n 3 "$work/host1/libvirtd.log")"
fi
lose_host freeze 2
# nothing of the lost run stays on host 2 either: no domain left there
left=$(virsh -c "$(uri_of 2)" list --all --name 2>&1 | grep -c .)
if [ "$left" = 0 ]; then
	report ok "no domain left on host 2"
else
	report fail "no domain left on host 2" "$(virsh -c "$(uri_of 2)" list --all 2>&1)"
fi

cleanup
trap - EXIT
echo "$((n - failed)) passed, $failed failed, 0 skipped"	# it skips no check
[ "$failed" = 0 ]
