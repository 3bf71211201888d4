# shellcheck shell=bash
# memory: PSS of the test server and of what its sessions run, at rest and
# with CONCURRENT_SESSIONS sessions open; per session = the difference
# divided by the sessions. The samples are the probe hold's
# (lib/probes/hold.sh, whose sessions concurrent judges). Also the RSS of
# one session, to show why RSS must not be added up.
# shellcheck source=lib/open-sessions.sh
. "$KIT_DIR/lib/open-sessions.sh"

about_memory () {
	printf 'memory of the test server at rest and with the %s sessions of the hold\n' "${SETTING[CONCURRENT_SESSIONS]}"
}

# kb_mb KB: KiB (as /proc counts) to MB of 10^6 bytes, one decimal.
kb_mb () {
	awk -v k="$1" 'BEGIN { printf "%.1f", k * 1024 / 1e6 }'
}

measure_memory () {
	local probe="$DATA_DIR/probe-hold.env" k v sessions rest open per_kb per_mb avail
	local listener rest_mgr open_mgr rest_other manager
	result_set memory source hold
	result_set memory hold_raw raw/probe-hold
	# The holder's own output, for hold_stopped_note.
	HOLD_OUT="$RAW_DIR/probe-hold-hold.txt"
	if [ "$(kv_get "$probe" sessions_open)" = "" ]; then
		result_status memory ERROR "no session could be held open for the sample (the hold opened $(kv_get "$probe" opened | sed 's/^$/none/') of $(kv_get "$probe" sessions))$(hold_stopped_note); see raw/probe-hold-hold-errors.txt and raw/probe-hold-ssh-errors.txt" \
			"Read raw/probe-hold-ssh-errors.txt for why no session stayed open, fix it, and rerun ./test-ssh.sh memory"
		result_set memory figure -
		result_set memory summary "no sample"
		return 1
	fi
	# The hold's samples, into the test's data.
	while IFS='=' read -r k v; do
		case $k in
		mem_available_kb | sessions_open | rest_* | open_*pss_kb | open_*rss_kb | open_*processes | one_*) result_set memory "$k" "$v" ;;
		esac
	done <"$probe"
	sessions=$(result_get memory sessions_open)
	rest=$(result_get memory rest_pss_kb)
	open=$(result_get memory open_pss_kb)
	avail=$(result_get memory mem_available_kb)
	if [ -z "$rest" ] || [ -z "$open" ] || [ "${sessions:-0}" -le 0 ]; then
		result_verdict memory "" "<=" "${SETTING[TARGET_MEMORY_PER_SESSION_MB]}" MB "PSS per open session"
		result_status memory ERROR "the sampler gave no PSS (at rest: ${rest:--}, open: ${open:--}, sessions ${sessions:-0})" \
			"Rerun ./test-ssh.sh memory as root on a kernel that has /proc/PID/smaps_rollup: the sampler could not read the memory"
		result_set memory summary "no PSS sample"
		return 1
	fi
	# Who the memory belongs to (the sampler tells them apart by pid and
	# cgroup): the listener; the test user's systemd --user manager
	# (user@UID.service), one per user and shared by all of its sessions,
	# which logind keeps for a while after the last one; anything else.
	# Without the split (never seen) the whole at-rest figure counts as
	# the listener's.
	listener=$(result_get memory rest_listener_pss_kb)
	rest_mgr=$(result_get memory rest_manager_pss_kb)
	open_mgr=$(result_get memory open_manager_pss_kb)
	rest_other=$(result_get memory rest_other_pss_kb)
	[ -n "$listener" ] || listener=$rest
	# The manager as it is with sessions open (it may have stopped
	# before the sample at rest, or started only with the sessions).
	manager=${open_mgr:-${rest_mgr:-0}}
	[ "$manager" != 0 ] || manager=${rest_mgr:-0}
	# kB in /proc are KiB; MB here are 10^6 bytes. Per session: the
	# growth without the manager, which is there once whatever the count.
	per_kb=$(awk -v a="$rest" -v b="$open" -v am="${rest_mgr:-0}" -v bm="${open_mgr:-0}" -v n="$sessions" \
		'BEGIN { printf "%.1f", ((b - bm) - (a - am)) / n }')
	per_mb=$(awk -v k="$per_kb" 'BEGIN { printf "%.2f", k * 1024 / 1e6 }')
	result_set memory per_session_kb "$per_kb"
	result_set memory per_session_mb "$per_mb"
	result_set memory rest_mb "$(kb_mb "$rest")"
	result_set memory open_mb "$(kb_mb "$open")"
	result_set memory listener_mb "$(kb_mb "$listener")"
	result_set memory manager_kb "$manager"
	result_set memory manager_mb "$(kb_mb "$manager")"
	result_set memory rest_other_mb "$(kb_mb "${rest_other:-0}")"
	# 500 sessions of one user: the listener, one manager, the sessions.
	# 500 users with one session each: a manager each.
	result_set memory estimate_500_mb "$(awk -v l="$listener" -v m="$manager" -v p="$per_kb" 'BEGIN { printf "%.0f", (l + m + 500 * p) * 1024 / 1e6 }')"
	result_set memory estimate_500_users_mb "$(awk -v l="$listener" -v m="$manager" -v p="$per_kb" 'BEGIN { printf "%.0f", (l + 500 * (m + p)) * 1024 / 1e6 }')"
	result_set memory available_mb "$(awk -v k="${avail:-0}" 'BEGIN { printf "%.0f", k * 1024 / 1e6 }')"
	result_set memory sessions_fit "$(awk -v a="${avail:-0}" -v p="$per_kb" 'BEGIN { if (p > 0) printf "%d", a / p; else print "-" }')"
	result_interval memory - - "$sessions" - "" "one slope between the server at rest and with $sessions sessions open: no interval from it"
	result_verdict memory "$per_mb" "<=" "${SETTING[TARGET_MEMORY_PER_SESSION_MB]}" MB "PSS per open session" \
		"$(figs MB "$per_mb") MB per session is above the target of ${SETTING[TARGET_MEMORY_PER_SESSION_MB]} MB" \
		"Plan RAM for the sessions at this size (the capacity section computes how many fit), or raise TARGET_MEMORY_PER_SESSION_MB: memory per session is hardly tunable; look for PAM session modules that start programs per session"
	awk -v p="$per_kb" 'BEGIN { exit !(p <= 0) }' &&
		result_status memory ERROR "the memory with $sessions sessions open ($open kB) was not above the memory at rest ($rest kB): the sample missed the sessions' processes" \
			"Rerun ./test-ssh.sh memory: the sample missed the sessions' processes, which a busy machine can cause"
	result_set memory summary "listener $(result_get memory listener_mb) MB at rest$(
		[ "$manager" = 0 ] || printf ' (+ %s MB the test user'"'"'s systemd manager)' "$(result_get memory manager_mb)"
	), $per_mb MB (PSS) per session over $sessions sessions; 500 sessions about $(result_get memory estimate_500_mb) MB; target <= ${SETTING[TARGET_MEMORY_PER_SESSION_MB]} MB"
}
