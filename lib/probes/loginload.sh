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
#   raw/probe-loginload-windows.tsv   sshd's CPU per login in each window
#   raw/probe-loginload-driver.env, -driver-errors.txt, -server-before.env,
#   -server-window*.env, -server-after.env
#                                     the driver's and the sampler's output

# The run is cut into this many windows of equal length, the server
# sampled at each edge: sshd's CPU per login in each window gives the
# figure's interval (docs/metrics.md, "cpu"). After the last one, the
# drain (the logins running at DURATION end, their sessions close) is a
# window of its own, in the figure but not in the interval: it holds the
# ends of logins only, which cost more than their share of time (seen:
# 90-150 ms against 62-86 ms in the windows before).
LOGINLOAD_WINDOWS=5
# The columns of raw/probe-loginload-windows.tsv (docs/data.md). logins
# counts each ok login by the share of its time that fell in the window:
# a login's CPU is spent while it runs, not when it ends.
LOGINLOAD_WINDOWS_COLUMNS="window start_ms end_ms sshd_cpu_ms logins sshd_cpu_ms_per_login machine_busy_pct steal_pct"
# Before the run, the previous test's sessions get this long to end (their
# CPU would count for these logins).
LOGINLOAD_SETTLE_S=10

about_probe_loginload () {
	printf '%s ssh clients logging in again and again for %s s\n' "${SETTING[RATE_WORKERS]}" "${SETTING[DURATION]}"
}

probe_loginload () {
	local p=probe-loginload raw="$RAW_DIR/probe-loginload" before after driver base derived
	before="$raw-server-before.env"
	after="$raw-server-after.env"
	driver="$raw-driver.env"
	# What the previous test left (sessions still ending) first ends:
	# only the listener then.
	server_wait_settled "$LOGINLOAD_SETTLE_S" 1 ||
		warn "loginload: sshd processes of an earlier test still ran after ${LOGINLOAD_SETTLE_S} s; their CPU counts for these logins"
	base=$(server_sshd_processes)
	loginload_speed "$raw-speed-before.env"
	if ! sample_server >"$before"; then
		result_set "$p" status ERROR
		result_set "$p" reason "the test server could not be sampled before the login load"
		return 1
	fi
	loginload_windows_start "$raw"
	helper rate -w "${SETTING[RATE_WORKERS]}" -d "${SETTING[DURATION]}" -t "${SETTING[LOGIN_TIMEOUT]}" -o "$raw-logins.tsv" \
		-- "$SSH" -F "$CLIENT_CONFIG" "$HOST_ALIAS" true >"$driver" 2>"$raw-driver-errors.txt" || true
	loginload_windows_stop
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
	loginload_speed "$raw-speed-after.env"
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
			# sshd'"'"'s CPU over the clients'"'"' in the same seconds on the
			# same CPUs: a machine slower or busier for this work moves
			# both, a change in sshd only sshd'"'"'s (docs/metrics.md, cpu).
			if (ok > 0 && v["client_cpu_ms"] > 0 && v["sshd_cpu_ms_per_login"] != "")
				printf "sshd_per_client_cpu=%.3f\n", v["sshd_cpu_ms_per_login"] * ok / v["client_cpu_ms"]
			if (v["sshd_cpu_ms_per_login"] > 0)
				printf "capacity_logins_per_s=%.1f\n", cores * 1000 / v["sshd_cpu_ms_per_login"]
		}' "$DATA_DIR/$p.env")
	printf '%s\n' "$derived" >>"$DATA_DIR/$p.env"
	loginload_windows "$raw" "$p"
	loginload_machine "$before" "$after" "$p"
	loginload_speed_keys "$raw" "$p"
	# The clients run on the same machine: when they (or everything
	# together) filled the CPUs, the load generator set the limit.
	if awk -v c="$(result_get "$p" client_cpu_pct)" -v m="$(result_get "$p" machine_busy_pct)" 'BEGIN { exit !(c >= 90 || m >= 95) }'; then
		result_set "$p" generator_limited yes
	else
		result_set "$p" generator_limited no
	fi
	result_set "$p" status ok
}

# loginload_windows_start RAW: samples the server at the end of each
# window while the driver runs (RAW-server-windowK.env, K = 1 ..
# LOGINLOAD_WINDOWS), in the background; the before sample is the first
# edge, the after sample the drain's end.
LOGINLOAD_WINDOWS_PID=""
loginload_windows_start () {
	local raw=$1 each
	each=$(awk -v d="${SETTING[DURATION]}" -v n="$LOGINLOAD_WINDOWS" 'BEGIN { printf "%.3f", d / n }')
	(
		# Each edge at its due time from the start: a sample takes
		# a few hundred ms on a busy machine, which must not add up.
		start=$EPOCHREALTIME k=1
		while [ "$k" -le "$LOGINLOAD_WINDOWS" ]; do
			sleep "$(awk -v s="$start" -v e="$each" -v k="$k" -v now="$EPOCHREALTIME" \
				'BEGIN { d = s + k * e - now; printf "%.3f", (d > 0 ? d : 0) }')"
			sample_server >"$raw-server-window$k.env" 2>/dev/null || rm -f "$raw-server-window$k.env"
			k=$((k + 1))
		done
	) &
	LOGINLOAD_WINDOWS_PID=$!
	at_exit loginload_windows_end
}

# It has ended by itself soon after the driver (its last sample is due
# at DURATION, when the drain begins); a driver that stopped early ends it.
loginload_windows_stop () {
	local end=$(( $(date +%s) + 5 ))
	while kill -0 "$LOGINLOAD_WINDOWS_PID" 2>/dev/null && [ "$(date +%s)" -lt "$end" ]; do
		sleep 0.05
	done
	at_exit_pop
}

loginload_windows_end () {
	[ -n "$LOGINLOAD_WINDOWS_PID" ] || return 0
	end_pids 5 "$LOGINLOAD_WINDOWS_PID"
	wait "$LOGINLOAD_WINDOWS_PID" 2>/dev/null || true
	LOGINLOAD_WINDOWS_PID=""
}

# loginload_windows RAW PROBE: raw/probe-loginload-windows.tsv from the
# samples and the logins, and the interval of sshd's CPU per login in
# PROBE's data: the run's figure +- t(0.975, n-1) x the windows' standard
# deviation / sqrt(n) (the drain, and a window with less than half a
# login's time, left out). Keys cpu_windows (n), sshd_cpu_ms_per_login_lo,
# _hi, _sd.
loginload_windows () {
	local raw=$1 p=$2 tsv="$1-windows.tsv" f fig samples=("$1-server-before.env") k=1
	while [ "$k" -le "$LOGINLOAD_WINDOWS" ]; do
		[ ! -s "$raw-server-window$k.env" ] || samples+=("$raw-server-window$k.env")
		k=$((k + 1))
	done
	samples+=("$raw-server-after.env")
	{
		for f in "${samples[@]}"; do
			printf 'edge\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(kv_get "$f" mono_ns)" "$(kv_get "$f" cpu_total_ms)" \
				"$(kv_get "$f" session_cpu_ms)" "$(kv_get "$f" machine_busy_ms)" "$(kv_get "$f" machine_steal_ms)" "$(kv_get "$f" machine_total_ms)"
		done
		tsv_select "$raw-logins.tsv" start_ms end_ms status | awk -F'\t' '$3 == "ok" { print "login\t" $1 "\t" $2 }'
	} | awk -F'\t' -v t0="$(kv_get "$raw-driver.env" t0_mono_ns)" -v cols="$LOGINLOAD_WINDOWS_COLUMNS" '
		function n0(x) { return (x == "" || x == "-") ? 0 : x }
		$1 == "edge" { e++; t[e] = ($2 - t0) / 1e6; cpu[e] = n0($3) + n0($4); busy[e] = $5; steal[e] = $6; tot[e] = $7; next }
		$1 == "login" { l++; ls[l] = $2; le[l] = $3 }
		END {
			nc = split(cols, c, " ")
			for (w = 1; w < e; w++) {
				share = 0
				for (i = 1; i <= l; i++) {
					a = ls[i] > t[w] ? ls[i] : t[w]
					b = le[i] < t[w + 1] ? le[i] : t[w + 1]
					if (b > a && le[i] > ls[i]) share += (b - a) / (le[i] - ls[i])
				}
				d = tot[w + 1] - tot[w]
				r["window"] = w < e - 1 ? w : "drain"
				r["start_ms"] = sprintf("%.1f", t[w]); r["end_ms"] = sprintf("%.1f", t[w + 1])
				r["sshd_cpu_ms"] = sprintf("%.1f", cpu[w + 1] - cpu[w])
				r["logins"] = sprintf("%.2f", share)
				r["sshd_cpu_ms_per_login"] = share >= 0.5 ? sprintf("%.2f", (cpu[w + 1] - cpu[w]) / share) : "-"
				r["machine_busy_pct"] = d > 0 ? sprintf("%.1f", 100 * (busy[w + 1] - busy[w]) / d) : "-"
				r["steal_pct"] = d > 0 ? sprintf("%.1f", 100 * (steal[w + 1] - steal[w]) / d) : "-"
				for (j = 1; j <= nc; j++) printf "%s%s", r[c[j]], (j < nc ? "\t" : "\n")
			}
		}' | { tsv_header "$LOGINLOAD_WINDOWS_COLUMNS"; cat; } >"$tsv"
	# The spread of the windows' CPU per login gives the figure's t
	# interval (sshperf-rank mean: exact t, n - 1 degrees of freedom),
	# centred on the figure (all CPU over all logins), not below 0.
	fig=$(result_get "$p" sshd_cpu_ms_per_login)
	tsv_select "$tsv" window sshd_cpu_ms_per_login | awk -F'\t' '$1 != "drain" && $2 != "-" { print $2 }' |
		stats_rank mean -z ${fig:+-m "$fig"} | awk -F= -v f="$fig" '
		$1 == "n" { printf "cpu_windows=%d\n", $2 }
		f != "" && $1 ~ /^(sd|lo|hi)$/ && $2 != "" { printf "sshd_cpu_ms_per_login_%s=%.2f\n", $1, $2 }' >>"$DATA_DIR/$p.env"
}

# The machine's speed right before the load and right after it
# (sshperf-speed: a fixed work timed in CPU time, a few hundred ms): on a
# VM the same work takes more or less CPU time from one minute to the
# next, and so does a login (docs/metrics.md, "cpu"). Its cost stays out
# of the server's figures: it runs outside the before and after samples.
LOGINLOAD_SPEED_SPAWNS=200
LOGINLOAD_SPEED_LOOP_MILLIONS=100
loginload_speed () {
	helper speed -n "$LOGINLOAD_SPEED_SPAWNS" -l "$LOGINLOAD_SPEED_LOOP_MILLIONS" >"$1" 2>"${1%.env}-errors.txt" ||
		warn "loginload: the machine speed could not be measured ($(tail -n 1 "${1%.env}-errors.txt"))"
}

# loginload_speed_keys RAW PROBE: the two speed samples in PROBE's data:
# the CPU of one start of /bin/true (us) and of the fixed loop (ms),
# before, after, their mean and max / min; and sshd's CPU per login in
# starts of /bin/true (the per-login figure over the mean start), to read
# the figure against (a login moves less with the machine's speed than a
# start does: docs/metrics.md, "cpu").
loginload_speed_keys () {
	local b="$1-speed-before.env" a="$1-speed-after.env"
	[ -s "$b" ] && [ -s "$a" ] || return 0
	awk -v sb="$(kv_get "$b" spawn_us_each)" -v sa="$(kv_get "$a" spawn_us_each)" \
		-v lb="$(kv_get "$b" loop_cpu_ms)" -v la="$(kv_get "$a" loop_cpu_ms)" \
		-v cpu="$(result_get "$2" sshd_cpu_ms_per_login)" -v n="$(kv_get "$b" spawn_n)" '
		function num(x) { return x ~ /^[0-9]+(\.[0-9]+)?$/ && x + 0 > 0 }
		BEGIN {
			if (!num(sb) || !num(sa) || !num(lb) || !num(la)) exit
			# The per-login figure over the mean as printed.
			s = sprintf("%.1f", (sb + sa) / 2) + 0; l = (lb + la) / 2
			printf "speed_spawns=%d\n", n
			printf "speed_spawn_us_before=%.1f\nspeed_spawn_us_after=%.1f\nspeed_spawn_us=%.1f\n", sb, sa, s
			printf "speed_spawn_spread=%.3f\n", (sb > sa ? sb / sa : sa / sb)
			printf "speed_loop_ms_before=%.2f\nspeed_loop_ms_after=%.2f\nspeed_loop_ms=%.2f\n", lb, la, l
			printf "speed_loop_spread=%.3f\n", (lb > la ? lb / la : la / lb)
			if (num(cpu)) printf "sshd_cpu_per_login_spawns=%.2f\n", cpu * 1000 / s
		}' >>"$DATA_DIR/$2.env"
}

# loginload_machine BEFORE AFTER PROBE: how busy the whole machine was
# between the two samples, and with what: steal (the hypervisor ran other
# machines), sshd, the clients and every other process. Other work on
# the CPUs makes sshd's own CPU time per login larger (shared caches,
# memory bandwidth), so the report shows it next to the figure.
loginload_machine () {
	awk -F= -v sshd="$(result_get "$3" sshd_cpu_ms)" -v client="$(result_get "$3" client_cpu_ms)" '
		FNR == NR { b[$1] = $2; next }
		{ a[$1] = $2 }
		END {
			d = a["machine_total_ms"] - b["machine_total_ms"]
			if (b["machine_total_ms"] == "" || d <= 0) exit
			busy = 100 * (a["machine_busy_ms"] - b["machine_busy_ms"]) / d
			steal = 100 * (a["machine_steal_ms"] - b["machine_steal_ms"]) / d
			s = 100 * sshd / d; c = 100 * client / d
			o = busy - steal - s - c
			printf "window_busy_pct=%.1f\nwindow_steal_pct=%.1f\nwindow_sshd_pct=%.1f\nwindow_client_pct=%.1f\nwindow_other_pct=%.1f\n", busy, steal, s, c, (o > 0 ? o : 0)
		}' "$1" "$2" >>"$DATA_DIR/$3.env"
}
