# shellcheck shell=bash
# Probe loginload: the closed-loop login load. RATE_WORKERS ssh clients
# (build/sshperf-rate) log in again and again for DURATION seconds, with
# the test server sampled before and after: logins/s, login time under
# load, failures, the server's and the clients' CPU per login. Used by
# rate (its closed-loop figure) and cpu (its per-login figures).
#
# Outputs (docs/architecture.md, "Probes"):
#   data/probe-loginload.env          status, reason, and the figures
#   raw/probe-loginload-logins.tsv    one row per login (sshperf-rate)
#   raw/probe-loginload-errors.txt    the failed logins
#   raw/probe-loginload-driver.env, -driver-errors.txt, -server-before.env,
#   -server-after.env                 the driver's and the sampler's output

about_probe_loginload () {
	printf '%s ssh clients logging in again and again for %s s\n' "${SETTING[RATE_WORKERS]}" "${SETTING[DURATION]}"
}

probe_loginload () {
	local p=probe-loginload raw="$RAW_DIR/probe-loginload" before after driver base derived
	before="$raw-server-before.env"
	after="$raw-server-after.env"
	driver="$raw-driver.env"
	base=$(server_sshd_processes)
	if ! sample_server >"$before"; then
		result_set "$p" status ERROR
		result_set "$p" reason "the test server could not be sampled before the login load"
		return 1
	fi
	helper rate -w "${SETTING[RATE_WORKERS]}" -d "${SETTING[DURATION]}" -t "${SETTING[LOGIN_TIMEOUT]}" -o "$raw-logins.tsv" \
		-- "$SSH" -F "$CLIENT_CONFIG" "$HOST_ALIAS" true >"$driver" 2>"$raw-driver-errors.txt" || true
	if [ ! -s "$driver" ]; then
		result_set "$p" status ERROR
		result_set "$p" reason "the login driver did not run: $(tail -n 1 "$raw-driver-errors.txt") (raw/probe-loginload-driver-errors.txt)"
		return 1
	fi
	server_wait_settled 10 "$base" || warn "loginload: sessions still open 10 s after the run; CPU may be undercounted"
	if ! sample_server >"$after"; then
		result_set "$p" status ERROR
		result_set "$p" reason "the test server could not be sampled after the login load"
		return 1
	fi
	result_import "$p" "$driver"
	tsv_select "$raw-logins.tsv" worker login status exit error | awk -F'\t' '$3 != "ok"' >"$raw-errors.txt"
	# The server's CPU during the run, per ok login: the unit (or the
	# listener's tree) plus, with systemd, the test user's slice.
	{
		awk -F= -v ok="$(result_get "$p" ok)" '
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
		helper summary -c login_ms -w status=ok -p login_ "$raw-logins.tsv"
	} >>"$DATA_DIR/$p.env"
	derived=$(awk -F= -v ok="$(result_get "$p" ok)" -v cores="$(result_get "$p" cores)" '
		{ v[$1] = $2 }
		END {
			if (ok > 0) printf "client_cpu_ms_per_login=%.2f\n", v["client_cpu_ms"] / ok
			if (v["sshd_cpu_ms_per_login"] > 0)
				printf "capacity_logins_per_s=%.0f\n", cores * 1000 / v["sshd_cpu_ms_per_login"]
		}' "$DATA_DIR/$p.env")
	printf '%s\n' "$derived" >>"$DATA_DIR/$p.env"
	# The clients run on the same machine: when they (or everything
	# together) filled the CPUs, the load generator set the limit.
	if awk -v c="$(result_get "$p" client_cpu_pct)" -v m="$(result_get "$p" machine_busy_pct)" 'BEGIN { exit !(c >= 90 || m >= 95) }'; then
		result_set "$p" generator_limited yes
	else
		result_set "$p" generator_limited no
	fi
	result_set "$p" status ok
}
