# shellcheck shell=bash
# Starting, stopping and reloading the test server, with systemd (its unit,
# through sd-bus) or without (sshd started directly, its pid recorded).
# Used by start-ssh.sh and by the tests that restart or reload the server.
# Needs lib/common.sh and loaded settings.

# "systemd" when systemd is PID 1, else "direct".
host_mode () {
	if helper unit booted >/dev/null 2>&1; then echo systemd; else echo direct; fi
}

# Every process below pid $1 (children, grandchildren ...): the pid column
# of sshperf-sampler's process list (docs/data.md), without the root.
descendants () {
	{ helper sampler tree "$1" || true; } | awk -F'\t' -v root="$1" '
		NR == 1 { for (i = 1; i <= NF; i++) at[$i] = i; next }
		$at["pid"] != root { print $at["pid"] }'
}

# Sends TERM to the given pids, waits up to $1 seconds, then KILLs the rest.
end_pids () {
	local deadline=$1 pid left
	shift
	[ "$#" -gt 0 ] || return 0
	kill -TERM "$@" 2>/dev/null || true
	deadline=$(( $(date +%s) + deadline ))
	while :; do
		left=""
		for pid in "$@"; do [ -d "/proc/$pid" ] && left="$left $pid"; done
		[ -n "$left" ] || return 0
		[ "$(date +%s)" -lt "$deadline" ] || break
		sleep 0.05
	done
	# shellcheck disable=SC2086 # a list of pids
	kill -KILL $left 2>/dev/null || true
}

# A cgroup folder of the kit's own for a directly started sshd: v1 cpuacct
# (hybrid hosts), else the v2 tree. Prints "NAME DIR"; nothing when the
# cgroup file system is not writable (a container): then CPU comes from
# /proc and is a lower bound.
direct_cgroup () {
	local base name=$CGROUP_NAME
	for base in /sys/fs/cgroup/cpuacct /sys/fs/cgroup/cpu,cpuacct /sys/fs/cgroup/unified /sys/fs/cgroup; do
		if [ -f "$base/cpuacct.usage" ] || [ -f "$base/cgroup.controllers" ]; then
			if [ -d "$base$name" ] || mkdir "$base$name" 2>/dev/null; then
				printf '%s %s\n' "$name" "$base$name"
			fi
			return 0
		fi
	done
}

# A listener of the kit, started directly, that server.env does not name (a
# start interrupted before it kept the pid): its pid, or nothing. Only
# this PID namespace's processes (a test container has its own).
orphan_listener () {
	local f p parent self
	self=$(readlink /proc/self/ns/pid)
	for f in /proc/[0-9]*; do
		p=${f#/proc/}
		[ "$(readlink "$f/ns/pid" 2>/dev/null)" = "$self" ] || continue
		is_kit_sshd "$p" || continue
		parent=$(sed 's/.*) [A-Za-z] \([0-9]*\) .*/\1/' "$f/stat" 2>/dev/null)
		is_kit_sshd "$parent" || { printf '%s\n' "$p"; return 0; }
	done
	return 0
}

# Starts the test server (not yet running). Prints the listener pid.
# With SERVER_T0_FILE set, writes there the CLOCK_MONOTONIC ns at which the
# start was issued (startup test: its time zero).
server_start () {
	local mode out pid
	mode=$(server_get MODE)
	case $mode in
	systemd)
		out=$(helper unit -t "${SETTING[SERVER_START_TIMEOUT]}" start "$UNIT_NAME" 2>&1) || {
			warn "starting $UNIT_NAME failed: $(printf '%s' "$out" | tr '\n' ' ')"
			warn "see: journalctl -u $UNIT_NAME"
			return 1
		}
		[ -z "${SERVER_T0_FILE:-}" ] || printf '%s\n' "$out" | sed -n 's/^issued_mono_ns=//p' >"$SERVER_T0_FILE"
		;;
	direct)
		pid=$(orphan_listener)
		if [ -n "$pid" ]; then
			server_set PID "$pid"
			server_pid
			return 0
		fi
		rm -f "$PID_FILE"
		[ -z "${SERVER_T0_FILE:-}" ] || helper clock | sed -n 's/^mono_ns=//p' >"$SERVER_T0_FILE"
		# sshd daemonizes itself and writes PID_FILE; it starts with a
		# clean environment, not the caller's.
		# Inside the kit's own cgroup when it has one (CGROUP_DIR), so
		# that its CPU counts every process it starts.
		# shellcheck disable=SC2016 # expanded by that sh, not here
		env -i PATH="$PATH" sh -c 'if [ -n "$1" ]; then echo $$ >"$1/cgroup.procs" || exit 1; fi; shift; exec "$@"' \
			sh "$(server_get CGROUP_DIR)" "$SSHD" -f "$SSHD_CONFIG" -E "$STATE_DIR/sshd.log" </dev/null >/dev/null 2>&1 || {
			warn "sshd did not start; its log: $(tail -n 3 "$STATE_DIR/sshd.log" 2>/dev/null | tr '\n' ' ')"
			return 1
		}
		;;
	*)
		warn "no server mode recorded in $SERVER_ENV; run ./start-ssh.sh"
		return 1
		;;
	esac
	wait_greeting "${SETTING[SERVER_START_TIMEOUT]}" >/dev/null || {
		warn "the test server did not answer on 127.0.0.1:${SETTING[TEST_PORT]} within ${SETTING[SERVER_START_TIMEOUT]}s"
		return 1
	}
	if [ "$mode" = direct ]; then
		pid=$(cat "$PID_FILE" 2>/dev/null || true)
		is_kit_sshd "$pid" || { warn "sshd answers, but $PID_FILE does not name it"; return 1; }
		server_set PID "$pid"
	fi
	server_pid
}

# Stops the test server if it runs; open sessions are left alone, as
# KillMode=process does for the real sshd.
server_stop () {
	local mode pid
	mode=$(server_get MODE)
	pid=$(server_pid)
	case $mode in
	systemd)
		[ -f "$UNIT_FILE" ] || return 0
		helper unit -t "${SETTING[SERVER_START_TIMEOUT]}" stop "$UNIT_NAME" >/dev/null || {
			warn "stopping $UNIT_NAME failed"
			return 1
		}
		;;
	direct)
		[ -n "$pid" ] || return 0
		end_pids 10 "$pid"
		rm -f "$PID_FILE"
		;;
	esac
	return 0
}

# Reloads (SIGHUP) the test server after checking its config with sshd -t;
# prints issued_mono_ns= (CLOCK_MONOTONIC) of the reload among its lines.
server_reload () {
	local out pid
	out=$("$SSHD" -t -f "$SSHD_CONFIG" 2>&1) || {
		warn "not reloading: sshd -t rejects $SSHD_CONFIG: $out"
		return 2
	}
	case $(server_get MODE) in
	systemd) helper unit -t "${SETTING[SERVER_START_TIMEOUT]}" reload "$UNIT_NAME" ;;
	direct)
		pid=$(server_pid)
		[ -n "$pid" ] || { warn "the test server is not running"; return 1; }
		# When the signal left, as sshperf-unit prints it for systemd.
		helper clock | sed 's/^mono_ns=/issued_mono_ns=/'
		kill -HUP "$pid"
		;;
	esac
}
