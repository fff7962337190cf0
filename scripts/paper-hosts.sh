#!/usr/bin/env bash
# make paper-hosts: make paper's pool twice, first with QEMU on this
# machine (PAPER_JOBS VMs at a time, default one per core), then spread
# over libvirt hosts (one pool over all of them: CONNECT's URIs, or else
# PAPER_HOSTS hosts in network namespaces on this machine,
# scripts/netns-hosts.sh, each taking HOST_JOBS VMs at a time); then both
# wall times side by side and every run of the second compared with the
# first's, result by result (trace hash, every device counter, the guest's
# results; all but host and wall time). Exit 1 if a run differs or is
# missing. PAPER_MATRICES and PAPER_SIZE as for make paper (a subset, a
# smaller card: the whole of make paper takes hours a pool).
#
# usage: paper-hosts.sh AGENT QEMU KERNEL INITRD RESULTS ACCEL
set -uo pipefail

agent=$1 qemu=$2 kernel=$3 initrd=$4 results=$5 accel=$6
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/netns-hosts.sh"
cores=$(nproc)
hosts=()

cleanup() {
	local h
	for h in "${hosts[@]}"; do
		netns_host_stop "$h"
	done
}
trap cleanup EXIT

mkdir -p "$results"
# pool NAME: make paper into $results/NAME; its wall time on stdout
pool() {
	local dir=$results/$1 start
	start=$(date +%s)
	bash "$top/scripts/paper.sh" "$agent" "$qemu" "$kernel" "$initrd" "$dir" "$accel" \
		>"$results/$1.out" 2>&1
	echo "$(($(date +%s) - start))"
}

local_jobs=${PAPER_JOBS:-$cores}
local_s=$(PAPER_JOBS=$local_jobs CONNECT= pool local)

connect=${CONNECT:-}
if [ -z "$connect" ]; then
	for h in $(seq "${PAPER_HOSTS:-2}"); do
		netns_host_start "$h" "$results/host$h" ||
			{ echo "paper-hosts.sh: host $h did not start: $(tail -n 3 "$results/host$h/libvirtd.log")" >&2; exit 1; }
		hosts+=("$h")
		connect="$connect $(netns_host_uri "$h")"
	done
	connect=${connect# }
fi
host_jobs=${HOST_JOBS:-1}
hosts_s=$(PAPER_JOBS=$host_jobs CONNECT=$connect pool hosts)
cleanup
hosts=()

# every run of every matrix, less what may differ between hosts: where
# it ran and how long (both back ends pass the guest the host's digest of
# the outputs, so each run is checked the same way on both)
comparable() {
	local f
	for f in "$1"/*/results.jsonl; do
		jq -cS 'del(.host, .wall_s, .cpu_s)' "$f"
	done | sort
}
# "N by digest, M by reference" of a pool
verified_by() {
	cat "$1"/*/results.jsonl | jq -r '.run.verified_by // "not-stated"' | sort | uniq -c |
		awk '{ printf "%s%d by %s", (NR > 1 ? ", " : ""), $1, $2 }'
}
a=$(comparable "$results/local")
b=$(comparable "$results/hosts")
na=$(grep -c . <<<"$a") nb=$(grep -c . <<<"$b")
same=$(comm -12 <(echo "$a") <(echo "$b") | grep -c .)
ok=$(grep -c '"status":"ok"' <<<"$a")
n_hosts=$(wc -w <<<"$connect")
{
	echo "make paper, ${PAPER_MATRICES:-every matrix} at ${PAPER_SIZE:-512m}, on a $cores-core machine:"
	printf '  %-44s %6d s  %d runs, %d ok; verified: %s\n' "this machine, $local_jobs VMs at a time" \
		"$local_s" "$na" "$ok" "$(verified_by "$results/local")"
	printf '  %-44s %6d s  %d runs; verified: %s\n' "$n_hosts libvirt hosts, $host_jobs VM each at a time" \
		"$hosts_s" "$nb" "$(verified_by "$results/hosts")"
	echo "  runs whose result is the same on both (trace hash, counters, results, how checked): $same of $na"
	echo "  hosts: $connect"
} | tee "$results/walltimes.txt"
[ "$na" -gt 0 ] && [ "$same" = "$na" ] && [ "$nb" = "$na" ]
