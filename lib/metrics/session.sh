# shellcheck shell=bash
# session: commands over an open connection. One master connection
# (ControlMaster, socket in the kit's state folder), then SESSION_COMMANDS
# runs of `ssh sshperf-test true` through it, each timed (sshperf-repeat);
# compared with a full login (SESSION_LOGINS logins measured here, so the
# comparison does not depend on which tests ran before). The master is
# closed at the end.

SESSION_LOGINS=5

about_session () {
	printf '%s commands (true) through one open ControlMaster connection (about %s s)\n' \
		"${SETTING[SESSION_COMMANDS]}" "$(( SETTING[SESSION_COMMANDS] / 20 + 3 ))"
}

# Where the master listens; %C is ssh's hash of host, port and user.
session_control_path () {
	printf '%s/cm-%%C' "$STATE_DIR"
}

# The pid of a running master, from the master itself ("pid=N").
session_master_pid () {
	"$SSH" -F "$CLIENT_CONFIG" -o ControlPath="$(session_control_path)" -O check "$HOST_ALIAS" 2>&1 </dev/null |
		sed -n 's/.*(pid=\([0-9][0-9]*\)).*/\1/p'
}

# Processes started with our control path (masters or clients left over).
session_processes () {
	local p cp
	cp=$(session_control_path)
	# A process may end between the listing and the read: its cmdline is
	# then gone. The 2> comes first so that it covers that failed open
	# too (redirections apply left to right).
	for p in /proc/[0-9]*; do
		proc_named "${p#/proc/}" ssh || continue
		tr '\0' ' ' 2>/dev/null <"$p/cmdline" | grep -qF -- "ControlPath=$cp" && printf '%s\n' "${p#/proc/}"
	done
	return 0
}

# session_wait_gone PID SECONDS: true once PID has ended.
session_wait_gone () {
	local pid=$1 deadline=$(( $(date +%s) + $2 ))
	while [ -d "/proc/$pid" ]; do
		[ "$(date +%s)" -lt "$deadline" ] || return 1
		sleep 0.05
	done
}

# Opens the master: ssh logs in, then goes to the background (-f) and
# waits for commands (-N). ControlPersist=60 makes it end by itself 60 s
# after its last use, should this script die before it is closed.
session_start_master () {
	local deadline pid rc=0
	timeout --kill-after=2 "${SETTING[LOGIN_TIMEOUT]}" "$SSH" -F "$CLIENT_CONFIG" \
		-o ControlMaster=yes -o ControlPath="$(session_control_path)" \
		-o ControlPersist=60 -N -f "$HOST_ALIAS" </dev/null >>"$RAW_DIR/session-master.txt" 2>&1 || rc=$?
	# 124 (137): timeout(1) ended ssh at the deadline (with KILL).
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		printf 'no answer within %ss\n' "${SETTING[LOGIN_TIMEOUT]}" >>"$RAW_DIR/session-master.txt"
	fi
	[ "$rc" -eq 0 ] || return 1
	deadline=$(( $(date +%s) + SETTING[LOGIN_TIMEOUT] ))
	while :; do
		pid=$(session_master_pid)
		[ -z "$pid" ] || break
		[ "$(date +%s)" -lt "$deadline" ] || return 1
		sleep 0.05
	done
	SESSION_MASTER_PID=$pid
}

# Closes the master (ssh -O exit); ends it by its pid if it does not go.
# Safe to call more than once.
session_stop_master () {
	local pid=${SESSION_MASTER_PID:-}
	[ -n "$pid" ] || pid=$(session_master_pid)
	timeout --kill-after=2 5 "$SSH" -F "$CLIENT_CONFIG" -o ControlPath="$(session_control_path)" \
		-O exit "$HOST_ALIAS" </dev/null >>"$RAW_DIR/session-master.txt" 2>&1 || true
	if [ -n "$pid" ] && ! session_wait_gone "$pid" 5; then
		if tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" | grep -qF -- "ControlPath=$(session_control_path)"; then
			kill "$pid" 2>/dev/null || true
			session_wait_gone "$pid" 2 || kill -KILL "$pid" 2>/dev/null || true
		fi
	fi
	SESSION_MASTER_PID=""
	rm -f "$STATE_DIR"/cm-*
}

# The p50 of a full login, measured here.
session_login_p50 () {
	local tsv="$RAW_DIR/session-logins.tsv"
	helper login -H -n "$SESSION_LOGINS" -t "${SETTING[LOGIN_TIMEOUT]}" -g "$NO_ANSWER_STOP" \
		-- "$SSH" -v -F "$CLIENT_CONFIG" "$HOST_ALIAS" true >"$tsv" 2>>"$RAW_DIR/session-errors.txt" || true
	helper summary -c total_ms -w status=ok -p login_ "$tsv" >"$RAW_DIR/session-logins.env" 2>/dev/null || true
	result_set session login_source "$SESSION_LOGINS logins measured by this test"
	result_set session login_n "$(kv_get "$RAW_DIR/session-logins.env" login_n)"
	kv_get "$RAW_DIR/session-logins.env" login_p50
}

# session_staged: the p95's interval, and more commands over the same
# master connection in the stages of stage_plan (lib/measure.sh) while it
# holds the target, appended to raw/session-commands.tsv (numbered on);
# the counts and percentiles over all of them. No stage after a failed
# command or once the master is gone.
session_staged () {
	local tsv="$RAW_DIR/session-commands.tsv" part="$TMPDIR/session-commands-stage.tsv" env want stage=0 have more key
	for want in $(stage_plan "${SETTING[SESSION_COMMANDS]}" 95); do
		if [ "$stage" -gt 0 ]; then
			result_interval_holds session "<=" "${SETTING[TARGET_SESSION_P95_MS]}" || break
			have=$(( $(wc -l <"$tsv") - 1 ))
			more=$(( want - have ))
			[ "$more" -gt 0 ] || continue
			if [ "$(result_get session failed)" != 0 ] || [ "$(result_get session not_run)" != 0 ] ||
				[ "$(session_master_pid)" != "$SESSION_MASTER_PID" ]; then
				break
			fi
			progress_step "session: the p95's interval holds the target; $more more commands (stage $((stage + 1)))"
			env="$RAW_DIR/session-commands-stage$((stage + 1)).env"
			session_commands "$more" "$part" >"$env" || true
			tsv_renumber seq "$have" <"$part" >>"$tsv"
			rm -f "$part"
			for key in runs ok failed not_run; do
				result_set session "$key" "$(( $(result_get session "$key") + $(kv_get "$env" "$key") ))"
			done
			helper summary -c total_ms -w exit=0 "$tsv" >>"$DATA_DIR/session.env"
		fi
		stage=$((stage + 1))
		result_interval_order session "$tsv" total_ms 95
	done
	result_set session stages "$stage"
	result_set session samples_final "$(result_get session ok)"
}

# session_commands N FILE: N timed commands through the master (each
# `ssh sshperf-test true`), one row each into FILE; the counts and
# percentiles on stdout (sshperf-repeat). A client that does not find the
# master would log in by itself and be timed as a command: with no
# authentication method left, it fails instead (and is counted as failed).
session_commands () {
	helper repeat -n "$1" -t "${SETTING[LOGIN_TIMEOUT]}" -g "$NO_ANSWER_STOP" -o "$2" \
		-- "$SSH" -F "$CLIENT_CONFIG" -o ControlMaster=no -o ControlPath="$(session_control_path)" \
		-o PubkeyAuthentication=no -o PasswordAuthentication=no -o KbdInteractiveAuthentication=no \
		-o GSSAPIAuthentication=no -o HostbasedAuthentication=no "$HOST_ALIAS" true \
		2>>"$RAW_DIR/session-errors.txt"
}

measure_session () {
	local key value ok failed p50 p95 login_p50 err left why not_run
	: >"$RAW_DIR/session-master.txt"
	: >"$RAW_DIR/session-errors.txt"
	SESSION_MASTER_PID=""
	# Closed also when the job ends in the middle (a signal).
	at_exit session_stop_master

	if ! session_start_master; then
		# The master's own last message, before the clean-up adds its own.
		why=$(grep -v '^$' "$RAW_DIR/session-master.txt" | tail -n 1)
		at_exit_pop
		result_status session FAIL "the master connection did not come up: ${why:-ssh said nothing}" \
			"Read raw/session-master.txt for why the master connection failed, fix it, and rerun ./test-ssh.sh session"
		result_set session summary "no master connection"
		return 0
	fi
	result_set session master_pid "$SESSION_MASTER_PID"

	session_commands "${SETTING[SESSION_COMMANDS]}" "$RAW_DIR/session-commands.tsv" >"$RAW_DIR/session-commands.env" || true
	while IFS='=' read -r key value; do
		[ -n "$key" ] && result_set session "$key" "$value"
	done <"$RAW_DIR/session-commands.env"
	# More commands while the p95's interval holds the target.
	session_staged
	if [ "$(session_master_pid)" = "$SESSION_MASTER_PID" ]; then
		result_set session master_survived yes
	else
		result_set session master_survived no
	fi
	at_exit_pop
	left=$(session_processes | wc -l)
	result_set session processes_left "$left"
	[ "$left" -eq 0 ] || result_warn session "$left ssh processes with the test's control path were still running after the master was closed"

	login_p50=$(session_login_p50)
	result_set session login_p50 "${login_p50:--}"
	p50=$(result_get session p50)
	p95=$(result_get session p95)
	ok=$(result_get session ok)
	failed=$(result_get session failed)
	if [ -n "$login_p50" ] && [ -n "$p50" ] && awk -v p="$p50" 'BEGIN { exit !(p > 0) }'; then
		result_set session speedup "$(awk -v l="$login_p50" -v p="$p50" 'BEGIN { printf "%.1f", l / p }')"
	fi
	result_verdict session "$p95" "<=" "${SETTING[TARGET_SESSION_P95_MS]}" ms "p95 of a command over the open connection, n=${ok:-0}" \
		"p95 $(figs ms "$p95") ms is above the target of ${SETTING[TARGET_SESSION_P95_MS]} ms" \
		"Make the PAM session stack and the user's shell start faster (what remains of a command over an open connection), or raise TARGET_SESSION_P95_MS if this time is acceptable"
	result_noise_hint session SESSION_COMMANDS "$(noise_samples "${ok:-0}" "$(result_or_dash session figure_lo)" \
		"$(result_or_dash session figure_hi)" "${p95:-0}" "${SETTING[TARGET_SESSION_P95_MS]}")"
	err=$(grep -v '^$' "$RAW_DIR/session-errors.txt" | tail -n 1)
	not_run=$(result_get session not_run)
	[ "${not_run:-0}" -eq 0 ] || err="${err:+$err; }stopped after $NO_ANSWER_STOP commands in a row got no answer within ${SETTING[LOGIN_TIMEOUT]}s, $not_run not run"
	if [ -z "$ok" ] || [ "$ok" -eq 0 ]; then
		result_status session FAIL "no command succeeded over the master connection${err:+: $err}" \
			"Read raw/session-errors.txt for why (MaxSessions, a refused channel), fix it, and rerun ./test-ssh.sh session"
	elif [ "${failed:-0}" -gt 0 ]; then
		result_status session FAIL "$failed of $(result_get session runs) commands failed${err:+ (last message: $err)}" \
			"Read raw/session-errors.txt for why (MaxSessions, a refused channel), fix it, and rerun ./test-ssh.sh session"
	fi
	result_set session summary "p50 ${p50:--} ms, p95 ${p95:--} ms over ${ok:-0} commands (${failed:-0} failed), $(result_get session speedup)x faster than a login (p50 ${login_p50:--} ms), target p95 <= ${SETTING[TARGET_SESSION_P95_MS]} ms"
}
