# Libvirt hosts on this machine, each a private libvirtd in a network
# namespace of its own, reached as qemu+tcp:// URIs over a veth pair on
# private addresses (host H: 10.213.H.1 here, 10.213.H.2 in its namespace;
# no traffic leaves the machine). Sourced, never run; needs root, ip(8),
# unshare(1) and libvirtd. Used by tests/multihost/ and scripts/paper.sh's
# PAPER_HOSTS.
#
# Each daemon is private: in its own mount namespace /etc/libvirt,
# /run/libvirt, /var/lib/libvirt and /var/cache/libvirt are folders of
# DIR (QEMU as root, no security driver, logs to files), listen_tcp on
# its namespace's address only, auth_tcp none.
#
#   netns_host_start H DIR   namespace ember-mhH, its veth pair and libvirtd
#                            (state and logs in DIR); 0 once it listens
#   netns_host_kill H        SIGKILL to everything in the namespace (its
#                            libvirtd and that daemon's QEMUs), waited for
#   netns_host_stop H        kill, then delete the namespace (its veth end,
#                            and so the pair, go with it)
#   netns_host_uri H         qemu+tcp://10.213.H.2/system
#   libvirt_private_qemu_conf FILE
#                            a private daemon's qemu.conf (also
#                            tests/libvirt/'s, whose daemon has no namespace)

netns_host_ns() { echo "ember-mh$1"; }
netns_host_addr() { echo "10.213.$1.2"; }
netns_host_uri() { echo "qemu+tcp://$(netns_host_addr "$1")/system"; }

netns_host_kill() {
	local ns pids
	ns=$(netns_host_ns "$1")
	pids=$(ip netns pids "$ns" 2>/dev/null)
	[ -n "$pids" ] && kill -9 $pids 2>/dev/null
	for _ in $(seq 50); do
		[ -z "$(ip netns pids "$ns" 2>/dev/null)" ] && return 0
		sleep 0.1
	done
	return 1
}

netns_host_stop() {
	netns_host_kill "$1"
	ip netns del "$(netns_host_ns "$1")" 2>/dev/null
	return 0
}

libvirt_private_qemu_conf() {
	cat >"$1" <<-CONF
	user = "root"
	group = "root"
	dynamic_ownership = 0
	security_driver = "none"
	stdio_handler = "file"
	CONF
}

netns_host_start() {
	local h=$1 dir=$2 ns addr
	ns=$(netns_host_ns "$h") addr=$(netns_host_addr "$h")

	mkdir -p "$dir/etc" "$dir/run" "$dir/lib" "$dir/cache"
	cp -a /etc/libvirt/. "$dir/etc/"
	libvirt_private_qemu_conf "$dir/etc/qemu.conf"
	cat >"$dir/etc/libvirtd.conf" <<-CONF
	listen_tls = 0
	listen_tcp = 1
	listen_addr = "$addr"
	auth_tcp = "none"
	unix_sock_dir = "/run/libvirt"
	unix_sock_ro_perms = "0700"
	unix_sock_rw_perms = "0700"
	auth_unix_rw = "none"
	auth_unix_ro = "none"
	log_outputs = "3:file:$dir/libvirtd.log"
	CONF
	ip netns del "$ns" 2>/dev/null	# a crashed earlier run's
	ip netns add "$ns" &&
	ip link add "emh$h-root" type veth peer name "emh$h-ns" &&
	ip link set "emh$h-ns" netns "$ns" &&
	ip addr add "10.213.$h.1/30" dev "emh$h-root" &&
	ip link set "emh$h-root" up &&
	ip -n "$ns" addr add "$addr/30" dev "emh$h-ns" &&
	ip -n "$ns" link set "emh$h-ns" up &&
	ip -n "$ns" link set lo up || return 1
	# --listen: libvirtd opens its tcp socket itself (no systemd socket units)
	ip netns exec "$ns" unshare -m --propagation private sh -c "
		mount --bind '$dir/etc' /etc/libvirt &&
		mount --bind '$dir/run' /run/libvirt &&
		mount --bind '$dir/lib' /var/lib/libvirt &&
		mount --bind '$dir/cache' /var/cache/libvirt &&
		exec libvirtd --listen --config /etc/libvirt/libvirtd.conf \
			--pid-file '$dir/libvirtd.pid'" >"$dir/libvirtd.out" 2>&1 &
	disown	# it is killed by namespace (netns_host_kill), not by the shell
	for _ in $(seq 150); do
		ip netns exec "$ns" ss -Hltn "src $addr:16509" | grep -q 16509 && return 0
		sleep 0.1
	done
	return 1
}
