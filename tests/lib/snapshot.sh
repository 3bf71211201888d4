# shellcheck shell=bash
# The kit's names (lib/names.sh): the harness's instance, or, sourced
# alone (in a test container), the default instance's.
if [ -z "${SSHD_CONFIG:-}" ]; then
	# shellcheck source=lib/names.sh
	. "$(dirname "${BASH_SOURCE[0]}")/../../lib/names.sh"
	kit_names ""
fi
# other_lanes_ users|paths: an ERE of the names of the other lanes'
# instances (tests/run.sh runs test files side by side, each lane as its
# own instance, TEST_LANE_INSTANCES): their accounts (the instance's user
# and the accounts a test names after it, t11, t21, t49), or the path
# components of their files (config, host keys, unit, home, pid file,
# lock). What another lane creates and removes in the same seconds is
# its own test's to check. Nothing when this is the only lane.
other_lanes_ () {
	local i alt=""
	for i in ${TEST_LANE_INSTANCES:-}; do
		[ "$i" != "${TEST_INSTANCE:-}" ] || continue
		case $1 in
		users) alt="$alt|sshperf-$i" ;;
		paths) alt="$alt|sshperf-$i|sshd_config_perf_test-$i|ssh_host_perftest-${i}_|sshd-perf-test-$i\\.|sshd-perf-kit-$i\\." ;;
		esac
	done
	printf '%s\n' "${alt#|}"
}

# without_other_lanes_ users|paths: stdin without the lines of other lanes'
# accounts (a name that starts with one, at the start of a line) or files
# (a path component that starts with one).
without_other_lanes_ () {
	local pat
	pat=$(other_lanes_ "$1")
	if [ -z "$pat" ]; then
		cat
	elif [ "$1" = users ]; then
		grep -Ev "^($pat)[^:]*:" || true
	else
		grep -Ev "/($pat)" || true
	fi
}

# host_snapshot: prints what the kit must leave exactly as it found it:
# accounts, /etc/ssh, /etc/systemd/system, listening TCP sockets, the
# SELinux local port list, home folders and the kit's state folder. The
# other lanes' instances are left out (other_lanes_).
host_snapshot () {
	local f
	for f in /etc/passwd /etc/group /etc/shadow /etc/gshadow /etc/subuid /etc/subgid; do
		[ -f "$f" ] && printf '%s  %s\n' "$(without_other_lanes_ users <"$f" | sha256sum | cut -d' ' -f1)" "$f"
	done
	for f in /etc/ssh /etc/systemd/system /home; do
		[ -d "$f" ] && find "$f" -xdev -printf '%p %y %m %u %g\n' | without_other_lanes_ paths | sort
	done
	find /etc/ssh -type f -exec sha256sum {} + 2>/dev/null | without_other_lanes_ paths | sort
	# Listening TCP sockets (state 0A) on the ports the kit could take:
	# TEST_PORT (11022 unless the test or its instance sets another) and 22 (the real
	# sshd's). Other listeners belong to whatever runs beside the tests
	# (a unit test's listener, another service) and come and go.
	cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
		awk -v kit="${TEST_PORT:-11022}" '$4 == "0A" {
			split($2, a, ":"); port = 0; h = "0123456789ABCDEF"
			for (i = 1; i <= length(a[2]); i++) port = port * 16 + index(h, substr(a[2], i, 1)) - 1
			if (port == kit || port == 22) print "listen", $2 }' | sort
	if command -v semanage >/dev/null 2>&1; then
		semanage port -l -C 2>/dev/null | sed 's/^/seport /'
	fi
	# The instance's own names (tests/lib/harness.sh, lib/names.sh).
	[ -e "$STATE_PARENT" ] && echo "exists $STATE_PARENT"
	[ -e "$PID_FILE" ] && echo "exists $PID_FILE"
	[ -e "$LOCK_FILE" ] && echo "exists $LOCK_FILE"
	return 0
}

# Processes of this host that run with the instance's sshd config (there
# must be none left; an administrator's test server of another instance is
# not counted). Processes in other PID namespaces (a test container) are
# not this host's.
kit_processes () {
	local p self
	self=$(readlink /proc/self/ns/pid)
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/ns/pid" 2>/dev/null)" = "$self" ] || continue
		case " $({ tr '\0' ' ' <"$p/cmdline"; } 2>/dev/null) " in *" $SSHD_CONFIG "*) echo "${p#/proc/}" ;; esac
	done
	return 0
}

# host_snapshot_save [NAME]: the host now (host_snapshot), kept as NAME
# (before unless given) for host_unchanged.
# shellcheck disable=SC2120 # NAME is optional
host_snapshot_save () {
	local name=${1:-before}
	host_snapshot >"$TEST_TMP/host-$name"
}

# host_unchanged [NAME]: the host is as host_snapshot_save NAME found it;
# else the difference (test_cmp, tests/lib/harness.sh).
# shellcheck disable=SC2120 # NAME is optional
host_unchanged () {
	local name=${1:-before}
	local want="$TEST_TMP/host-$name"
	[ -f "$want" ] || { echo "host_unchanged: no snapshot $name (host_snapshot_save first)"; return 1; }
	host_snapshot >"$TEST_TMP/host-now" && test_cmp "$want" "$TEST_TMP/host-now"
}

# no_kit_processes: kit_processes finds none; else it shows them.
no_kit_processes () {
	local pids
	pids=$(kit_processes)
	[ -n "$pids" ] || return 0
	echo "no_kit_processes: processes with the kit's sshd config are left:"
	ps -o pid=,args= -p "$(printf '%s\n' "$pids" | paste -sd, -)" | sed -e 's/^/  | /'
	return 1
}
