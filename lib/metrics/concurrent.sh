# shellcheck shell=bash
# concurrent: CONCURRENT_SESSIONS sessions open at the same time, at most
# CONCURRENT_LOGIN_PARALLEL logging in at once (so MaxStartups never
# refuses one), each running cat; at the end every session must echo a
# line of its own. While all are open it also records the memory of the
# test server for the memory test (data/memory-hold.env).
# shellcheck source=lib/hold.sh
. "$KIT_DIR/lib/hold.sh"

about_concurrent () {
	printf '%s sessions open at once (%s logging in at a time), each running cat, checked end to end (about %s s)\n' \
		"$CONCURRENT_SESSIONS" "$CONCURRENT_LOGIN_PARALLEL" "$(( CONCURRENT_SESSIONS / 10 + 10 ))"
}

# Processes (and threads: the nproc limit counts both) of the test user.
user_tasks () {
	local uid
	uid=$(id -u "$TEST_USER" 2>/dev/null) || { echo 0; return; }
	awk -v uid="$uid" '$1 == "Uid:" && $2 == uid { n++ } END { print n + 0 }' \
		/proc/[0-9]*/task/[0-9]*/status 2>/dev/null
}

# MemAvailable in MB (10^6 bytes).
mem_available_mb () {
	awk '/^MemAvailable:/ { printf "%d", $2 * 1024 / 1e6 }' /proc/meminfo
}

# The server's log from byte offset $1 on (direct mode), or its journal
# since the epoch second $2 (systemd), into raw/concurrent-sshd-log.txt.
concurrent_server_log () {
	local out="$RAW_DIR/concurrent-sshd-log.txt"
	case $(server_get MODE) in
	systemd)
		if command -v journalctl >/dev/null 2>&1; then
			journalctl -u "$UNIT_NAME" --since "@$2" --no-pager -q >"$out" 2>/dev/null || true
		fi
		;;
	*)
		[ -f "$STATE_DIR/sshd.log" ] && tail -c "+$(( $1 + 1 ))" "$STATE_DIR/sshd.log" >"$out"
		;;
	esac
	return 0
}

# The limits that decide how many sessions fit, as they apply to the test
# user's sessions (one extra login asks the session itself) and the host.
concurrent_limits () {
	local uid out pid
	uid=$(id -u "$TEST_USER")
	# shellcheck disable=SC2016 # expanded by the session's shell
	out=$(timeout --kill-after=2 "$LOGIN_TIMEOUT" "$SSH" -F "$CLIENT_CONFIG" "$HOST_ALIAS" \
		'printf "%s %s\n" "$(ulimit -u)" "$(ulimit -n)"' </dev/null 2>/dev/null) || out="- -"
	result_set concurrent limit_nproc "${out%% *}"
	result_set concurrent limit_nofile "${out##* }"
	result_set concurrent limit_nproc_files "$(grep -lsE '^[^#]*[[:space:]]nproc[[:space:]]' \
		/etc/security/limits.conf /etc/security/limits.d/*.conf 2>/dev/null | tr '\n' ' ' | sed 's/ $//')"
	if [ "$(server_get MODE)" = systemd ] && command -v systemctl >/dev/null 2>&1; then
		result_set concurrent limit_tasksmax "$(systemctl show -P TasksMax "user-$uid.slice" 2>/dev/null || echo -)"
	else
		result_set concurrent limit_tasksmax "none (no systemd)"
	fi
	pid=$(server_pid)
	result_set concurrent limit_server_nofile "$(awk '/^Max open files/ { print $4 }' "/proc/$pid/limits" 2>/dev/null)"
	result_set concurrent limit_pid_max "$(cat /proc/sys/kernel/pid_max 2>/dev/null)"
}

# Which limit was probably reached, from the failed sessions' messages,
# the server's log and the host's values: sets limit and limit_text.
concurrent_diagnose () {
	local errs="$RAW_DIR/concurrent-ssh-errors.txt" log="$RAW_DIR/concurrent-sshd-log.txt"
	local failed=$1 all limit text tasks nproc tasksmax
	all=$(cat "$errs" "$log" 2>/dev/null || true)
	tasks=$(result_get concurrent user_tasks_open)
	nproc=$(result_get concurrent limit_nproc)
	tasksmax=$(result_get concurrent limit_tasksmax)
	if [ "$failed" -eq 0 ]; then
		limit=none
		text="no limit was reached at $CONCURRENT_SESSIONS sessions"
	elif printf '%s' "$all" | grep -qiE 'Resource temporarily unavailable|fork.*fail|cannot fork'; then
		if [ "${tasksmax:-x}" -eq "${tasksmax:-x}" ] 2>/dev/null &&
			[ "${tasks:-0}" -ge $(( tasksmax * 9 / 10 )) ]; then
			limit=tasksmax
			text="tasks per user (systemd): TasksMax of user-$(id -u "$TEST_USER").slice is $tasksmax and the user had $tasks tasks"
		else
			limit=processes
			text="processes per user: ulimit -u is $nproc for $TEST_USER (nproc set in: $(result_get concurrent limit_nproc_files)), the user had $tasks tasks"
		fi
	elif printf '%s' "$all" | grep -qiE 'Cannot allocate memory|Out of memory|oom'; then
		limit=memory
		text="memory: $(result_get concurrent mem_available_mb_open) MB were still available while the sessions were open"
	elif printf '%s' "$all" | grep -qiE 'Too many open files'; then
		limit=fds
		text="file descriptors: ulimit -n is $(result_get concurrent limit_nofile) in a session, $(result_get concurrent limit_server_nofile) for the server"
	elif printf '%s' "$all" | grep -qiE 'MaxStartups'; then
		limit=maxstartups
		text="MaxStartups refused logins although at most $CONCURRENT_LOGIN_PARALLEL logged in at a time"
	elif printf '%s' "$all" | grep -qiE 'channel [0-9]+: open failed'; then
		limit=maxsessions
		text="a session channel was refused (MaxSessions applies only to sessions sharing one connection)"
	elif printf '%s' "$all" | grep -qiE 'no answer within'; then
		limit=slow
		text="logins did not finish within LOGIN_TIMEOUT=$LOGIN_TIMEOUT s: the server (or the machine) was overloaded"
	elif printf '%s' "$all" | grep -qiE 'Connection refused|Connection reset|Connection closed'; then
		limit=server
		text="the server closed or refused connections; see its log (raw/concurrent-sshd-log.txt)"
	else
		limit=unknown
		text="no known limit in the messages; see raw/concurrent-ssh-errors.txt"
	fi
	result_set concurrent limit "$limit"
	result_set concurrent limit_text "$text"
}

# True when the probable limit is the machine's, not sshd's or the test
# user's: memory for server and clients together, or logins that did not
# finish within LOGIN_TIMEOUT while nothing refused them. Slow logins count
# only while the server answered: with none opened, or the holder stopped
# after logins in a row got no answer, sshd itself did not answer, and that
# is its failure whatever the load.
concurrent_machine_limit () {
	local opened=$1
	case $(result_get concurrent limit) in
	memory) return 0 ;;
	slow) local not_started
		not_started=$(hold_get not_started)
		[ "${opened:-0}" -gt 0 ] && [ "${not_started:-0}" -eq 0 ] ;;
	*) return 1 ;;
	esac
}

measure_concurrent () {
	local n=$CONCURRENT_SESSIONS p=$CONCURRENT_LOGIN_PARALLEL mem="$DATA_DIR/memory-hold.env"
	local opened=0 alive=0 dead=0 failed left root log_offset=0 since k

	result_set concurrent sessions "$n"
	result_set concurrent parallel "$p"
	result_set concurrent mem_available_mb_before "$(mem_available_mb)"
	result_set concurrent user_tasks_before "$(user_tasks)"
	# The memory at rest, for the memory test, before any session.
	{
		printf 'source=concurrent\n'
		printf 'mem_available_kb=%s\n' "$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)"
		server_memory rest_
	} >"$mem.tmp" 2>>"$RAW_DIR/concurrent-hold-errors.txt" || true
	server_memory_rows >"$RAW_DIR/memory-rest.tsv" 2>>"$RAW_DIR/concurrent-hold-errors.txt" || true
	[ -f "$STATE_DIR/sshd.log" ] && log_offset=$(stat -c %s "$STATE_DIR/sshd.log")
	since=$(date +%s)

	hold_start concurrent "$n" "$p" || {
		result_set concurrent status ERROR
		result_set concurrent reason "the session holder could not be started"
		return 1
	}
	if hold_wait open "$(hold_open_seconds "$n" "$p")"; then
		opened=$(hold_get opened)
		result_set concurrent user_tasks_open "$(user_tasks)"
		result_set concurrent mem_available_mb_open "$(mem_available_mb)"
		# Memory with every session open, and one session alone.
		root=$(session_roots | head -n 1)
		{
			printf 'sessions_open=%s\n' "$opened"
			server_memory open_
			if [ -n "$root" ]; then
				session_memory one_ "$root"
				session_memory_rows "$root" >"$RAW_DIR/memory-one-session.tsv"
			fi
		} >>"$mem.tmp" 2>>"$RAW_DIR/concurrent-hold-errors.txt" || true
		[ "$opened" -gt 0 ] && mv -f "$mem.tmp" "$mem"
		hold_check || warn "concurrent: the alive check did not finish"
		alive=$(hold_get alive)
		dead=$(hold_get dead)
	fi
	rm -f "$mem.tmp"
	# The holder's status repeats what its output says.
	hold_end || true
	left=$(hold_clients_left "$RAW_DIR/concurrent-sessions.tsv" | wc -l)
	concurrent_server_log "$log_offset" "$since"

	result_set concurrent opened "${opened:-0}"
	result_set concurrent open_failed "$(hold_get open_failed)"
	result_set concurrent alive "${alive:-0}"
	result_set concurrent dead "${dead:-0}"
	for k in not_started open_wall_ms open_ms_n open_ms_p50 open_ms_p95 open_ms_max check_ms closed terminated killed children_left fd_limit; do
		result_set concurrent "$k" "$(hold_get "$k")"
	done
	result_set concurrent clients_left "$left"
	failed=$(( n - ${alive:-0} ))
	result_set concurrent failed "$failed"
	concurrent_limits
	concurrent_diagnose "$failed"

	result_set concurrent figure "${alive:-0}"
	result_set concurrent unit sessions
	result_set concurrent figure_label "alive of $n"
	result_set concurrent target "$n"
	result_set concurrent target_op ">="
	if ! grep -qx 'state=open' "$HOLD_OUT"; then
		result_set concurrent status ERROR
		result_set concurrent reason "the sessions were not all opened or failed within $(hold_open_seconds "$n" "$p") s; see raw/concurrent-hold-errors.txt"
	elif [ "${alive:-0}" -lt "$n" ] && concurrent_machine_limit "$opened"; then
		# The clients share the machine with the server: when the machine
		# ran out (memory for both sides, CPU so logins time out), no limit
		# of sshd was reached and nothing was shown either way.
		result_set concurrent status INCONCLUSIVE
		result_set concurrent reason "$failed of $n sessions failed because the machine ran out before sshd did ($(result_get concurrent limit_text)); the kit's own clients share this machine. Free memory and CPU (stop other work, fewer CONCURRENT_LOGIN_PARALLEL) or raise LOGIN_TIMEOUT, and run \`./test-ssh.sh concurrent\` again$(hold_stopped_note)"
	elif [ "${alive:-0}" -lt "$n" ]; then
		result_set concurrent status FAIL
		result_set concurrent reason "$failed of $n sessions failed ($(hold_get open_failed) did not open, ${dead:-0} died while open); probable limit: $(result_get concurrent limit_text)$(hold_stopped_note)"
	elif [ "$left" -gt 0 ] || [ "$(hold_get children_left)" != 0 ]; then
		result_set concurrent status FAIL
		result_set concurrent reason "all sessions worked, but $left ssh clients were still running after the close"
	else
		result_set concurrent status PASS
	fi
	result_set concurrent summary "${alive:-0} of $n sessions alive ($opened opened, ${dead:-0} died), opened in $(hold_get open_wall_ms) ms with $p at a time; clients left: $left"
}
