# shellcheck shell=bash
# burst: for each step of BURST_STEPS, N ssh clients are started and held
# at a barrier (sshperf-gate as their ProxyCommand, after ssh's own start-up),
# then released at the same moment by sshperf-burst; each is timed from the
# release. Per step: logged in, refused by MaxStartups (from the client's
# message, confirmed from the server's log where it has the lines), other
# failures, and the release spread (release to the last TCP connect).
# Result: the highest step where every client logged in.

BURST_SPREAD_GOAL_MS=5	# for 100 clients on 2 cores
BURST_MAX_CLIENTS=2000	# sshperf-burst's own cap

about_burst () {
	local n=0 s
	for s in $BURST_STEPS; do n=$((n + s)); done
	printf 'bursts of %s ssh clients released at the same moment (%s logins, about %s s)\n' \
		"$(printf '%s' "$BURST_STEPS" | tr ' ' '/')" "$n" "$((n / 4 + 10))"
}

# The server's effective MaxStartups (start:rate:full).
burst_maxstartups () {
	local spec
	spec=$(sed -n 's/^sshd_maxstartups=//p' "$DATA_DIR/environment.env" 2>/dev/null | tail -n 1)
	[ -n "$spec" ] || spec=$("$SSHD" -T -f "$SSHD_CONFIG" -C "user=$TEST_USER,addr=127.0.0.1,host=localhost" 2>/dev/null |
		awk '$1 == "maxstartups" { print $2 }')
	printf '%s\n' "${spec:-$MAX_STARTUPS}"
}

# Connections on TEST_PORT that are not closed yet, plus the listener's
# children (per-connection sshd processes).
burst_busy () {
	local hex pid n
	hex=$(printf '%04X' "$TEST_PORT")
	n=$(cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk -v p=":$hex" '
		NR > 1 && $4 != "0A" && $4 != "06" && $4 != "07" &&
		(substr($2, length($2) - 4) == p || substr($3, length($3) - 4) == p) { n++ }
		END { print n + 0 }')
	pid=$(server_pid)
	if [ -n "$pid" ]; then
		n=$((n + $(cat /proc/"$pid"/task/*/children 2>/dev/null | wc -w)))
	fi
	printf '%s\n' "$n"
}

# Waits until the previous step's connections are gone; at most $1 s.
burst_wait_idle () {
	local deadline
	deadline=$(( $(date +%s) + $1 ))
	while [ "$(burst_busy)" -gt 0 ]; do
		[ "$(date +%s)" -lt "$deadline" ] || return 1
		sleep 0.05
	done
}

# Where the server's log is now (direct: sshd.log's size; systemd: the
# journal's cursor, or the time when there is none).
burst_log_mark () {
	local cursor
	case $(server_get MODE) in
	direct) stat -c %s "$STATE_DIR/sshd.log" 2>/dev/null || echo 0 ;;
	systemd)
		command -v journalctl >/dev/null || { echo none; return; }
		cursor=$(journalctl -u "$UNIT_NAME" -n 1 --show-cursor -q -o cat 2>/dev/null | sed -n 's/^-- cursor: //p')
		if [ -n "$cursor" ]; then printf 'cursor:%s\n' "$cursor"; else printf 'since:@%s\n' "$(date +%s)"; fi
		;;
	*) echo none ;;
	esac
}

# What the server logged since mark $1.
burst_log_since () {
	case $1 in
	none) return 1 ;;
	cursor:*) journalctl -u "$UNIT_NAME" --after-cursor="${1#cursor:}" -q -o cat 2>/dev/null ;;
	since:*) journalctl -u "$UNIT_NAME" --since="${1#since:}" -q -o cat 2>/dev/null ;;
	*) tail -c +"$(($1 + 1))" "$STATE_DIR/sshd.log" 2>/dev/null ;;
	esac
}

# Refusals the log shows, from its lines on stdin. At LogLevel INFO sshd
# logs only the first "drop connection #N ... past MaxStartups" of a
# throttling period, and the period's total when it ends ("exited
# MaxStartups throttling after ..., N connections dropped"); at VERBOSE
# every drop.
burst_log_drops () {
	awk '
		/drop connection #[0-9]+ from .* past MaxStartups/ { pending++ }
		/exited MaxStartups throttling after .*connections dropped/ {
			for (i = 1; i <= NF; i++) if ($(i + 1) == "connections") n = $i + 0
			total += n; pending = 0
		}
		END { print total + pending }'
}

# One step of N clients; appends a row to the steps TSV. Status 3 when no
# client of the step got an answer (each timed out, at the helper's deadline
# or on ssh's own ConnectTimeout): the server does not answer.
burst_step () {
	local n=$1 steps=$2 base="$RAW_DIR/burst-step-$1" mark rc=0 log_drops=- confirmed=- \
		deadline refused k v
	if [ "$n" -gt "$BURST_MAX_CLIENTS" ]; then
		printf '%s\t0\t0\t0\t0\t%s\t-\t-\t-\t-\t-\t-\t-\tmore than %s clients: not run\n' \
			"$n" "$n" "$BURST_MAX_CLIENTS" >>"$steps"
		return 0
	fi
	if ! burst_wait_idle 60; then
		warn "burst: connections of the previous step are still open after 60 s; $n clients start anyway"
	fi
	mark=$(burst_log_mark)
	helper burst -H -n "$n" -g "$HELPER_DIR/sshperf-gate" -s "$base.env" -w 60 \
		-t "$((LOGIN_TIMEOUT + n / 2))" -- "$SSH" -F "$CLIENT_CONFIG" "$HOST_ALIAS" true \
		>"$base.tsv" 2>"$base.err" || rc=$?
	if [ "$rc" -ge 2 ] || [ ! -s "$base.env" ]; then
		printf '%s\t0\t0\t%s\t0\t0\t-\t-\t-\t-\t-\t-\t-\tsshperf-burst exit %s: %s\n' "$n" "$n" "$rc" \
			"$(tail -n 1 "$base.err" | tr '\t' ' ')" >>"$steps"
		return 0
	fi
	refused=$(sed -n 's/^refused=//p' "$base.env")
	# The server logs a throttling period's total when the next connection
	# comes in after it: one greeting after the step has ended.
	if [ "$refused" -gt 0 ] && [ "$mark" != none ]; then
		burst_wait_idle 60 || true
		wait_greeting 10 >/dev/null 2>&1 || true
		deadline=$(( $(date +%s) + 2 ))
		while :; do
			log_drops=$(burst_log_since "$mark" | tee "$base-server.log" | burst_log_drops)
			if [ "$log_drops" -ge "$refused" ] || [ "$(date +%s)" -ge "$deadline" ]; then
				break
			fi
			sleep 0.1
		done
		confirmed=$([ "$log_drops" -ge "$refused" ] && echo yes || echo no)
	elif [ "$mark" != none ]; then
		log_drops=$(burst_log_since "$mark" | tee "$base-server.log" | burst_log_drops)
		confirmed=$([ "$log_drops" -eq 0 ] && echo yes || echo no)
	fi
	{
		printf '%s' "$n"
		for k in ok refused failed timeout ready release_spread_ms woke_spread_ms connect_p50_ms done_max_ms ready_ms; do
			v=$(sed -n "s/^$k=//p" "$base.env")
			printf '\t%s' "${v:--}"
		done
		printf '\t%s\t%s\t-\n' "$log_drops" "$confirmed"
	} >>"$steps"
	awk -F'\t' 'NR > 1 { n++; if ($2 == "timeout" || $7 ~ /timed out/) silent++ }
		END { exit !(n > 0 && silent == n) }' "$base.tsv" && return 3
	return 0
}

# A PASS rests on the smallest step of at least TARGET_BURST_MIN clients
# where all logged in. When those clients reached the server spread over
# more than BURST_SPREAD_GOAL_MS, the burst was gentler than a real one and
# the PASS proves nothing: INCONCLUSIVE. A FAIL stands (even a gentler
# burst was refused).
burst_undecided () {
	local spec=$1 n deciding="" spread
	[ "$(result_get burst status)" = PASS ] || return 0
	for n in $(result_get burst steps); do
		[ "$n" -ge "$TARGET_BURST_MIN" ] || continue
		[ "$(result_get burst "step_${n}_ok")" = "$n" ] || continue
		deciding=$n
		break
	done
	[ -n "$deciding" ] || return 0
	spread=$(result_get burst "step_${deciding}_spread_ms")
	result_set burst deciding_step "$deciding"
	case $spread in '' | -) return 0 ;; esac
	awk -v s="$spread" -v g="$BURST_SPREAD_GOAL_MS" 'BEGIN { exit !(s > g) }' || return 0
	result_set burst status INCONCLUSIVE
	result_set burst reason "all $deciding clients of the deciding step logged in, but they reached the server over $spread ms (goal $BURST_SPREAD_GOAL_MS ms), so the burst was gentler than a real one and MaxStartups $spec may have let through more than it would at once; run the burst again on a quieter machine (\`./test-ssh.sh burst\`), with nothing else running"
}

measure_burst () {
	local steps="$RAW_DIR/burst-steps.tsv" spec n result=0 row over="" worst=0 other=0 \
		unconfirmed="" list="" silent_step="" not_run="" stopped=""
	spec=$(burst_maxstartups)
	printf 'clients\tok\trefused\tfailed\ttimeout\tready\trelease_spread_ms\twoke_spread_ms\tconnect_p50_ms\tdone_max_ms\tready_ms\tlog_drops\tlog_confirmed\tnote\n' >"$steps"
	# A step where no client got an answer ends the test: larger steps
	# would only wait longer for the same silence.
	for n in $BURST_STEPS; do
		if [ -n "$silent_step" ]; then
			not_run="$not_run $n"
			continue
		fi
		progress_step "burst: $n clients"
		burst_step "$n" "$steps" || silent_step=$n
	done
	if [ -n "$not_run" ]; then
		stopped="no client of the $silent_step-client step got an answer (each one timed out), so the steps of${not_run} clients were not run"
		result_set burst not_run_steps "${not_run# }"
	fi

	result_set burst max_startups "$spec"
	result_set burst mode "$(server_get MODE)"
	result_set burst spread_goal_ms "$BURST_SPREAD_GOAL_MS"
	while IFS=$'\t' read -r n ok refused failed timeout ready spread woke p50 done_max ready_ms drops confirmed note; do
		[ "$n" != clients ] || continue
		list="$list $n"
		for row in ok:"$ok" refused:"$refused" failed:"$failed" timeout:"$timeout" ready:"$ready" \
			spread_ms:"$spread" woke_spread_ms:"$woke" connect_p50_ms:"$p50" done_max_ms:"$done_max" \
			ready_ms:"$ready_ms" log_drops:"$drops" log_confirmed:"$confirmed" note:"$note"; do
			result_set burst "step_${n}_${row%%:*}" "${row#*:}"
		done
		if [ "$ok" = "$n" ] && [ "$n" -gt "$result" ]; then result=$n; fi
		other=$((other + ${failed:-0} + ${timeout:-0}))
		[ "$confirmed" != no ] || unconfirmed="$unconfirmed $n"
		case $spread in
		'' | -) ;;
		*)
			if awk -v s="$spread" -v g="$BURST_SPREAD_GOAL_MS" 'BEGIN { exit !(s > g) }'; then
				over="$over $n"
				awk -v s="$spread" -v w="$worst" 'BEGIN { exit !(s > w) }' && worst=$spread
			fi
			;;
		esac
	done <"$steps"
	result_set burst steps "${list# }"
	result_set burst result "$result"
	result_set burst other_failures "$other"
	result_set burst figure "$result"
	result_set burst unit clients
	result_set burst figure_label "most clients released at once that all logged in"
	result_set burst target "$TARGET_BURST_MIN"
	result_set burst target_op ">="
	result_set burst status "$(verdict "$result" ">=" "$TARGET_BURST_MIN")"
	[ "$(result_get burst status)" = PASS ] ||
		result_set burst reason "at most $result clients released at once all logged in; the target is $TARGET_BURST_MIN (MaxStartups $spec)${stopped:+; $stopped}"
	burst_undecided "$spec"
	if [ -n "$over" ]; then
		result_set burst warning "release spread over the ${BURST_SPREAD_GOAL_MS} ms goal at${over} clients (up to $worst ms): the clients did not reach the server at quite the same moment, so fewer may be refused than in a real burst"
	fi
	[ -z "$unconfirmed" ] ||
		result_set burst log_unconfirmed_steps "${unconfirmed# }"
	[ -z "$stopped" ] || [ "$(result_get burst status)" != PASS ] ||
		result_set burst warning "$(w=$(result_get burst warning); printf '%s' "${w:+$w; }$stopped")"
	result_set burst summary "all logged in up to $result clients at once (steps:$(
		for n in $list; do printf ' %s/%s' "$(result_get burst "step_${n}_ok")" "$n"; done
	) logged in), $other other failures, MaxStartups $spec, target >= $TARGET_BURST_MIN"
}
