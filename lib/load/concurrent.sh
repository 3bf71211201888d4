# shellcheck shell=bash
# The load mode's concurrent (lib/bin/load.sh): the client side of the
# concurrent test (lib/metrics/concurrent.sh) from a load host, with the
# same session holder (lib/open-sessions.sh, build/sshperf-hold).
# CONCURRENT_SESSIONS sessions are opened, at most
# CONCURRENT_LOGIN_PARALLEL logging in at once, each running cat; once
# all are open they are held DURATION seconds, the load's window, so
# that every load host's sessions are open on the target together; then
# every session must echo a line of its own, and all are closed. The
# holder's files are raw/concurrent-hold.txt, -sessions.tsv,
# -ssh-errors.txt and -hold-errors.txt. What the sessions cost the target
# (its memory, its limits) is the target's to measure.

# shellcheck source=lib/open-sessions.sh
. "$KIT_DIR/lib/open-sessions.sh"

about_load_concurrent () {
	printf '%s sessions open at once (%s logging in at a time), each running cat, held %s s and checked end to end\n' \
		"${SETTING[CONCURRENT_SESSIONS]}" "${SETTING[CONCURRENT_LOGIN_PARALLEL]}" "${SETTING[DURATION]}"
}

# load_concurrent_hold SECONDS: waits SECONDS with the sessions open, or
# until the holder ends. The time is a sleep's (a relative sleep, which a
# wall clock set back does not stretch), looked at every 0.2 s.
load_concurrent_hold () {
	local timer
	sleep "$1" &
	timer=$!
	at_exit end_pids 1 "$timer"
	while kill -0 "$timer" 2>/dev/null && kill -0 "$HOLD_PID" 2>/dev/null; do
		sleep 0.2
	done
	at_exit_pop
	end_pids 1 "$timer"
	wait "$timer" 2>/dev/null || true
}

# load_concurrent CONFIG: the sessions through the client configuration
# CONFIG; the holder's counts into data/load.env as concurrent_*. False
# when the holder did not run.
load_concurrent () {
	local n=${SETTING[CONCURRENT_SESSIONS]} p=${SETTING[CONCURRENT_LOGIN_PARALLEL]} k alive not_started
	# The holder's client: this run's configuration and target
	# (lib/open-sessions.sh reads these names).
	CLIENT_CONFIG=$1 HOST_ALIAS=$LOAD_ALIAS
	hold_start concurrent "$n" "$p" || return 1
	load_set concurrent_sessions "$n"
	load_set concurrent_parallel "$p"
	if hold_wait open "$(hold_open_seconds "$n" "$p")"; then
		load_set concurrent_open_wall_ns "$(date +%s%N)"
		load_concurrent_hold "${SETTING[DURATION]}"
		load_set concurrent_check_wall_ns "$(date +%s%N)"
		hold_check || warn "concurrent: the alive check did not finish"
		load_set concurrent_state_open yes
	else
		load_set concurrent_state_open no
	fi
	hold_end || true
	[ -s "$HOLD_OUT" ] || return 1
	for k in opened open_failed alive dead not_started open_wall_ms open_ms_n open_ms_p50 open_ms_p95 open_ms_max \
		check_ms closed terminated killed children_left; do
		load_set "concurrent_$k" "$(hold_get "$k")"
	done
	load_set concurrent_held_s "${SETTING[DURATION]}"
	load_set concurrent_clients_left "$(hold_clients_left "$RAW_DIR/concurrent-sessions.tsv" | wc -l)"
	# The counts of the run's status: alive at the check, not started
	# (the holder stopped after logins without an answer), the rest failed.
	alive=$(hold_get alive) not_started=$(hold_get not_started)
	load_set concurrent_ok "${alive:-0}"
	load_set concurrent_not_run "${not_started:-0}"
	load_set concurrent_failed "$((n - ${alive:-0} - ${not_started:-0}))"
}
