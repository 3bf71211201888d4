# shellcheck shell=bash
# host_snapshot: prints what the kit must leave exactly as it found it:
# accounts, /etc/ssh, /etc/systemd/system, listening TCP sockets, the
# SELinux local port list, home folders and the kit's state folder.
host_snapshot () {
	local f eph_lo eph_hi
	for f in /etc/passwd /etc/group /etc/shadow /etc/gshadow /etc/subuid /etc/subgid; do
		[ -f "$f" ] && sha256sum "$f"
	done
	for f in /etc/ssh /etc/systemd/system /home; do
		[ -d "$f" ] && find "$f" -xdev -printf '%p %y %m %u %g\n' | sort
	done
	find /etc/ssh -type f -exec sha256sum {} + 2>/dev/null | sort
	# Listening TCP sockets (state 0A): local address and port. Ports in
	# the kernel's ephemeral range are left out: the kit listens only on
	# TEST_PORT, while programs that run beside the tests (a unit test's
	# listener on port 0, say) come and go there.
	read -r eph_lo eph_hi </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || { eph_lo=65536 eph_hi=65535; }
	cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
		awk -v lo="$eph_lo" -v hi="$eph_hi" '$4 == "0A" {
			split($2, a, ":"); port = 0; h = "0123456789ABCDEF"
			for (i = 1; i <= length(a[2]); i++) port = port * 16 + index(h, substr(a[2], i, 1)) - 1
			if (port < lo || port > hi) print "listen", $2 }' | sort
	if command -v semanage >/dev/null 2>&1; then
		semanage port -l -C 2>/dev/null | sed 's/^/seport /'
	fi
	[ -e /var/lib/sshd-perf-kit ] && echo "exists /var/lib/sshd-perf-kit"
	[ -e /run/sshd-perf-test.pid ] && echo "exists /run/sshd-perf-test.pid"
	[ -e /run/sshd-perf-kit.lock ] && echo "exists /run/sshd-perf-kit.lock"
	return 0
}

# Processes of this host that run with the kit's sshd config (there must
# be none left). Processes in other PID namespaces (a test container) are
# not this host's.
kit_processes () {
	local p self
	self=$(readlink /proc/self/ns/pid)
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/ns/pid" 2>/dev/null)" = "$self" ] || continue
		{ tr '\0' ' ' <"$p/cmdline"; } 2>/dev/null | grep -q 'sshd_config_perf_test' && echo "${p#/proc/}"
	done
	return 0
}
