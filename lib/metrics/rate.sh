# shellcheck shell=bash
# rate: RATE_WORKERS clients log in again and again for DURATION seconds
# (build/sshperf-rate); logins/s, login time under load, failures, the
# server's CPU per login (sshperf-sampler before and after), the clients'
# CPU, and the capacity that CPU figure implies.

about_rate () {
	printf '%s clients logging in again and again for %s s (about %s s)\n' \
		"$RATE_WORKERS" "$DURATION" "$((DURATION + 3))"
}

# The server's sshd processes (listener, per-connection, session) now.
rate_sshd_processes () {
	sample_server -P | awk -F'\t' 'NR > 1 && $2 ~ /^sshd/' | wc -l
}

# Waits (up to $1 s) until the server has no more sshd processes than $2:
# the sessions of the run have ended and were reaped, so their CPU is in
# the counters.
rate_wait_settled () {
	local deadline=$(( $(date +%s) + $1 ))
	while [ "$(rate_sshd_processes)" -gt "$2" ]; do
		[ "$(date +%s)" -lt "$deadline" ] || return 1
		sleep 0.1
	done
}

# rate_run PREFIX WORKERS SECONDS: one run of the driver with the server
# sampled before and after; writes $RAW_DIR/PREFIX-*, figures to
# $DATA_DIR/PREFIX.env (through result_set PREFIX). Used by cpu too.
rate_run () {
	local name=$1 workers=$2 seconds=$3 before after driver base derived
	before="$RAW_DIR/$name-server-before.env"
	after="$RAW_DIR/$name-server-after.env"
	driver="$RAW_DIR/$name-driver.env"
	base=$(rate_sshd_processes)
	sample_server >"$before" || return 1
	helper rate -w "$workers" -d "$seconds" -t "$LOGIN_TIMEOUT" -o "$RAW_DIR/$name-logins.tsv" \
		-- "$SSH" -F "$CLIENT_CONFIG" "$HOST_ALIAS" true >"$driver" 2>"$RAW_DIR/$name-driver-errors.txt" || true
	[ -s "$driver" ] || { warn "the rate driver failed: $(tail -n 1 "$RAW_DIR/$name-driver-errors.txt")"; return 1; }
	rate_wait_settled 10 "$base" || warn "$name: sessions still open 10 s after the run; CPU may be undercounted"
	sample_server >"$after" || return 1
	result_import "$name" "$driver"
	awk -F'\t' 'NR > 1 && $6 != "ok" { print $1 "\t" $2 "\t" $6 "\t" $7 "\t" $8 }' \
		"$RAW_DIR/$name-logins.tsv" >"$RAW_DIR/$name-errors.txt"
	# The server's CPU during the run, per ok login: the unit (or the
	# listener's tree) plus, with systemd, the test user's slice.
	{
		awk -F= -v ok="$(result_get "$name" ok)" '
		FNR == NR { b[$1] = $2; next }
		{ a[$1] = $2 }
		function d(k) { return (a[k] == "-" || b[k] == "-") ? 0 : a[k] - b[k] }
		END {
			session = d("session_cpu_ms")
			if (session < 0) { print "session_cpu_lost=yes"; session = 0 }
			user = d("cpu_user_ms") + (session > 0 ? d("session_user_ms") : 0)
			sys = d("cpu_system_ms") + (session > 0 ? d("session_system_ms") : 0)
			total = d("cpu_total_ms") + session
			printf "cpu_source=%s\ncpu_total_from=%s\ncpu_split_from=%s\n", a["cpu_source"], a["cpu_total_from"], a["cpu_split_from"]
			printf "sshd_cpu_ms=%.1f\nsshd_unit_cpu_ms=%.1f\nsshd_session_cpu_ms=%.1f\n", total, d("cpu_total_ms"), session
			# Within the slice: the test user'"'"'s systemd --user
			# manager (user@UID.service; 0 while it does not run).
			# It ending during the run takes its counter with it.
			manager = "-"
			if (a["manager_cpu_ms"] != "" && a["manager_cpu_ms"] != "-") {
				manager = d("manager_cpu_ms")
				if (manager < 0) { print "manager_cpu_lost=yes"; manager = "-" }
			}
			printf "sshd_manager_cpu_ms=%s\n", (manager == "-" ? "-" : sprintf("%.1f", manager))
			if (ok > 0) {
				printf "sshd_cpu_ms_per_login=%.2f\n", total / ok
				if (manager != "-") printf "sshd_manager_ms_per_login=%.2f\n", manager / ok
				if (a["cpu_user_ms"] != "-")
					printf "sshd_user_ms_per_login=%.2f\nsshd_system_ms_per_login=%.2f\n", user / ok, sys / ok
			}
		}' "$before" "$after"
		helper summary -c login_ms -w status=ok -p login_ "$RAW_DIR/$name-logins.tsv"
	} >>"$DATA_DIR/$name.env"
	derived=$(awk -F= -v ok="$(result_get "$name" ok)" -v cores="$(result_get "$name" cores)" '
		{ v[$1] = $2 }
		END {
			if (ok > 0) printf "client_cpu_ms_per_login=%.2f\n", v["client_cpu_ms"] / ok
			if (v["sshd_cpu_ms_per_login"] > 0)
				printf "capacity_logins_per_s=%.0f\n", cores * 1000 / v["sshd_cpu_ms_per_login"]
		}' "$DATA_DIR/$name.env")
	printf '%s\n' "$derived" >>"$DATA_DIR/$name.env"
}

measure_rate () {
	local ok failed rate warn_text client_pct busy_pct
	if ! rate_run rate "$RATE_WORKERS" "$DURATION"; then
		result_set rate status ERROR
		result_set rate reason "the server could not be sampled or the driver did not run (raw/rate-driver-errors.txt)"
		return 1
	fi
	ok=$(result_get rate ok)
	failed=$(result_get rate failed)
	rate=$(result_get rate logins_per_s)
	client_pct=$(result_get rate client_cpu_pct)
	busy_pct=$(result_get rate machine_busy_pct)
	# The clients run on the same machine: when they (or everything
	# together) filled the CPUs, the load generator set the limit.
	if awk -v c="$client_pct" -v m="$busy_pct" 'BEGIN { exit !(c >= 90 || m >= 95) }'; then
		warn_text="load generator saturated: the ssh clients used ${client_pct}% of the machine's CPU and the machine was ${busy_pct}% busy, so the clients, not sshd, may have limited the rate"
		result_set rate warning "$warn_text"
		result_set rate generator_limited yes
	else
		result_set rate generator_limited no
	fi
	[ "$(result_get rate session_cpu_lost)" != yes ] ||
		result_set rate warning "the test user's slice ended during the run; its CPU is not in the figure"
	result_set rate figure "$rate"
	result_set rate unit "logins/s"
	result_set rate figure_label "complete logins per second, $RATE_WORKERS clients"
	result_set rate target "$TARGET_RATE_MIN"
	result_set rate target_op ">="
	if [ "${ok:-0}" -eq 0 ]; then
		result_set rate status FAIL
		result_set rate reason "no login succeeded; first error: $(head -n 1 "$RAW_DIR/rate-errors.txt" | cut -f5)"
	elif [ "${failed:-0}" -gt 0 ]; then
		result_set rate status FAIL
		result_set rate reason "$failed of $((ok + failed)) logins failed under load (raw/rate-errors.txt); a server that drops logins fails whatever its rate"
	else
		result_set rate status "$(verdict "$rate" ">=" "$TARGET_RATE_MIN")"
		[ "$(result_get rate status)" = PASS ] ||
			result_set rate reason "$rate logins/s is below the target of $TARGET_RATE_MIN"
	fi
	result_set rate summary "$rate logins/s ($ok ok, $failed failed, p95 $(result_get rate login_p95) ms), sshd $(result_get rate sshd_cpu_ms_per_login) ms CPU per login"
}
