# shellcheck shell=bash
# reload: RELOAD_SESSIONS sessions open, then the test server is reloaded
# (server_reload: sshd -t first; systemd ReloadUnit, else SIGHUP); from the
# moment of the reload, the time until a new greeting is answered and
# until a complete new login works; then every open session must still
# carry data. A config that sshd -t rejects is not reloaded. Each try of a
# new login is ssh -v timed by sshperf-login, its packets captured from
# just before the reload (lib/capture.sh), so the login that works is
# split into whose time it was: raw/reload-logins.tsv (every try), and
# the reload-packets, reload-parts and reload-whose tables of raw/.
# shellcheck source=lib/open-sessions.sh
. "$KIT_DIR/lib/open-sessions.sh"

about_reload () {
	printf '%s sessions open, the test server reloaded, new logins timed, the sessions checked (about %s s)\n' \
		"${SETTING[RELOAD_SESSIONS]}" "$(( SETTING[RELOAD_SESSIONS] / 10 + 5 ))"
}

# The columns of raw/reload-times.tsv (docs/data.md).
RELOAD_TIMES_COLUMNS="what ms_after_reload"

# The inode of the test port's listening socket (a reload replaces it).
listen_inode () {
	local hex
	hex=$(printf '%04X' "${SETTING[TEST_PORT]}")
	awk -v p=":$hex" '$4 == "0A" && substr($2, length($2) - 4) == p { print $10; exit }' /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

mono_ns () {
	helper clock | sed -n 's/^mono_ns=//p'
}

# reload_ms T0 T1: milliseconds between two monotonic stamps.
reload_ms () {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b - a) / 1e6 }'
}

# Checks, closes and records the sessions (after the reload or the refusal).
reload_check_sessions () {
	local n=$1
	hold_check || warn "reload: the alive check did not finish"
	RELOAD_ALIVE=$(hold_get alive)
	RELOAD_DEAD=$(hold_get dead)
	hold_end || true
	result_set reload opened "$(hold_get opened)"
	result_set reload open_failed "$(hold_get open_failed)"
	result_set reload alive "${RELOAD_ALIVE:-0}"
	result_set reload dead "${RELOAD_DEAD:-0}"
	result_set reload survived "${RELOAD_ALIVE:-0} of $n"
	result_set reload clients_left "$(hold_clients_left "$RAW_DIR/reload-sessions.tsv" | wc -l)"
}

measure_reload () {
	local n=${SETTING[RELOAD_SESSIONS]} p=${SETTING[CONCURRENT_LOGIN_PARALLEL]} out rc=0 t0 t1 pid_before pid_after
	local inode_before end greeting login_ms attempts=0 deadline_s reason label="a new login works after the reload"
	local logins="$RAW_DIR/reload-logins.tsv" row timeline=no
	result_set reload sessions "$n"
	# No figure until a login after the reload is timed.
	result_verdict reload "" "<=" "${SETTING[TARGET_RELOAD_MS]}" ms "$label"

	hold_start reload "$n" "$p" || {
		result_status reload ERROR "the session holder could not be started" \
			"Rerun ./test-ssh.sh reload after make, which builds the kit's helpers"
		return 1
	}
	if ! hold_wait open "$(hold_open_seconds "$n" "$p")" || [ "$(hold_get opened)" -ne "$n" ]; then
		reload_check_sessions "$n"
		result_status reload ERROR "only $(hold_get opened) of $n sessions opened before the reload$(hold_stopped_note); see raw/reload-ssh-errors.txt" \
			"Read raw/reload-ssh-errors.txt for why the sessions did not open, fix it, and rerun ./test-ssh.sh reload"
		result_set reload summary "not reloaded: the sessions did not open"
		return 1
	fi

	# The capture starts before the reload, so that it adds nothing to the
	# clock of the greeting or the login; it keeps only connections that
	# carried the client's data (the greeting poller's and refused tries'
	# are none), and ends before the sessions are checked.
	deadline_s=$(awk -v t="${SETTING[TARGET_RELOAD_MS]}" 'BEGIN { printf "%d", t * 3 / 1000 + 10 }')
	capture_start reload $(( deadline_s * 2 + 40 )) && timeline=yes
	pid_before=$(server_pid)
	inode_before=$(listen_inode)
	result_set reload pid_before "$pid_before"
	out=$(server_reload 2>"$RAW_DIR/reload-errors.txt") || rc=$?
	printf '%s\n' "$out" >"$RAW_DIR/reload-reload.txt"
	if [ "$rc" -ne 0 ]; then
		reason=$(sed -n 's/^[^:]*: not reloading: //p' "$RAW_DIR/reload-errors.txt" | head -n 1 | tr '\t' ' ')
		[ -n "$reason" ] || reason="the reload failed (status $rc): $(tr '\n' ' ' <"$RAW_DIR/reload-errors.txt")"
		# The server must go on serving on its old configuration.
		if wait_greeting 5 >/dev/null && [ "$(server_pid)" = "$pid_before" ]; then
			result_set reload still_serving yes
			reason="refused to reload: $reason; the server was not reloaded and still answers (pid $pid_before)"
		else
			result_set reload still_serving no
			reason="refused to reload: $reason; and the server no longer answers"
		fi
		[ "$timeline" = no ] || at_exit_pop
		reload_check_sessions "$n"
		result_set reload refused yes
		result_status reload ERROR "$reason" \
			"Fix the configuration the reload refused (sshd -t names the error), then rerun ./test-ssh.sh reload"
		result_set reload summary "not reloaded ($reason); ${RELOAD_ALIVE:-0} of $n sessions alive"
		return 0
	fi
	result_set reload refused no
	t0=$(printf '%s\n' "$out" | sed -n 's/^issued_mono_ns=//p' | tail -n 1)
	[ -n "$t0" ] || t0=$(mono_ns)

	# The old listening socket goes away when sshd re-executes itself;
	# until then an answer would still come from the old one.
	end=$(( $(date +%s) + 10 ))
	while [ -n "$inode_before" ] && [ "$(listen_inode)" = "$inode_before" ] && [ "$(date +%s)" -lt "$end" ]; do
		sleep 0.001
	done
	result_set reload socket_replaced "$( [ "$(listen_inode)" != "$inode_before" ] && echo yes || echo no)"
	helper connect -i 1000 -t "$(( deadline_s * 1000 ))" -T "$t0" 127.0.0.1 "${SETTING[TEST_PORT]}" \
		>"$RAW_DIR/reload-greeting.txt" 2>>"$RAW_DIR/reload-errors.txt" || true
	greeting=$(kv_get "$RAW_DIR/reload-greeting.txt" greeting_ms)
	result_set reload greeting_ms "${greeting:--}"

	# A complete login, again and again until one works; each try one row
	# of the login table (the try as sample).
	end=$(( $(date +%s) + deadline_s ))
	login_ms=""
	: >"$logins"
	while [ "$(date +%s)" -lt "$end" ]; do
		attempts=$((attempts + 1))
		row=$(helper login -H -n 1 -t "${SETTING[LOGIN_TIMEOUT]}" -- "$SSH" -v -F "$CLIENT_CONFIG" "$HOST_ALIAS" true \
			</dev/null 2>>"$RAW_DIR/reload-login-errors.txt") || true
		t1=$(mono_ns)
		[ -z "$row" ] || printf '%s\n' "$row" | capture_login_append "$logins" "$attempts"
		if [ "$(tsv_select "$logins" status | tail -n 1)" = ok ]; then
			login_ms=$(reload_ms "$t0" "$t1")
			break
		fi
		tsv_select "$logins" status error | tail -n 1 | tr '\t' ' ' >>"$RAW_DIR/reload-login-errors.txt"
		sleep 0.01
	done
	[ "$timeline" = no ] || at_exit_pop
	# shellcheck disable=SC2034 # read by capture_whose (lib/capture.sh)
	[ -s "$logins" ] || { timeline=no; CAPTURE_NOTE="no login was tried"; }
	capture_whose reload reload "$logins" "$timeline"
	[ "$(result_get reload timeline)" != yes ] || capture_check reload reload
	result_set reload login_ms "${login_ms:--}"
	result_set reload login_attempts "$attempts"
	pid_after=$(server_pid)
	result_set reload pid_after "$pid_after"
	# shellcheck disable=SC2034 # read by tsv_row, by their names
	local -A greeting_row=([what]=greeting [ms_after_reload]=$greeting) login_row=([what]=login [ms_after_reload]=$login_ms)
	{
		tsv_header "$RELOAD_TIMES_COLUMNS"
		tsv_row greeting_row "$RELOAD_TIMES_COLUMNS"
		tsv_row login_row "$RELOAD_TIMES_COLUMNS"
	} >"$RAW_DIR/reload-times.tsv"

	reload_check_sessions "$n"
	result_interval reload - - "${login_ms:+1}" - "" "one login after one reload: one measurement, no interval"
	result_verdict reload "$login_ms" "<=" "${SETTING[TARGET_RELOAD_MS]}" ms "$label" \
		"a new login worked only $(figs ms "$login_ms") ms after the reload (target ${SETTING[TARGET_RELOAD_MS]} ms)" \
		"Look for what makes sshd slow to start again (large Include files, many host keys, AuthorizedKeysCommand), or raise TARGET_RELOAD_MS if this pause is acceptable"
	if [ -z "$login_ms" ]; then
		result_status reload FAIL "no new login worked within $deadline_s s of the reload ($attempts tries); see raw/reload-login-errors.txt" \
			"Check the configuration with sshd -t and read raw/reload-login-errors.txt: a server that takes no login after a reload locks everyone out; then rerun ./test-ssh.sh reload"
	elif [ "${RELOAD_ALIVE:-0}" -lt "$n" ]; then
		result_status reload FAIL "$(( n - ${RELOAD_ALIVE:-0} )) of $n open sessions did not survive the reload; see raw/reload-ssh-errors.txt" \
			"Find what ended the sessions (raw/reload-ssh-errors.txt; the unit's KillMode must stay process), fix it, and rerun ./test-ssh.sh reload"
	fi
	result_set reload summary "greeting after ${greeting:--} ms, login after ${login_ms:--} ms, ${RELOAD_ALIVE:-0} of $n sessions survived; target <= ${SETTING[TARGET_RELOAD_MS]} ms"
}
