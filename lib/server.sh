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
	local f p parent
	for f in /proc/[0-9]*; do
		p=${f#/proc/}
		proc_named "$p" sshd || continue
		same_pid_ns "$p" || continue
		is_kit_sshd "$p" || continue
		parent=$(helper sampler ps "$p" 2>/dev/null | tsv_select - ppid)
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

# ---- What the server runs, logs and holds open: the one door ---------------
# Every part that asks the test server (or a candidate configuration)
# what sshd runs, what it logged, or how many connections it holds, asks
# here. sshd -T is run in one place (server_sshd_T) and read in one place
# (server_effective_read): keys in any case, since OpenSSH 10 prints them
# in CamelCase ("UsePAM yes") where 9.x printed lower case ("usepam yes").

# server_sshd_T CONFIG [USER]: sshd -T of CONFIG for USER (the test user)
# connecting from the test clients' address (CLIENT_SOURCE,
# lib/sources.sh), so that Match blocks apply as for the tests.
server_sshd_T () {
	local user=${2:-${SETTING[TEST_USER]:-$(server_get USER)}}
	"$SSHD" -T -f "$1" -C "user=${user:-root},addr=${CLIENT_SOURCE:-127.0.0.2},host=localhost"
}

# server_effective_dump CONFIG: what sshd -T prints for CONFIG. The test
# server's ($SSHD_CONFIG) is kept in the state folder, once per
# configuration and server: the key is the config's checksum, the
# listener's pid, the sshd program and the user, so a changed config or a
# restart reads it again. Status 1 (message on stderr) when sshd -T fails.
server_effective_dump () {
	local config=$1 cache="$STATE_DIR/effective.txt" key out
	if [ "$config" != "$SSHD_CONFIG" ]; then
		server_sshd_T "$config"
		return
	fi
	key="# $(cksum <"$config" 2>/dev/null) $(server_pid) $SSHD ${SETTING[TEST_USER]:-$(server_get USER)}"
	if [ -f "$cache" ] && [ "$(head -n 1 "$cache")" = "$key" ]; then
		tail -n +2 "$cache"
		return 0
	fi
	out=$(server_sshd_T "$config") || return 1
	if [ -d "$STATE_DIR" ] && [ -w "$STATE_DIR" ]; then
		printf '%s\n%s\n' "$key" "$out" >"$cache.$$" && mv -f "$cache.$$" "$cache"
	fi
	printf '%s\n' "$out"
}

# server_effective_read KEY < SSHD_T: the value of KEY (any case), one
# line per value (AcceptEnv, Subsystem, ListenAddress have several).
server_effective_read () {
	awk -v k="${1,,}" 'tolower($1) == k { sub(/^[^ ]+ ?/, ""); print }'
}

# server_effective KEY [SSHD_T_FILE]: the test server's effective value of
# KEY (sshd -T, cached), or the one in a recorded sshd -T output.
server_effective () {
	if [ "$#" -gt 1 ]; then
		server_effective_read "$1" <"$2"
	else
		server_effective_dump "$SSHD_CONFIG" 2>/dev/null | server_effective_read "$1"
	fi
}

# server_effective_kv < SSHD_T: the effective settings that matter for
# performance, as sshd_KEY=value lines with the key in lower case (the
# report's environment section).
server_effective_kv () {
	awk '{ $1 = tolower($1) } $1 ~ /^(ciphers|macs|kexalgorithms|hostkeyalgorithms|pubkeyacceptedalgorithms|maxstartups|maxsessions|logingracetime|usepam|usedns|gssapiauthentication|persourcepenalties|compression|clientaliveinterval|authorizedkeyscommand|authorizedkeysfile|passwordauthentication|loglevel|printmotd)$/ {
		k = $1; $1 = ""; sub(/^ /, ""); print "sshd_" k "=" $0 }'
}

# server_log_mark: where the server's log is now (direct: sshd.log's
# size; systemd: the journal's cursor, or the time when there is none;
# "none" without a log).
server_log_mark () {
	local cursor
	case $(server_get MODE) in
	direct) stat -c %s "$STATE_DIR/sshd.log" 2>/dev/null || echo 0 ;;
	systemd)
		command -v journalctl >/dev/null || { echo none; return; }
		cursor=$(journalctl -u "$UNIT_NAME" -n 1 --show-cursor -q -o cat 2>/dev/null | sed -n 's/^-- cursor: //p')
		if [ -n "$cursor" ]; then printf 'cursor:%s\n' "$cursor"; else printf 'since:@%s\n' "$(date +%s)"; fi
		;;
	*) echo none ;;
	esac
}

# server_log_since MARK: what the server logged since MARK, its messages
# only (the journal as "-o cat", like sshd -E's file). Status 1 for none.
server_log_since () {
	case $1 in
	none) return 1 ;;
	cursor:*) journalctl -u "$UNIT_NAME" --after-cursor="${1#cursor:}" --no-pager -q -o cat 2>/dev/null ;;
	since:*) journalctl -u "$UNIT_NAME" --since="${1#since:}" --no-pager -q -o cat 2>/dev/null ;;
	*) tail -c +"$(($1 + 1))" "$STATE_DIR/sshd.log" 2>/dev/null ;;
	esac
}

# server_connections: TCP connections on TEST_PORT that are not closed
# yet (listening, TIME_WAIT and CLOSE excluded), from /proc/net/tcp{,6}.
server_connections () {
	local hex
	hex=$(printf '%04X' "${SETTING[TEST_PORT]:-$(server_get PORT)}")
	cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk -v p=":$hex" '
		NR > 1 && $4 != "0A" && $4 != "06" && $4 != "07" &&
		(substr($2, length($2) - 4) == p || substr($3, length($3) - 4) == p) { n++ }
		END { print n + 0 }'
}

# server_effective_lines < SSHD_T: every line of an sshd -T output with its
# key in lower case and single spaces, for comparing two outputs.
server_effective_lines () {
	awk 'NF { $1 = tolower($1); $1 = $1; print }'
}
