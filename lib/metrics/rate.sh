# shellcheck shell=bash
# rate: the closed-loop figure of the specification, from the probe
# loginload (lib/probes/loginload.sh, which cpu uses too: RATE_WORKERS
# clients log in again and again for DURATION seconds; logins/s, login
# time under load, failures, the server's CPU per login with the real ssh
# client's key exchange, the clients' CPU). Then the login capacity, measured: an
# open-loop sweep (build/sshperf-sweep) offers a rising login rate with
# the RATE_CLIENT driver until the achieved rate falls below 95 % of the
# offered one, a login fails, or p95 exceeds TARGET_LOGIN_P95_MS; the last
# step before that is the knee, and the verdict compares it with
# TARGET_RATE_MIN.

# shellcheck source=lib/maxstartups.sh
. "$KIT_DIR/lib/maxstartups.sh"

about_rate () {
	printf '%s ssh clients logging in again and again for %s s, then a rising offered login rate (%s driver, %s s a step) until the knee (about %s s)\n' \
		"${SETTING[RATE_WORKERS]}" "${SETTING[DURATION]}" "${SETTING[RATE_CLIENT]}" "${SETTING[RATE_STEP_SECONDS]}" "$((SETTING[DURATION] + 7 + 16 * (SETTING[RATE_STEP_SECONDS] + 2)))"
}

# The sweep's offered rates: from RATE_SWEEP_FIRST logins/s up by a
# quarter each step (fine steps near any knee), at most RATE_SWEEP_MAX_STEPS.
RATE_SWEEP_FIRST=4
RATE_SWEEP_FACTOR=1.25
RATE_SWEEP_MAX_STEPS=24
# After the first step that breaks, this many more steps halve the gap
# between the knee and it (25 % apart, then 12 %, then 6 %): the knee is
# known to a few per cent, not to a quarter, for 3 s a step.
RATE_SWEEP_REFINE=2
# No refinement step once the gap is below this ratio.
RATE_SWEEP_MIN_GAP=1.04
# A step lasts RATE_STEP_SECONDS, longer at a low offered rate so that it
# has at least this many logins: its p95 is then not simply its slowest
# login (a p95 needs 20 samples, docs/style.md rule 5; seen: a step of 12
# logins at 4/s broke on one cold first login of 335 ms).
RATE_STEP_MIN_LOGINS=20
# A step is good while achieved >= this share of the offered rate.
RATE_KNEE_SHARE=0.95
# At the step that broke: the machine counts as full from this busy share,
# and sshd as the limit when it had at least this share of all CPUs.
RATE_MACHINE_FULL_PCT=90
RATE_SSHD_LIMIT_PCT=70
# A target above this many times the CPU bound FAILs whatever else ran:
# other work on a full machine inflates the CPU time a login costs (seen:
# 5x on 2 cores at load 30), but not this much.
RATE_BOUND_MARGIN=10
# The columns of raw/rate-sweep.tsv (docs/data.md); the table is written
# whole from them.
RATE_SWEEP_COLUMNS="step offered_per_s achieved_per_s ok failed p50_ms p95_ms sshd_cpu_ms sshd_cpu_pct sshd_cpu_ms_per_login client_cpu_pct machine_busy_pct late_starts"

# ssh_g KEY: a value of `ssh -G` for the test host (what the system's ssh
# client would use with the kit's client configuration).
rate_ssh_g () {
	"$SSH" -G -F "$CLIENT_CONFIG" "$HOST_ALIAS" 2>/dev/null | awk -v k="$1" '$1 == k { sub(/^[^ ]+ /, ""); print; exit }'
}

# What the real ssh client negotiates with the test server, from one
# `ssh -v` login: kex, host key algorithm, cipher and MAC (client to
# server), into rate.env as ssh_kex, ssh_hostkey, ssh_cipher, ssh_mac.
rate_ssh_negotiated () {
	local log="$RAW_DIR/rate-ssh-v.txt"
	timeout --kill-after=2 "${SETTING[LOGIN_TIMEOUT]}" "$SSH" -v -F "$CLIENT_CONFIG" "$HOST_ALIAS" true </dev/null >/dev/null 2>"$log" || true
	result_set rate ssh_kex "$(rate_ssh_v_field 's/.*kex: algorithm: \([^ ]*\).*/\1/p' "$log")"
	result_set rate ssh_hostkey "$(rate_ssh_v_field 's/.*kex: host key algorithm: \([^ ]*\).*/\1/p' "$log")"
	result_set rate ssh_cipher "$(rate_ssh_v_field 's/.*kex: client->server cipher: \([^ ]*\) MAC: \([^ ]*\).*/\1/p' "$log")"
	result_set rate ssh_mac "$(rate_ssh_v_field 's/.*kex: client->server cipher: \([^ ]*\) MAC: \([^ ]*\).*/\2/p' "$log")"
}

# rate_ssh_v_field SED_SCRIPT LOG: the first match of SED_SCRIPT in an
# `ssh -v` log. ssh ends its debug lines with "\r\n"; the carriage return
# is cut here, where the names are read, so that it reaches neither
# rate.env, results.json nor the driver's algorithm lists.
rate_ssh_v_field () {
	tr -d '\r' <"$2" | sed -n "$1" | head -n 1
}

# first_then LIST FIRST: FIRST, then the comma list without it (what ssh
# negotiated goes first, so libssh takes it when it can).
rate_first_then () {
	local list=$1 first=$2
	if [ -z "$first" ] || [ "$first" = "<implicit>" ]; then printf '%s' "$list"; return; fi
	printf '%s' "$first"
	printf '%s' ",$list," | sed "s/,$first,/,/; s/^,//; s/,$//; s/^/,/; s/^,$//"
}

# The driver's command line for one step (array RATE_DRIVER), after -r/-d.
rate_driver_args () {
	local kex ciphers macs hostkeys bind
	if [ "${SETTING[RATE_CLIENT]}" = ssh ]; then
		RATE_DRIVER=(-- "$SSH" -F "$CLIENT_CONFIG" "$HOST_ALIAS" true)
		return 0
	fi
	kex=$(rate_first_then "$(rate_ssh_g kexalgorithms)" "$(result_get rate ssh_kex)")
	ciphers=$(rate_first_then "$(rate_ssh_g ciphers)" "$(result_get rate ssh_cipher)")
	macs=$(rate_first_then "$(rate_ssh_g macs)" "$(result_get rate ssh_mac)")
	hostkeys=$(rate_first_then "$(rate_ssh_g hostkeyalgorithms)" "$(result_get rate ssh_hostkey)")
	RATE_DRIVER=(-h "$(rate_ssh_g hostname)" -p "$(rate_ssh_g port)" -u "$(rate_ssh_g user)"
		-i "$(rate_ssh_g identityfile | sed "s|^~|$HOME|")"
		-k "$(rate_ssh_g userknownhostsfile | awk '{ print $1 }' | sed "s|^~|$HOME|")")
	[ -z "$kex" ] || RATE_DRIVER+=(-x "$kex")
	[ -z "$ciphers" ] || RATE_DRIVER+=(-C "$ciphers")
	[ -z "$macs" ] || RATE_DRIVER+=(-m "$macs")
	[ -z "$hostkeys" ] || RATE_DRIVER+=(-H "$hostkeys")
	# From the client's source address, as ssh (BindAddress,
	# lib/sources.sh): the server's per-source limits see one client.
	bind=$(rate_ssh_g bindaddress)
	[ -z "$bind" ] || RATE_DRIVER+=(-b "$bind")
}

# rate_step_seconds OFFERED: how long a step at that rate lasts.
rate_step_seconds () {
	awk -v r="$1" -v d="${SETTING[RATE_STEP_SECONDS]}" -v n="$RATE_STEP_MIN_LOGINS" \
		'BEGIN { if (r > 0 && n / r > d) d = n / r; printf "%.2f", d }'
}

# The sweep's logins in flight at most: MaxStartups' start value, as the
# test server runs it (sshd -T, through lib/server.sh; with
# SERVER_CONFIG=host or SSHD_OPTIONS that is not MAX_STARTUPS), read by
# the one MaxStartups parser. MAX_STARTUPS only when sshd -T says nothing.
rate_sweep_threads () {
	local parsed
	parsed=$(maxstartups_parse "$(server_effective maxstartups | head -n 1)") ||
		parsed=$(maxstartups_parse "${SETTING[MAX_STARTUPS]}") || true
	printf '%s\n' "${parsed%% *}"
}

# rate_step N OFFERED: one step of the sweep, the server sampled before and
# after; prints one row of raw/rate-sweep.tsv (RATE_SWEEP_COLUMNS).
rate_step () {
	local i=$1 offered=$2 pre="$RAW_DIR/rate-step$1" base threads seconds
	base=$(server_sshd_processes)
	threads=$(rate_sweep_threads)
	seconds=$(rate_step_seconds "$offered")
	sample_server >"$pre-server-before.env" || return 1
	helper sweep -r "$offered" -d "$seconds" -c "$threads" -t "${SETTING[LOGIN_TIMEOUT]}" -g "$NO_ANSWER_STOP" \
		-o "$pre-logins.tsv" "${RATE_DRIVER[@]}" >"$pre-driver.env" 2>>"$RAW_DIR/rate-sweep-errors.txt" || true
	[ -s "$pre-driver.env" ] || return 1
	server_wait_settled 10 "$base" || warn "rate: sessions still open 10 s after step $i; its CPU may be undercounted"
	sample_server >"$pre-server-after.env" || return 1
	helper summary -c latency_ms -w status=ok -p lat_ "$pre-logins.tsv" >"$pre-latency.env" || true
	awk -F= -v cols="$RATE_SWEEP_COLUMNS" '
		FILENAME ~ /before/ { b[$1] = $2; next }
		FILENAME ~ /after/ { a[$1] = $2; next }
		{ v[$1] = $2 }
		function d(k) { return (a[k] == "-" || b[k] == "-" || a[k] == "") ? 0 : a[k] - b[k] }
		END {
			s = d("session_cpu_ms"); if (s < 0) s = 0
			sshd = d("cpu_total_ms") + s
			wall = v["wall_ms"] + 0; cores = v["cores"] + 0
			pct = (wall > 0 && cores > 0) ? 100 * sshd / (cores * wall) : 0
			r["step"] = sprintf("%d", n)
			r["offered_per_s"] = sprintf("%.2f", v["offered_per_s"])
			r["achieved_per_s"] = sprintf("%.2f", v["achieved_per_s"])
			r["ok"] = sprintf("%d", v["ok"]); r["failed"] = sprintf("%d", v["failed"])
			r["p50_ms"] = v["lat_n"] > 0 ? v["lat_p50"] : "-"
			r["p95_ms"] = v["lat_n"] > 0 ? v["lat_p95"] : "-"
			r["sshd_cpu_ms"] = sprintf("%.1f", sshd); r["sshd_cpu_pct"] = sprintf("%.1f", pct)
			r["sshd_cpu_ms_per_login"] = sprintf("%.2f", v["ok"] > 0 ? sshd / v["ok"] : 0)
			r["client_cpu_pct"] = sprintf("%.1f", v["client_cpu_pct"])
			r["machine_busy_pct"] = sprintf("%.1f", v["machine_busy_pct"])
			r["late_starts"] = sprintf("%d", v["late_starts"])
			k = split(cols, c, " ")
			for (i = 1; i <= k; i++) printf "%s%s", r[c[i]], (i < k ? "\t" : "\n")
		}' n="$i" "$pre-server-before.env" "$pre-server-after.env" "$pre-driver.env" "$pre-latency.env"
}

# rate_cell ROW NAME: a cell of a row of the sweep's table.
rate_cell () {
	tsv_cell "$RATE_SWEEP_COLUMNS" "$1" "$2"
}

# rate_step_good ROW: yes when a sweep row kept up: no failed login,
# achieved >= RATE_KNEE_SHARE of offered, p95 within TARGET_LOGIN_P95_MS.
rate_step_good () {
	awk -v o="$(rate_cell "$1" offered_per_s)" -v a="$(rate_cell "$1" achieved_per_s)" -v f="$(rate_cell "$1" failed)" \
		-v p="$(rate_cell "$1" p95_ms)" -v t="${SETTING[TARGET_LOGIN_P95_MS]}" -v share="$RATE_KNEE_SHARE" \
		'BEGIN { print (f == 0 && p != "-" && a >= share * o && p <= t) ? "yes" : "no" }'
}

# Bisects between the knee and the step that broke (rate_sweep's knee,
# bad and i), at most RATE_SWEEP_REFINE more steps: a good one becomes the
# knee, a bad one the step that broke.
rate_sweep_refine () {
	local r=0 lo hi mid row
	while [ "$r" -lt "$RATE_SWEEP_REFINE" ] && [ -n "$knee" ] && [ -n "$bad" ]; do
		lo=$(rate_cell "$knee" offered_per_s)
		hi=$(rate_cell "$bad" offered_per_s)
		awk -v l="$lo" -v h="$hi" -v g="$RATE_SWEEP_MIN_GAP" 'BEGIN { exit !(l > 0 && h / l >= g) }' || break
		mid=$(awk -v l="$lo" -v h="$hi" 'BEGIN { printf "%.2f", (l + h) / 2 }')
		r=$((r + 1))
		i=$((i + 1))
		progress_step "rate: step $i, $mid logins/s offered (between the knee and the step that broke)"
		row=$(rate_step "$i" "$mid") || { warn "rate: the sweep's step $i did not run (raw/rate-sweep-errors.txt)"; break; }
		rows+=("$row")
		if [ "$(rate_step_good "$row")" = yes ]; then
			knee=$row
		else
			bad=$row
		fi
	done
}

# The steps nearest the knee once more each, after the refinement: the
# knee's offered rate and that of the step that broke (rate_sweep's knee,
# bad, i and rows; sets knee2 and bad2, the second tries' rows). A step's
# outcome near the knee is itself noisy; two tries of each give the knee
# an interval (rate_sweep_interval).
rate_sweep_repeat () {
	local again
	if [ -n "$knee" ]; then
		rate_step_again "$knee" "the knee's %s logins/s offered once more" || return 0
		knee2=$again
	fi
	if [ -n "$bad" ]; then
		rate_step_again "$bad" "the %s logins/s that broke offered once more" || return 0
		bad2=$again
	fi
}

# rate_step_again ROW WHAT: ROW's offered rate once more, as the sweep's
# next step (rate_sweep's i and rows); WHAT, a printf format of that
# rate, for the progress line. Sets again (the caller's) to the new row;
# 1 when the step did not run.
rate_step_again () {
	local offered
	offered=$(rate_cell "$1" offered_per_s)
	i=$((i + 1))
	# shellcheck disable=SC2059 # WHAT is the caller's format
	progress_step "rate: step $i, $(printf "$2" "$offered")"
	again=$(rate_step "$i" "$offered") || { warn "rate: the sweep's step $i did not run (raw/rate-sweep-errors.txt)"; return 1; }
	rows+=("$again")
}

# The knee's interval from the two tries of the steps nearest it: from
# the lower achieved rate of the knee's two tries (or, when its second
# try broke, the best step below it that kept up) to the offered rate of
# the step that broke (when it broke both times; else no upper end). A
# bracket from repeated steps, not a 95 % interval: each step's outcome
# is one draw, and two tries show how firm it is.
rate_sweep_interval () {
	local lo hi row note tries=0 k_off
	# Without a knee (the first step broke) the same keys, with no bounds:
	# a run's keys do not depend on what the machine managed (t57).
	if [ -z "$knee" ]; then
		result_interval rate - - 0 steps - "no step of the sweep kept up, so there is no knee to bracket"
		return 0
	fi
	k_off=$(rate_cell "$knee" offered_per_s)
	lo=$(rate_cell "$knee" achieved_per_s)
	tries=1
	if [ -z "$knee2" ]; then
		note="the knee's step was not run again"
	elif [ "$(rate_step_good "$knee2")" = yes ]; then
		tries=2
		lo=$(awk -v a="$lo" -v b="$(rate_cell "$knee2" achieved_per_s)" 'BEGIN { print (b + 0 < a + 0) ? b : a }')
		note="the knee's step kept up both times"
	else
		tries=2
		# The best step below the knee's rate that kept up (one try).
		lo=$(for row in "${rows[@]}"; do
			[ "$(rate_step_good "$row")" = yes ] || continue
			awk -v o="$(rate_cell "$row" offered_per_s)" -v k="$k_off" 'BEGIN { exit !(o + 0 < k + 0) }' || continue
			rate_cell "$row" achieved_per_s
		done | sort -g | tail -n 1)
		lo=${lo:--}
		note="the knee's step broke on its second try, so the interval starts at the best step below it"
	fi
	if [ -z "$bad" ]; then
		hi=-
		note="$note; no step broke, so there is no upper end"
	elif [ -z "$bad2" ]; then
		hi=$(rate_cell "$bad" offered_per_s)
		tries=$((tries + 1))
		note="$note; the step that broke was not run again"
	elif [ "$(rate_step_good "$bad2")" = no ]; then
		hi=$(rate_cell "$bad" offered_per_s)
		tries=$((tries + 2))
		note="$note; the step that broke broke both times"
	else
		hi=-
		tries=$((tries + 2))
		note="$note; the step that broke kept up on its second try, so there is no upper end"
	fi
	# An achieved rate is counted over a few seconds: a step below may
	# show more than the knee's, the knee more than the next offered
	# rate. The bracket holds the figure all the same.
	read -r lo hi <<<"$(awk -v l="$lo" -v h="$hi" -v f="$(rate_cell "$knee" achieved_per_s)" 'BEGIN {
		if (l != "-" && l + 0 > f + 0) l = f
		if (h != "-" && h + 0 < f + 0) h = f
		print l, h }')"
	result_interval rate "$lo" "$hi" "$tries" steps - \
		"the steps nearest the knee, each run twice: $note. A bracket from repeated steps, not a 95 % interval"
}

# rate_write_sweep FILE ROW...: the sweep's table, whole: its header, then
# the rows in the order of the offered rate (the step column keeps the
# order they ran in), for the table and the charts.
rate_write_sweep () {
	local f=$1 row
	shift
	{
		tsv_header "$RATE_SWEEP_COLUMNS"
		for row in "$@"; do
			printf '%s\t%s\n' "$(rate_cell "$row" offered_per_s)" "$row"
		done | sort -g -s -k1,1 | sed 's/^[^\t]*\t//'
	} >"$f.tmp" && mv -f "$f.tmp" "$f"
}

# The sweep: steps until one is not good; the knee and the verdict's
# inputs into rate.env (knee_*, sweep_*).
rate_sweep () {
	local tsv="$RAW_DIR/rate-sweep.tsv" i=0 offered=$RATE_SWEEP_FIRST row bad="" rows=()
	local knee="" knee2="" bad2="" k ach failed p95 pct cl busy late
	rate_driver_args
	while [ "$i" -lt "$RATE_SWEEP_MAX_STEPS" ]; do
		i=$((i + 1))
		progress_step "rate: step $i, $offered logins/s offered"
		row=$(rate_step "$i" "$offered") || { warn "rate: the sweep's step $i did not run (raw/rate-sweep-errors.txt)"; break; }
		rows+=("$row")
		rate_write_sweep "$tsv" "${rows[@]}"
		offered=$(rate_cell "$row" offered_per_s)
		if [ "$(rate_step_good "$row")" = no ]; then
			bad=$row
			break
		fi
		knee=$row
		offered=$(awk -v o="$offered" -v f="$RATE_SWEEP_FACTOR" 'BEGIN { printf "%.2f", o * f }')
	done
	rate_sweep_refine
	rate_sweep_repeat
	rate_write_sweep "$tsv" ${rows[@]+"${rows[@]}"}
	result_set rate sweep_driver "${SETTING[RATE_CLIENT]}"
	result_set rate sweep_steps "$i"
	result_set rate sweep_step_seconds "${SETTING[RATE_STEP_SECONDS]}"
	result_set rate sweep_step_min_logins "$RATE_STEP_MIN_LOGINS"
	result_set rate sweep_threads "$(rate_sweep_threads)"
	if [ "${SETTING[RATE_CLIENT]}" = libssh ] && [ -f "$RAW_DIR/rate-step1-driver.env" ]; then
		for k in kex cipher mac hostkey; do
			result_set rate "libssh_$k" "$(kv_get "$RAW_DIR/rate-step1-driver.env" "$k")"
		done
	fi
	# The driver's CPU and sshd's CPU per login over every step: the cost
	# of a login does not depend on the knee.
	tsv_select "$tsv" ok sshd_cpu_ms | awk -F'\t' '
		{ ok += $1; sshd += $2 }
		END { if (ok > 0) printf "sweep_ok=%d\nsweep_sshd_cpu_ms_per_login=%.2f\n", ok, sshd / ok }' >>"$DATA_DIR/rate.env"
	awk -F= '
		$1 == "client_cpu_ms" { cpu += $2 }
		$1 == "ok" { ok += $2 }
		END { if (ok > 0) printf "sweep_client_cpu_ms_per_login=%.2f\n", cpu / ok }' "$RAW_DIR"/rate-step*-driver.env >>"$DATA_DIR/rate.env" 2>/dev/null || true
	if [ -n "$knee" ]; then
		result_set rate knee_step "$(rate_cell "$knee" step)"
		result_set rate knee_offered_per_s "$(rate_cell "$knee" offered_per_s)"
		result_set rate knee_per_s "$(rate_cell "$knee" achieved_per_s)"
		result_set rate knee_p50_ms "$(rate_cell "$knee" p50_ms)"
		result_set rate knee_p95_ms "$(rate_cell "$knee" p95_ms)"
		result_set rate knee_sshd_cpu_pct "$(rate_cell "$knee" sshd_cpu_pct)"
		result_set rate knee_client_cpu_pct "$(rate_cell "$knee" client_cpu_pct)"
		result_set rate knee_machine_busy_pct "$(rate_cell "$knee" machine_busy_pct)"
		[ -z "$knee2" ] || {
			result_set rate knee_repeat_step "$(rate_cell "$knee2" step)"
			result_set rate knee_repeat_per_s "$(rate_cell "$knee2" achieved_per_s)"
			result_set rate knee_repeat_good "$(rate_step_good "$knee2")"
		}
		rate_sweep_interval
	else
		result_set rate knee_per_s 0
	fi
	if [ -n "$bad" ]; then
		offered=$(rate_cell "$bad" offered_per_s) ach=$(rate_cell "$bad" achieved_per_s)
		failed=$(rate_cell "$bad" failed) p95=$(rate_cell "$bad" p95_ms) pct=$(rate_cell "$bad" sshd_cpu_pct)
		cl=$(rate_cell "$bad" client_cpu_pct) busy=$(rate_cell "$bad" machine_busy_pct) late=$(rate_cell "$bad" late_starts)
		result_set rate break_offered_per_s "$offered"
		result_set rate break_achieved_per_s "$ach"
		result_set rate break_failed "$failed"
		result_set rate break_p95_ms "$p95"
		result_set rate break_sshd_cpu_pct "$pct"
		result_set rate break_client_cpu_pct "$cl"
		result_set rate break_machine_busy_pct "$busy"
		result_set rate break_late_starts "$late"
		[ -z "$bad2" ] || {
			result_set rate break_repeat_step "$(rate_cell "$bad2" step)"
			result_set rate break_repeat_per_s "$(rate_cell "$bad2" achieved_per_s)"
			result_set rate break_repeat_good "$(rate_step_good "$bad2")"
		}
		result_set rate break_why "$(awk -v o="$offered" -v a="$ach" -v f="$failed" -v p="$p95" -v t="${SETTING[TARGET_LOGIN_P95_MS]}" -v share="$RATE_KNEE_SHARE" 'BEGIN {
			if (f > 0) w = w sprintf("%d logins failed; ", f)
			if (a < share * o) w = w sprintf("achieved %.1f of %.1f offered (below %d %%); ", a, o, share * 100)
			if (p == "-" || p > t) w = w sprintf("p95 %s ms over TARGET_LOGIN_P95_MS %s; ", p, t)
			sub(/; $/, "", w); print w }')"
		# Who ran out at the step that broke: sshd (it had most of the
		# CPUs), or the machine with the driver (and everything else).
		if awk -v b="$busy" -v s="$pct" -v mf="$RATE_MACHINE_FULL_PCT" -v sl="$RATE_SSHD_LIMIT_PCT" \
			'BEGIN { exit !(b >= mf && s < sl) }'; then
			result_set rate break_limit machine
		else
			result_set rate break_limit sshd
		fi
	else
		result_set rate break_limit none
	fi
	# The CPU bound: what sshd alone could do on every core.
	per=$(result_get rate sweep_sshd_cpu_ms_per_login)
	if [ -n "$per" ]; then
		result_set rate cpu_bound_per_s "$(awk -v c="$(nproc)" -v p="$per" 'BEGIN { if (p > 0) printf "%.1f", c * 1000 / p; else print "-" }')"
		result_set rate knee_of_cpu_bound_pct "$(awk -v k="$(result_get rate knee_per_s)" -v b="$(result_get rate cpu_bound_per_s)" 'BEGIN { if (b > 0) printf "%.0f", 100 * k / b; else print "-" }')"
	fi
}

# rate_label: the headline's label: the knee of which driver, at which
# key exchange, and when the ssh clients' key exchange differs, the
# capacity scaled to it beside. The libssh driver sets the headline
# because the ssh client, one process per login, runs out of CPU on the
# machine before sshd does (RATE_CLIENT in settings.conf).
rate_label () {
	local kex scaled
	if [ "${SETTING[RATE_CLIENT]}" = libssh ]; then kex=$(result_get rate libssh_kex); else kex=$(result_get rate ssh_kex); fi
	printf 'capacity: offered logins/s sshd kept up with, %s driver' "${SETTING[RATE_CLIENT]}"
	[ -z "$kex" ] || printf ', key exchange %s' "$kex"
	scaled=$(result_get rate knee_clients_kex_per_s)
	[ -z "$scaled" ] || printf '; at the ssh clients'"'"' key exchange %s about %s logins/s' "$(result_get rate ssh_kex)" "$scaled"
}

measure_rate () {
	local ok failed rate warn_text client_pct busy_pct knee limit knee_text k v
	# The closed-loop run's figures, into this test's data.
	while IFS='=' read -r k v; do
		case $k in '' | status | reason) ;; *) result_set rate "$k" "$v" ;; esac
	done <"$DATA_DIR/probe-loginload.env"
	result_set rate loginload_raw raw/probe-loginload
	ok=$(result_get rate ok)
	failed=$(result_get rate failed)
	rate=$(result_get rate logins_per_s)
	client_pct=$(result_get rate client_cpu_pct)
	busy_pct=$(result_get rate machine_busy_pct)
	[ "$(result_get rate session_cpu_lost)" != yes ] ||
		result_warn rate "the test user's slice ended during the run; its CPU is not in the figure"
	# A server that let no login through (hung, refusing) gets no sweep:
	# it would only wait for each login's deadline (docs/deadlines.md).
	if [ "${ok:-0}" -gt 0 ]; then
		rate_ssh_negotiated
		rate_sweep
	fi
	knee=$(result_get rate knee_per_s)
	limit=$(result_get rate break_limit)
	if [ "${SETTING[RATE_CLIENT]}" = libssh ] && [ -n "$(result_get rate ssh_kex)" ] &&
		[ "$(result_get rate libssh_kex)" != "$(result_get rate ssh_kex)" ]; then
		result_set rate kex_differs yes
	fi
	# The knee at the real clients' key exchange: scaled by the two
	# measured CPU costs per login (the sweep's, the closed-loop run's).
	if [ "$(result_get rate kex_differs)" = yes ] && [ -n "$(result_get rate knee_step)" ]; then
		result_set rate knee_clients_kex_per_s "$(awk -v k="$knee" -v d="$(result_get rate sweep_sshd_cpu_ms_per_login)" \
			-v c="$(result_get rate sshd_cpu_ms_per_login)" 'BEGIN { if (c > 0 && d > 0) printf "%.1f", k * d / c }')"
	fi
	result_verdict rate "$knee" ">=" "${SETTING[TARGET_RATE_MIN]}" "logins/s" "$(rate_label)"
	if [ "${ok:-0}" -eq 0 ]; then
		result_status rate FAIL "no login of the ${SETTING[RATE_WORKERS]} ssh clients succeeded; first error: $(tsv_select "$RAW_DIR/probe-loginload-logins.tsv" status error | awk -F'\t' '$1 != "ok" { print $2; exit }')" \
			"Find why the logins failed (raw/probe-loginload-errors.txt), fix it, and rerun ./test-ssh.sh rate"
	elif [ "${failed:-0}" -gt 0 ]; then
		result_status rate FAIL "$failed of $((ok + failed)) logins of the ${SETTING[RATE_WORKERS]} ssh clients failed under load (raw/probe-loginload-errors.txt); a server that drops logins below MaxStartups fails whatever its rate" \
			"Find why logins failed under load (raw/probe-loginload-errors.txt: time-outs, PAM or limits), fix it, and rerun ./test-ssh.sh rate"
	elif [ "$(result_get rate status)" = PASS ]; then
		: # the knee reached the target
	elif awk -v b="$(result_get rate cpu_bound_per_s)" -v t="${SETTING[TARGET_RATE_MIN]}" -v m="$RATE_BOUND_MARGIN" 'BEGIN { exit !(b != "" && b != "-" && m * b < t + 0) }'; then
		# Even with every core to itself and a tenth of the CPU per login
		# measured here, sshd could not reach the target: decided,
		# whoever else used the machine.
		result_status rate FAIL "the knee is $(figs logins/s "$knee") logins/s, below the target of ${SETTING[TARGET_RATE_MIN]}, and the target is out of reach on this machine: with all $(nproc) cores to itself sshd could do about $(figs logins/s "$(result_get rate cpu_bound_per_s)") logins/s ($(figs ms "$(result_get rate sweep_sshd_cpu_ms_per_login)") ms CPU per login, $(if [ "${SETTING[RATE_CLIENT]}" = libssh ]; then result_get rate libssh_kex; else result_get rate ssh_kex; fi) key exchange), less than a tenth of the target" \
			"Lower TARGET_RATE_MIN to what this machine can carry, or make each login cheaper (a lighter PAM session stack, connection re-use with ControlPersist): the target is out of reach for this machine's CPUs"
	elif [ "$(result_get rate status)" = INCONCLUSIVE ]; then
		: # the target lies between the knee and the step that broke
	elif [ "$limit" = machine ]; then
		result_status rate INCONCLUSIVE "the knee is $(figs logins/s "$knee") logins/s, below the target of ${SETTING[TARGET_RATE_MIN]}, but at $(figs logins/s "$(result_get rate break_offered_per_s)") logins/s offered the machine was $(result_get rate break_machine_busy_pct) % busy and sshd had only $(result_get rate break_sshd_cpu_pct) % of it (the driver $(result_get rate break_client_cpu_pct) %): this machine, not sshd, ran out. $(if [ "${SETTING[RATE_CLIENT]}" = ssh ]; then printf 'Use the lighter driver (RATE_CLIENT=libssh), or'; else printf 'Stop other work on the machine, or'; fi) run the clients on another machine" \
			"$(if [ "${SETTING[RATE_CLIENT]}" = ssh ]; then printf 'Rerun with the lighter driver (RATE_CLIENT=libssh)'; else printf 'Rerun with nothing else on the machine'; fi), or accept that this machine, not sshd, ran out first: the clients share its CPUs"
	else
		result_status rate FAIL "the knee is $(figs logins/s "$knee") logins/s$( [ -z "$(result_get rate knee_p95_ms)" ] || printf ' (p95 %s ms)' "$(figs ms "$(result_get rate knee_p95_ms)")"), below the target of ${SETTING[TARGET_RATE_MIN]}; the next step, $(figs logins/s "$(result_get rate break_offered_per_s)") logins/s offered, broke: $(result_get rate break_why), with sshd using $(result_get rate break_sshd_cpu_pct) % of all CPUs" \
			"Make each login cheaper (a lighter PAM stack, fewer logins through ControlPersist), or lower TARGET_RATE_MIN to the knee if that rate is enough for your use"
	fi
	if [ "$(result_get rate generator_limited)" = yes ]; then
		warn_text="the closed-loop figure (${SETTING[RATE_WORKERS]} ssh clients, $(figs logins/s "$rate") logins/s) was limited by its own clients: they used ${client_pct}% of the machine's CPU and the machine was ${busy_pct}% busy; the verdict uses the sweep's knee instead"
		result_warn rate "$warn_text"
	fi
	if [ -n "$(result_get rate knee_step)" ]; then
		knee_text="knee $(figs logins/s "$knee") logins/s (p95 $(figs ms "$(result_get rate knee_p95_ms)") ms, sshd $(result_get rate knee_sshd_cpu_pct) % of the CPUs, ${SETTING[RATE_CLIENT]} driver; CPU bound $(result_get rate cpu_bound_per_s | sed 's/^$/-/') logins/s at its key exchange$( [ -z "$(result_get rate knee_clients_kex_per_s)" ] || printf '; %s logins/s at the clients'"'"' key exchange, scaled' "$(result_get rate knee_clients_kex_per_s)"))"
	else
		knee_text="no knee: the first step, $(figs logins/s "$(result_get rate break_offered_per_s)") logins/s offered, broke ($(result_get rate break_why))"
	fi
	result_set rate summary "$knee_text; closed loop $rate logins/s with ${SETTING[RATE_WORKERS]} ssh clients, sshd $(result_get rate sshd_cpu_ms_per_login) ms CPU per login"
}
