# shellcheck shell=bash
# startup: STARTUP_ROUNDS stop/start cycles of the test server. Time zero is
# the moment the start is issued (systemd: sshperf-unit's issued_mono_ns;
# direct: sshperf-clock just before sshd is run). A connect poller that is
# already polling then records the first greeting; right after it, one
# complete login is made and timed from the same time zero. The server is
# running again afterwards, whatever happened.

about_startup () {
	printf 'stops and starts the test server %s times; greeting and first login timed from the start command (about %s s)\n' \
		"${SETTING[STARTUP_ROUNDS]}" "$((SETTING[STARTUP_ROUNDS] * 2 + 1))"
}

# Pids of this test's background processes, ended by startup_restore.
STARTUP_PIDS=""

# True once pid $1 runs sshperf-connect and has slept between two attempts
# (it is polling); waits at most 5 s.
startup_poller_polling () {
	local pid=$1 deadline exe switches
	deadline=$(( $(date +%s) + 5 ))
	while [ "$(date +%s)" -le "$deadline" ]; do
		[ -d "/proc/$pid" ] || return 1
		exe=$(readlink "/proc/$pid/exe" 2>/dev/null || true)
		case $exe in
		*/sshperf-connect)
			switches=$(sed -n 's/^voluntary_ctxt_switches:[[:space:]]*//p' "/proc/$pid/status" 2>/dev/null || true)
			[ "${switches:-0}" -lt 2 ] || return 0
			;;
		esac
		sleep 0.005
	done
	return 1
}

# Ends what this test left running and starts the server if it is down.
# Run through at_exit, also when a signal ends the job while a function
# runs with its output sent to a file: it first takes back the test's own
# stdout and stderr (saved as 7 and 8).
startup_restore () {
	local pid
	exec 1>&7 2>&8
	for pid in $STARTUP_PIDS; do
		[ -d "/proc/$pid" ] && end_pids 5 "$pid"
		wait "$pid" 2>/dev/null || true
	done
	STARTUP_PIDS=""
	if [ -z "$(server_pid)" ]; then
		SERVER_T0_FILE="" server_start >/dev/null || warn "startup: the test server could not be started again; run ./start-ssh.sh"
	fi
}

# startup_ms A B: (B - A) in ms, 3 decimals; "-" when either is missing.
startup_ms () {
	case "$1:$2" in *[!0-9:]* | :* | *:) printf -- '-'; return ;; esac
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b - a) / 1e6 }'
}

# The columns of raw/startup-rounds.tsv (docs/data.md).
STARTUP_ROUNDS_COLUMNS="round status greeting_ms first_login_ms polled_before_start poll_attempts message"

# startup_row TSV ROUND STATUS [GREETING_MS FIRST_LOGIN_MS POLLED_BEFORE ATTEMPTS] MESSAGE:
# appends one row to the rounds table, by column name ("-" where not known).
startup_row () {
	# shellcheck disable=SC2034 # read by tsv_row, by its name
	local -A row=([round]=$2 [status]=$3 [message]=${!#})
	if [ "$#" -eq 8 ]; then
		# shellcheck disable=SC2034 # likewise
		row[greeting_ms]=$4 row[first_login_ms]=$5 row[polled_before_start]=$6 row[poll_attempts]=$7
	fi
	tsv_row row "$STARTUP_ROUNDS_COLUMNS" >>"$1"
}

# One stop/start cycle; appends a row to the rounds TSV.
startup_round () {
	local r=$1 tsv=$2 base="$RAW_DIR/startup-round-$1" poll_pid start_pid t0="" poll_rc=0 \
		start_rc=0 greet_ns="" polled_from="" attempts="" login_status=- done_ns="" status=ok \
		msg=- greeting_ms=- login_ms=- before=-
	if ! server_stop >"$base-stop.txt" 2>&1; then
		startup_row "$tsv" "$r" stop_failed "$(cat "$base-stop.txt")"
		return 1
	fi
	# The poller first; the start is issued only once it polls.
	"$HELPER_DIR/sshperf-connect" -i 1000 -t "$((SETTING[SERVER_START_TIMEOUT] * 1000))" \
		127.0.0.1 "${SETTING[TEST_PORT]}" >"$base-poll.env" 2>"$base-poll.err" &
	poll_pid=$!
	STARTUP_PIDS="$poll_pid"
	if ! startup_poller_polling "$poll_pid"; then
		startup_row "$tsv" "$r" error "the connect poller did not start polling within 5 s"
		return 1
	fi
	SERVER_T0_FILE="$base-t0" server_start >"$base-start.txt" 2>&1 &
	start_pid=$!
	STARTUP_PIDS="$poll_pid $start_pid"
	wait "$poll_pid" || poll_rc=$?
	if [ "$poll_rc" -eq 0 ]; then
		helper login -H -n 1 -t "${SETTING[LOGIN_TIMEOUT]}" -- "$SSH" -v -F "$CLIENT_CONFIG" "$HOST_ALIAS" true \
			>"$base-login.tsv" 2>"$base-login.err" || true
		done_ns=$(helper clock | sed -n 's/^mono_ns=//p')
		login_status=$(tsv_select "$base-login.tsv" status | head -n 1)
	fi
	wait "$start_pid" || start_rc=$?
	STARTUP_PIDS=""
	t0=$(cat "$base-t0" 2>/dev/null || true)
	greet_ns=$(kv_get "$base-poll.env" greeting_mono_ns)
	polled_from=$(kv_get "$base-poll.env" start_mono_ns)
	attempts=$(kv_get "$base-poll.env" attempts)
	if [ "$start_rc" -ne 0 ] || [ -z "$t0" ]; then
		status=start_failed
		msg="server_start: $(tr '\n\t' '  ' <"$base-start.txt")"
	elif [ "$poll_rc" -ne 0 ]; then
		status=no_greeting
		msg="no greeting within ${SETTING[SERVER_START_TIMEOUT]}s ($(kv_get "$base-poll.env" last_error))"
	elif [ "$login_status" != ok ]; then
		status=login_failed
		msg="first login: $(tsv_select "$base-login.tsv" error | head -n 1)"
	fi
	if [ -n "$t0" ]; then
		greeting_ms=$(startup_ms "$t0" "$greet_ns")
		[ "$status" != ok ] || login_ms=$(startup_ms "$t0" "$done_ns")
		if [ -n "$polled_from" ]; then
			before=$([ "$polled_from" -le "$t0" ] && echo yes || echo no)
		fi
	fi
	# A poller that began after time zero could report a late greeting.
	if [ "$status" = ok ] && [ "$before" != yes ]; then
		status=error
		msg="the poller began polling after the start was issued"
	fi
	startup_row "$tsv" "$r" "$status" "$greeting_ms" "$login_ms" "$before" "${attempts:--}" "$msg"
	[ "$status" = ok ]
}

# startup_whose yes|no: the first logins of the rounds in one login table,
# raw/startup-logins.tsv (the round as sample), and whose time they were
# (lib/capture.sh: the startup-parts and startup-whose tables of raw/).
startup_whose () {
	local timeline=$1 logins="$RAW_DIR/startup-logins.tsv" r f
	: >"$logins"
	for r in $(seq 1 "${SETTING[STARTUP_ROUNDS]}"); do
		f="$RAW_DIR/startup-round-$r-login.tsv"
		[ ! -s "$f" ] || capture_login_append "$logins" "$r" <"$f"
	done
	# shellcheck disable=SC2034 # read by capture_whose (lib/capture.sh)
	[ -s "$logins" ] || { timeline=no; CAPTURE_NOTE="no round made a login"; }
	capture_whose startup startup "$logins" "$timeline"
	[ "$(result_get startup timeline)" != yes ] || capture_check startup startup
}

measure_startup () {
	local tsv="$RAW_DIR/startup-rounds.tsv" r ok failed max p50 timeline=no
	# The server runs again after this test, whatever happens: also when
	# INT or TERM ends the job (its at_exit list).
	exec 7>&1 8>&2
	at_exit startup_restore
	tsv_header "$STARTUP_ROUNDS_COLUMNS" >"$tsv"
	# The timeline's capture runs over all rounds, started before the first
	# stop so that it adds nothing to a round's clock; it keeps the logins'
	# connections and drops the poller's (no data from the client).
	capture_start startup $(( SETTING[STARTUP_ROUNDS] * (SETTING[SERVER_START_TIMEOUT] + SETTING[LOGIN_TIMEOUT] + 5) + 30 )) &&
		timeline=yes
	for r in $(seq 1 "${SETTING[STARTUP_ROUNDS]}"); do
		progress_step "startup: round $r of ${SETTING[STARTUP_ROUNDS]}"
		startup_round "$r" "$tsv" || true
	done
	[ "$timeline" = no ] || at_exit_pop
	at_exit_pop
	exec 7>&- 8>&-
	startup_whose "$timeline"

	ok=$(tsv_select "$tsv" status | grep -cx ok || true)
	failed=$(tsv_select "$tsv" status | grep -cvx ok || true)
	result_set startup rounds "${SETTING[STARTUP_ROUNDS]}"
	result_set startup ok "$ok"
	result_set startup failed "$failed"
	result_set startup mode "$(server_get MODE)"
	result_set startup poll_interval_us 1000
	helper summary -c greeting_ms -p greeting_ "$tsv" >>"$DATA_DIR/startup.env"
	helper summary -c first_login_ms -w status=ok -p first_login_ "$tsv" >>"$DATA_DIR/startup.env"
	max=$(result_get startup first_login_max)
	p50=$(result_get startup first_login_p50)
	result_interval startup - - "$ok" order "raw/$(basename "$tsv") first_login_ms" \
		"the slowest of $ok starts is what those starts did, not an estimate: no interval; the verdict is on the starts seen (STARTUP_ROUNDS=$ok)"
	result_verdict startup "$max" "<=" "${SETTING[TARGET_STARTUP_MS]}" ms "slowest first login after a start (n = $ok)" \
		"the slowest first login took $(figs ms "$max") ms, over the target of ${SETTING[TARGET_STARTUP_MS]} ms" \
		"Look for slow Include files, an AuthorizedKeysCommand or a slow disk (the server's log of the start), or raise TARGET_STARTUP_MS if this time is acceptable"
	if [ -z "$(server_pid)" ]; then
		result_status startup ERROR "the test server is not running after the test; run ./start-ssh.sh"
	elif [ "$ok" -eq 0 ]; then
		result_status startup FAIL "no round ended with a login; first problem: $(tsv_select "$tsv" status message | awk -F'\t' '$1 != "ok" { print $1 ": " $2; exit }')" \
			"Check the configuration with sshd -t and the server's log of the start, fix it, and rerun ./test-ssh.sh startup"
	elif [ "$failed" -gt 0 ]; then
		result_status startup FAIL "$failed of ${SETTING[STARTUP_ROUNDS]} rounds failed: $(tsv_select "$tsv" status message | awk -F'\t' '$1 != "ok" { print $1 ": " $2; exit }')" \
			"Read the server's log of the failed start, fix what it names, and rerun ./test-ssh.sh startup"
	else
		# The greeting is judged too: the slowest one after a start.
		result_set startup greeting_target "${SETTING[TARGET_GREETING_MS]}"
		[ "$(verdict "$(result_get startup greeting_max)" "<=" "${SETTING[TARGET_GREETING_MS]}")" = PASS ] ||
			result_fail startup "the slowest greeting came $(figs ms "$(result_get startup greeting_max)") ms after the start command, over TARGET_GREETING_MS=${SETTING[TARGET_GREETING_MS]} ms" \
				"Look for what delays sshd before it listens (host keys made at start, a slow disk), or raise TARGET_GREETING_MS if this is acceptable"
	fi
	result_set startup summary "greeting p50 $(result_or_dash startup greeting_p50) ms; first login p50 ${p50:--} ms, max ${max:--} ms over $ok of ${SETTING[STARTUP_ROUNDS]} restarts, target max <= ${SETTING[TARGET_STARTUP_MS]} ms (greeting <= ${SETTING[TARGET_GREETING_MS]} ms)"
}
