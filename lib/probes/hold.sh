# shellcheck shell=bash
# Probe hold: CONCURRENT_SESSIONS sessions held open at the same time, at
# most CONCURRENT_LOGIN_PARALLEL logging in at once (build/sshperf-hold,
# lib/open-sessions.sh), each running cat; while all are open, every session must
# echo a line of its own, and the test server's memory is sampled (at
# rest before the sessions, with all open, one session alone). Used by
# concurrent (the sessions and the check) and memory (the samples).
#
# Outputs (docs/architecture.md, "Probes"):
#   data/probe-hold.env    status, reason; sessions, parallel, opened,
#                          alive, dead, the holder's keys, user tasks and
#                          MemAvailable before and open, clients_left,
#                          state_open; the samples rest_*, open_*, one_*,
#                          sessions_open, mem_available_kb
#   raw/probe-hold-hold.txt, -sessions.tsv, -ssh-errors.txt, -hold-errors.txt
#                          the holder's output (lib/open-sessions.sh)
#   raw/probe-hold-memory-rest.tsv, -memory-one-session.tsv
#                          one row per process (sshperf-sampler -P)
#   raw/probe-hold-sshd-log.txt   the server's log during the hold

# shellcheck source=lib/open-sessions.sh
. "$KIT_DIR/lib/open-sessions.sh"

about_probe_hold () {
	printf '%s sessions open at once (%s logging in at a time), checked and sampled\n' \
		"${SETTING[CONCURRENT_SESSIONS]}" "${SETTING[CONCURRENT_LOGIN_PARALLEL]}"
}

# Processes (and threads: the nproc limit counts both) of the test user.
hold_user_tasks () {
	local uid
	uid=$(id -u "${SETTING[TEST_USER]}" 2>/dev/null) || { echo 0; return; }
	awk -v uid="$uid" '$1 == "Uid:" && $2 == uid { n++ } END { print n + 0 }' \
		/proc/[0-9]*/task/[0-9]*/status 2>/dev/null
}

# hold_mem_available_mb [KB]: MemAvailable (KB KiB, else now) in whole MB
# (10^6 bytes), rounded as the report rounds it (docs/data.md, "Rounding").
hold_mem_available_mb () {
	if [ -n "${1:-}" ]; then
		awk -v k="$1" 'BEGIN { printf "%.0f", k * 1024 / 1e6 }'
	else
		awk '/^MemAvailable:/ { printf "%.0f", $2 * 1024 / 1e6 }' /proc/meminfo
	fi
}

probe_hold () {
	local p=probe-hold raw="$RAW_DIR/probe-hold" n=${SETTING[CONCURRENT_SESSIONS]} par=${SETTING[CONCURRENT_LOGIN_PARALLEL]}
	local mem="$RAW_DIR/probe-hold-memory.env" opened=0 root mark k kb
	result_set "$p" sessions "$n"
	result_set "$p" parallel "$par"
	# One read of MemAvailable before the sessions, for both its figures.
	kb=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
	result_set "$p" mem_available_mb_before "$(hold_mem_available_mb "$kb")"
	result_set "$p" user_tasks_before "$(hold_user_tasks)"
	# The memory at rest, before any session.
	{
		printf 'mem_available_kb=%s\n' "$kb"
		server_memory rest_
	} >"$mem" 2>>"$raw-hold-errors.txt" || true
	server_memory_rows >"$raw-memory-rest.tsv" 2>>"$raw-hold-errors.txt" || true
	mark=$(server_log_mark)

	if ! hold_start "$p" "$n" "$par"; then
		result_set "$p" status ERROR
		result_set "$p" reason "the session holder could not be started"
		return 1
	fi
	if hold_wait open "$(hold_open_seconds "$n" "$par")"; then
		opened=$(hold_get opened)
		result_set "$p" user_tasks_open "$(hold_user_tasks)"
		result_set "$p" mem_available_mb_open "$(hold_mem_available_mb)"
		# Memory with every session open, and one session alone.
		if [ "${opened:-0}" -gt 0 ]; then
			root=$(session_roots | head -n 1)
			{
				printf 'sessions_open=%s\n' "$opened"
				server_memory open_
				if [ -n "$root" ]; then
					session_memory one_ "$root"
					session_memory_rows "$root" >"$raw-memory-one-session.tsv"
				fi
			} >>"$mem" 2>>"$raw-hold-errors.txt" || true
		fi
		hold_check || warn "hold: the alive check did not finish"
	fi
	# The holder's status repeats what its output says.
	hold_end || true
	result_import "$p" "$mem"
	rm -f "$mem"
	result_set "$p" clients_left "$(hold_clients_left "$raw-sessions.tsv" | wc -l)"
	# The server's log during the hold.
	server_log_since "$mark" >"$RAW_DIR/probe-hold-sshd-log.txt" 2>/dev/null || true
	for k in opened open_failed alive dead not_started open_wall_ms open_ms_n open_ms_p50 open_ms_p95 open_ms_max \
		check_ms closed terminated killed children_left fd_limit; do
		result_set "$p" "$k" "$(hold_get "$k")"
	done
	result_set "$p" state_open "$(grep -qx 'state=open' "$HOLD_OUT" && echo yes || echo no)"
	result_set "$p" status ok
}
