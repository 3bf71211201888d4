# shellcheck shell=bash
# concurrent: CONCURRENT_SESSIONS sessions open at the same time, at most
# CONCURRENT_LOGIN_PARALLEL logging in at once (so MaxStartups never
# refuses one), each running cat; at the end every session must echo a
# line of its own. The sessions are the probe hold's (lib/probes/hold.sh,
# which memory uses too): this test judges them, and asks for the limits
# that decide how many fit.
# shellcheck source=lib/open-sessions.sh
. "$KIT_DIR/lib/open-sessions.sh"

about_concurrent () {
	printf '%s sessions open at once (%s logging in at a time), each running cat, checked end to end (about %s s)\n' \
		"${SETTING[CONCURRENT_SESSIONS]}" "${SETTING[CONCURRENT_LOGIN_PARALLEL]}" "$(( SETTING[CONCURRENT_SESSIONS] / 10 + 10 ))"
}

# The limits that decide how many sessions fit, as they apply to the test
# user's sessions (one extra login asks the session itself) and the host.
concurrent_limits () {
	local uid out pid
	uid=$(id -u "${SETTING[TEST_USER]}")
	# shellcheck disable=SC2016 # expanded by the session's shell
	out=$(timeout --kill-after=2 "${SETTING[LOGIN_TIMEOUT]}" "$SSH" -F "$CLIENT_CONFIG" "$HOST_ALIAS" \
		'printf "%s %s\n" "$(ulimit -u)" "$(ulimit -n)"' </dev/null 2>/dev/null) || out="- -"
	result_set concurrent limit_nproc "${out%% *}"
	result_set concurrent limit_nofile "${out##* }"
	result_set concurrent limit_nproc_files "$(grep -lsE '^[^#]*[[:space:]]nproc[[:space:]]' \
		/etc/security/limits.conf /etc/security/limits.d/*.conf 2>/dev/null | tr '\n' ' ' | sed 's/ $//')"
	if [ "$(server_get MODE)" = systemd ] && command -v systemctl >/dev/null 2>&1; then
		result_set concurrent limit_tasksmax "$(systemctl show -P TasksMax "user-$uid.slice" 2>/dev/null || echo -)"
	else
		result_set concurrent limit_tasksmax "none: no systemd on this host"
	fi
	pid=$(server_pid)
	result_set concurrent limit_server_nofile "$(awk '/^Max open files/ { print $4 }' "/proc/$pid/limits" 2>/dev/null)"
	result_set concurrent limit_pid_max "$(cat /proc/sys/kernel/pid_max 2>/dev/null)"
}

# Which limit was probably reached, from the failed sessions' messages,
# the server's log and the host's values: sets limit and limit_text.
concurrent_diagnose () {
	local errs="$RAW_DIR/probe-hold-ssh-errors.txt" log="$RAW_DIR/probe-hold-sshd-log.txt"
	local failed=$1 all limit text tasks nproc tasksmax
	all=$(cat "$errs" "$log" 2>/dev/null || true)
	tasks=$(result_get concurrent user_tasks_open)
	nproc=$(result_get concurrent limit_nproc)
	tasksmax=$(result_get concurrent limit_tasksmax)
	if [ "$failed" -eq 0 ]; then
		limit=none
		text="no limit was reached at ${SETTING[CONCURRENT_SESSIONS]} sessions"
	elif printf '%s' "$all" | grep -qiE 'Resource temporarily unavailable|fork.*fail|cannot fork'; then
		if [ "${tasksmax:-x}" -eq "${tasksmax:-x}" ] 2>/dev/null &&
			[ "${tasks:-0}" -ge $(( tasksmax * 9 / 10 )) ]; then
			limit=tasksmax
			text="tasks per user (systemd): TasksMax of user-$(id -u "${SETTING[TEST_USER]}").slice is $tasksmax and the user had $tasks tasks"
		else
			limit=processes
			text="processes per user: ulimit -u is $nproc for ${SETTING[TEST_USER]} (nproc set in: $(result_get concurrent limit_nproc_files)), the user had $tasks tasks"
		fi
	elif printf '%s' "$all" | grep -qiE 'Cannot allocate memory|Out of memory|oom'; then
		limit=memory
		text="memory: $(result_get concurrent mem_available_mb_open) MB were still available while the sessions were open"
	elif printf '%s' "$all" | grep -qiE 'Too many open files'; then
		limit=fds
		text="file descriptors: ulimit -n is $(result_get concurrent limit_nofile) in a session, $(result_get concurrent limit_server_nofile) for the server"
	elif printf '%s' "$all" | grep -qiE 'MaxStartups'; then
		limit=maxstartups
		text="MaxStartups refused logins although at most ${SETTING[CONCURRENT_LOGIN_PARALLEL]} logged in at a time"
	elif printf '%s' "$all" | grep -qiE 'channel [0-9]+: open failed'; then
		limit=maxsessions
		text="a session channel was refused (MaxSessions applies only to sessions sharing one connection)"
	elif printf '%s' "$all" | grep -qiE 'no answer within'; then
		limit=slow
		text="logins did not finish within LOGIN_TIMEOUT=${SETTING[LOGIN_TIMEOUT]} s: the server (or the machine) was overloaded"
	elif printf '%s' "$all" | grep -qiE 'Connection refused|Connection reset|Connection closed'; then
		limit=server
		text="the server closed or refused connections; see its log (raw/probe-hold-sshd-log.txt)"
	else
		limit=unknown
		text="no known limit in the messages; see raw/probe-hold-ssh-errors.txt"
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
	local n=${SETTING[CONCURRENT_SESSIONS]} p=${SETTING[CONCURRENT_LOGIN_PARALLEL]} probe="$DATA_DIR/probe-hold.env"
	local opened alive dead failed left k

	# The hold's figures, into this test's data; the holder's own output
	# for hold_get and hold_stopped_note.
	HOLD_OUT="$RAW_DIR/probe-hold-hold.txt"
	for k in sessions parallel mem_available_mb_before user_tasks_before user_tasks_open mem_available_mb_open \
		opened open_failed alive dead not_started open_wall_ms open_ms_n open_ms_p50 open_ms_p95 open_ms_max \
		check_ms closed terminated killed children_left fd_limit clients_left; do
		result_set concurrent "$k" "$(kv_get "$probe" "$k")"
	done
	result_set concurrent hold_raw raw/probe-hold
	opened=$(result_get concurrent opened)
	alive=$(result_get concurrent alive)
	dead=$(result_get concurrent dead)
	left=$(result_get concurrent clients_left)
	opened=${opened:-0}
	result_set concurrent opened "$opened"
	result_set concurrent alive "${alive:-0}"
	result_set concurrent dead "${dead:-0}"
	failed=$(( n - ${alive:-0} ))
	result_set concurrent failed "$failed"
	concurrent_limits
	concurrent_diagnose "$failed"

	result_interval concurrent - - "$n" - "" "a count of the sessions alive, not an estimate: no interval"
	result_verdict concurrent "${alive:-0}" ">=" "$n" sessions "alive of $n"
	if [ "$(kv_get "$probe" state_open)" != yes ]; then
		result_status concurrent ERROR "the sessions were not all opened or failed within $(hold_open_seconds "$n" "$p") s; see raw/probe-hold-hold-errors.txt" \
			"Read raw/probe-hold-hold-errors.txt for what stopped the sessions, fix it, and rerun ./test-ssh.sh concurrent"
	elif [ "${alive:-0}" -lt "$n" ] && concurrent_machine_limit "$opened"; then
		# The clients share the machine with the server: when the machine
		# ran out (memory for both sides, CPU so logins time out), no limit
		# of sshd was reached and nothing was shown either way.
		result_status concurrent INCONCLUSIVE "$failed of $n sessions failed because the machine ran out before sshd did ($(result_get concurrent limit_text)); the kit's own clients share this machine. Free memory and CPU (stop other work, fewer CONCURRENT_LOGIN_PARALLEL) or raise LOGIN_TIMEOUT, and run \`./test-ssh.sh concurrent\` again$(hold_stopped_note)" \
			"Rerun ./test-ssh.sh concurrent with more free memory and CPU (stop other work, lower CONCURRENT_LOGIN_PARALLEL, or raise LOGIN_TIMEOUT): the machine ran out before sshd did"
	elif [ "${alive:-0}" -lt "$n" ]; then
		result_status concurrent FAIL "$failed of $n sessions failed ($(hold_get open_failed) did not open, ${dead:-0} died while open); probable limit: $(result_get concurrent limit_text)$(hold_stopped_note)" \
			"Raise the limit that was reached (the probable one is named here; the others are in the section), or lower CONCURRENT_SESSIONS to what this server must hold"
	elif [ "${left:-0}" -gt 0 ] || [ "$(hold_get children_left)" != 0 ]; then
		result_status concurrent FAIL "all sessions worked, but $left ssh clients were still running after the close" \
			"Look for what kept the sessions from closing (ClientAliveInterval, a program in the session that ignores the hang-up) and rerun ./test-ssh.sh concurrent"
	fi
	result_set concurrent summary "${alive:-0} of $n sessions alive ($opened opened, ${dead:-0} died), opened in $(hold_get open_wall_ms) ms with $p at a time; clients left: $left"
}
