# shellcheck shell=bash
# memory: PSS of the test server and of what its sessions run, at rest and
# with CONCURRENT_SESSIONS sessions open; per session = the difference
# divided by the sessions. Uses the samples `concurrent` took during its
# hold (data/memory-hold.env) when it ran in the same run, else holds the
# sessions itself. Also the RSS of one session, to show why RSS must not
# be added up.
# shellcheck source=lib/hold.sh
. "$KIT_DIR/lib/hold.sh"

about_memory () {
	if [ -s "$DATA_DIR/memory-hold.env" ]; then
		printf 'memory of the test server at rest and with the %s sessions of concurrent (no extra time)\n' "$CONCURRENT_SESSIONS"
	else
		printf 'memory of the test server at rest and with %s sessions open (about %s s)\n' \
			"$CONCURRENT_SESSIONS" "$(( CONCURRENT_SESSIONS / 10 + 10 ))"
	fi
}

# Holds CONCURRENT_SESSIONS sessions itself and samples, into $1.
memory_own_hold () {
	local mem=$1 n=$CONCURRENT_SESSIONS p=$CONCURRENT_LOGIN_PARALLEL root
	{
		printf 'source=memory\n'
		printf 'mem_available_kb=%s\n' "$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)"
		server_memory rest_
	} >"$mem.tmp" 2>>"$RAW_DIR/memory-hold-errors.txt" || return 1
	hold_start memory "$n" "$p" || return 1
	if hold_wait open "$(hold_open_seconds "$n" "$p")" && [ "$(hold_get opened)" -gt 0 ]; then
		root=$(session_roots | head -n 1)
		{
			printf 'sessions_open=%s\n' "$(hold_get opened)"
			server_memory open_
			if [ -n "$root" ]; then
				session_memory one_ "$root"
				session_memory_rows "$root" >"$RAW_DIR/memory-one-session.tsv"
			fi
		} >>"$mem.tmp" 2>>"$RAW_DIR/memory-hold-errors.txt" && mv -f "$mem.tmp" "$mem"
	fi
	rm -f "$mem.tmp"
	hold_end || true
	[ -s "$mem" ]
}

measure_memory () {
	local mem="$DATA_DIR/memory-hold.env" k v sessions rest open per_kb per_mb avail
	if [ ! -s "$mem" ]; then
		memory_own_hold "$mem" || {
			result_set memory status ERROR
			result_set memory figure -
			result_set memory reason "no session could be held open for the sample$(hold_stopped_note); see raw/memory-hold-errors.txt and raw/memory-ssh-errors.txt"
			result_set memory summary "no sample"
			return 1
		}
	fi
	# Everything the sample holds, into the test's data.
	while IFS='=' read -r k v; do
		[ -n "$k" ] && result_set memory "$k" "$v"
	done <"$mem"
	sessions=$(result_get memory sessions_open)
	rest=$(result_get memory rest_pss_kb)
	open=$(result_get memory open_pss_kb)
	avail=$(result_get memory mem_available_kb)
	result_set memory unit MB
	result_set memory figure_label "PSS per open session"
	result_set memory target "$TARGET_MEMORY_PER_SESSION_MB"
	result_set memory target_op "<="
	if [ -z "$rest" ] || [ -z "$open" ] || [ "${sessions:-0}" -le 0 ]; then
		result_set memory status ERROR
		result_set memory figure -
		result_set memory reason "the sampler gave no PSS (at rest: ${rest:--}, open: ${open:--}, sessions ${sessions:-0})"
		result_set memory summary "no PSS sample"
		return 1
	fi
	# kB in /proc are KiB; MB here are 10^6 bytes.
	per_kb=$(awk -v a="$rest" -v b="$open" -v n="$sessions" 'BEGIN { printf "%.1f", (b - a) / n }')
	per_mb=$(awk -v k="$per_kb" 'BEGIN { printf "%.2f", k * 1024 / 1e6 }')
	result_set memory per_session_kb "$per_kb"
	result_set memory per_session_mb "$per_mb"
	result_set memory rest_mb "$(awk -v k="$rest" 'BEGIN { printf "%.1f", k * 1024 / 1e6 }')"
	result_set memory open_mb "$(awk -v k="$open" 'BEGIN { printf "%.1f", k * 1024 / 1e6 }')"
	result_set memory estimate_500_mb "$(awk -v r="$rest" -v p="$per_kb" 'BEGIN { printf "%.0f", (r + 500 * p) * 1024 / 1e6 }')"
	result_set memory available_mb "$(awk -v k="${avail:-0}" 'BEGIN { printf "%.0f", k * 1024 / 1e6 }')"
	result_set memory sessions_fit "$(awk -v a="${avail:-0}" -v p="$per_kb" 'BEGIN { if (p > 0) printf "%d", a / p; else print "-" }')"
	result_set memory figure "$per_mb"
	if awk -v p="$per_kb" 'BEGIN { exit !(p <= 0) }'; then
		result_set memory status ERROR
		result_set memory reason "the memory with $sessions sessions open ($open kB) was not above the memory at rest ($rest kB): the sample missed the sessions' processes"
	else
		result_set memory status "$(verdict "$per_mb" "<=" "$TARGET_MEMORY_PER_SESSION_MB")"
		[ "$(result_get memory status)" = PASS ] ||
			result_set memory reason "$per_mb MB per session is above the target of $TARGET_MEMORY_PER_SESSION_MB MB"
	fi
	result_set memory summary "$(result_get memory rest_mb) MB at rest, $per_mb MB (PSS) per session over $sessions sessions; 500 sessions about $(result_get memory estimate_500_mb) MB; target <= $TARGET_MEMORY_PER_SESSION_MB MB"
}
