# shellcheck shell=bash
# burst: for each step of BURST_STEPS, N ssh clients are started and held
# at a barrier (sshperf-gate as their ProxyCommand, after ssh's own start-up),
# then released at the same moment by sshperf-burst; each is timed from the
# release. Per step: logged in, refused by MaxStartups, other failures,
# and the release spread (release to the last TCP connect). Refusals are
# the server's words: each client is matched to sshd's log by the local
# port of its connection (burst_classify); a client's own message counts
# only where the log says nothing, and a difference between the two is
# a warning with the counts.
# Result: the highest step where every client logged in.

# shellcheck source=lib/maxstartups.sh
. "$KIT_DIR/lib/maxstartups.sh"
# shellcheck source=lib/burstclass.sh
. "$KIT_DIR/lib/burstclass.sh"

BURST_SPREAD_GOAL_MS=5	# for 100 clients on 2 cores
BURST_MAX_CLIENTS=2000	# sshperf-burst's own cap
# The deciding step (the first of at least TARGET_BURST_MIN clients where
# all logged in) runs again while its release spread is over the goal, at
# most this often in all: one hiccup of the machine (seen: 31 ms at 10
# clients on an idle 2-core VM) should not make the verdict INCONCLUSIVE.
# Whether it runs again depends on its spread alone, never on its outcome;
# the last try is the one reported.
BURST_DECIDING_TRIES=3
# The columns of raw/burst-steps.tsv (docs/data.md; those of
# raw/burst-step-N-class.tsv are lib/burstclass.sh's); the table is
# written whole from these.
BURST_STEPS_COLUMNS="clients ok refused failed timeout ready release_spread_ms woke_spread_ms connect_p50_ms done_max_ms ready_ms log_drops log_confirmed client_refused classified_by log_named log_unnamed log_ratelimited penalty sources note"

about_burst () {
	local n=0 s
	for s in ${SETTING[BURST_STEPS]}; do n=$((n + s)); done
	printf 'bursts of %s ssh clients released at the same moment (%s logins, about %s s)\n' \
		"$(printf '%s' "${SETTING[BURST_STEPS]}" | tr ' ' '/')" "$n" "$((n / 4 + 10))"
}

# The server's effective MaxStartups (start:rate:full).
burst_maxstartups () {
	local spec
	spec=$(kv_get "$DATA_DIR/environment.env" sshd_maxstartups)
	[ -n "$spec" ] || spec=$(server_effective maxstartups)
	printf '%s\n' "${spec:-${SETTING[MAX_STARTUPS]}}"
}

# Connections on TEST_PORT that are not closed yet, plus the processes
# below the listener (per-connection sshd processes and theirs).
burst_busy () {
	local pid n
	n=$(server_connections)
	pid=$(server_pid)
	[ -z "$pid" ] || n=$((n + $(descendants "$pid" | wc -l)))
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

# burst_class BASE KEY: a summary value of a step's classification.
burst_class () {
	kv_get "$1-class.env" "$2"
}

# The sources of the steps (lib/sources.sh). many: a fleet, each client an
# address of its own, new ones at every step (BURST_MANY_NEXT, so that a
# penalty a client earned in one step does not meet the next step); one:
# every client from BURST_ONE_SOURCE, as from an Ansible controller or
# behind a NAT, the same address at every step, as a controller's is.
BURST_MANY_NEXT=0

# burst_has_per_source: true when the test server has per-source limits
# (PerSourcePenalties, PerSourceMaxStartups: OpenSSH 9.8 and later), as
# its sshd -T says; only then does one source differ from many.
burst_has_per_source () {
	[ -n "$(server_effective persourcepenalties)" ]
}

# One step of N clients from the sources of CASE (many, the default, or
# one); its row of the steps table in BURST_ROW (by column name). The
# files of a one-source step are raw/burst-one-step-N*. Status 3 when no
# client of the step got an answer (each timed out, at the helper's
# deadline or on ssh's own ConnectTimeout): the server does not answer.
declare -gA BURST_ROW=()
declare -ga BURST_ROWS=()
burst_step () {
	local n=$1 case=${2:-many} base="$RAW_DIR/burst-step-$1" mark rc=0 deadline k first src
	BURST_ROW=([clients]=$n [ok]=0 [refused]=0 [failed]=0 [timeout]=0)
	if [ "$case" = one ]; then
		base="$RAW_DIR/burst-one-step-$n"
		src=(-S "$BURST_ONE_SOURCE")
		BURST_ROW[sources]=$BURST_ONE_SOURCE
	else
		first=$(source_plus "$BURST_MANY_FIRST" "$BURST_MANY_NEXT")
		BURST_MANY_NEXT=$((BURST_MANY_NEXT + n))
		src=(-M "$first")
		BURST_ROW[sources]="$first-$(source_plus "$first" $((n - 1)))"
	fi
	if [ "$n" -gt "$BURST_MAX_CLIENTS" ]; then
		BURST_ROW[ready]=$n
		BURST_ROW[note]="more than $BURST_MAX_CLIENTS clients: not run"
		return 0
	fi
	if ! burst_wait_idle 60; then
		warn "burst: connections of the previous step are still open after 60 s; $n clients start anyway"
	fi
	mark=$(server_log_mark)
	helper burst -H -n "$n" -g "$HELPER_DIR/sshperf-gate" "${src[@]}" -s "$base.env" -w 60 \
		-t "$((SETTING[LOGIN_TIMEOUT] + n / 2))" -- "$SSH" -F "$CLIENT_CONFIG" "$HOST_ALIAS" true \
		>"$base.tsv" 2>"$base.err" || rc=$?
	if [ "$rc" -ge 2 ] || [ ! -s "$base.env" ]; then
		BURST_ROW[failed]=$n BURST_ROW[ready]=0
		BURST_ROW[note]="sshperf-burst exit $rc: $(tail -n 1 "$base.err")"
		return 0
	fi
	# The server's words, client by client: wait until the step's
	# connections are gone and the log names every client that connected
	# (at most 3 s more: a line OpenSSH 10 rate-limited never comes).
	burst_wait_idle 60 || true
	deadline=$(( $(date +%s) + 3 ))
	while :; do
		if [ "$mark" = none ] || ! server_log_since "$mark" >"$base-server.log"; then
			: >"$base-server.log"
		fi
		burst_classify "$base.tsv" "$base-server.log" "${SETTING[TEST_PORT]}" "$base-class"
		[ "$(burst_class "$base" pending)" != 0 ] || break
		[ "$(date +%s)" -lt "$deadline" ] || break
		sleep 0.2
	done
	if [ "$(burst_class "$base" log)" = yes ]; then
		BURST_ROW[classified_by]=server
		BURST_ROW[log_drops]=$(( $(burst_class "$base" log_named) + $(burst_class "$base" log_unnamed) ))
		BURST_ROW[log_confirmed]=$([ "$(burst_class "$base" disagree)" = 0 ] && echo yes || echo no)
	else
		BURST_ROW[classified_by]=client
	fi
	for k in ok refused failed timeout client_refused log_named log_unnamed log_ratelimited penalty; do
		BURST_ROW[$k]=$(burst_class "$base" "$k")
	done
	for k in ready release_spread_ms woke_spread_ms connect_p50_ms done_max_ms ready_ms; do
		BURST_ROW[$k]=$(kv_get "$base.env" "$k")
	done
	tsv_select "$base.tsv" outcome message | awk -F'\t' '{ n++; if ($1 == "timeout" || $2 ~ /timed out/) silent++ }
		END { exit !(n > 0 && silent == n) }' && return 3
	return 0
}

# burst_one_source SILENT_STEP: on a server with per-source limits, the
# steps again with every client from one address: what PerSourcePenalties
# and PerSourceMaxStartups do to an Ansible controller or the clients
# behind a NAT. They decide nothing: the verdict is MaxStartups', from the
# many-source steps (a fleet). Their rows: raw/burst-one-source-steps.tsv
# (BURST_STEPS_COLUMNS). Not run when the server has no such limits, or
# when a step of the fleet got no answer at all (SILENT_STEP).
burst_one_source () {
	local steps="$RAW_DIR/burst-one-source-steps.tsv" n oks="" penalty=0 refused=0 why=""
	result_set burst sources_many "$BURST_MANY_FIRST and up, one address per client, new addresses at every step"
	if ! burst_has_per_source; then
		why="this sshd has no per-source limits (PerSourcePenalties, OpenSSH 9.8 and later), so one source is the same as many"
	elif [ -n "$1" ]; then
		why="the server did not answer the step of $1 clients"
	fi
	if [ -n "$why" ]; then
		result_set burst sources_one "-"
		result_set burst one_source_steps "-"
		result_set burst one_source_penalty "-"
		result_set burst one_source_not_run "$why"
		return 0
	fi
	BURST_ROWS=()
	burst_write_steps "$steps"
	for n in ${SETTING[BURST_STEPS]}; do
		progress_step "burst: $n clients from one source ($BURST_ONE_SOURCE)"
		burst_step "$n" one || true
		BURST_ROWS+=("$(tsv_row BURST_ROW "$BURST_STEPS_COLUMNS")")
		burst_write_steps "$steps"
		oks="$oks ${BURST_ROW[ok]}/$n"
		penalty=$((penalty + ${BURST_ROW[penalty]:-0}))
		refused=$((refused + ${BURST_ROW[refused]:-0}))
	done
	result_set burst sources_one "$BURST_ONE_SOURCE"
	result_set burst one_source_steps "${oks# }"
	result_set burst one_source_penalty "$penalty"
	result_set burst one_source_not_run "-"
	[ "$penalty" -eq 0 ] ||
		result_warn burst "from one source address ($BURST_ONE_SOURCE, as an Ansible controller or a NAT) sshd refused $penalty of the $refused refused connection(s) for a per-source penalty (PerSourcePenalties), not for MaxStartups: automation from one host meets those limits before MaxStartups (raw/burst-one-source-steps.tsv)"
}

# burst_write_steps FILE: the steps table, whole: its header and the rows
# of BURST_ROWS (one line each, in BURST_STEPS_COLUMNS).
burst_write_steps () {
	{
		tsv_header "$BURST_STEPS_COLUMNS"
		[ "${#BURST_ROWS[@]}" -eq 0 ] || printf '%s\n' "${BURST_ROWS[@]}"
	} >"$1.tmp" && mv -f "$1.tmp" "$1"
}

# A PASS rests on the smallest step of at least TARGET_BURST_MIN clients
# where all logged in. When those clients reached the server spread over
# more than BURST_SPREAD_GOAL_MS, the burst was gentler than a real one and
# the PASS proves nothing: INCONCLUSIVE. A FAIL stands (even a gentler
# burst was refused).
burst_undecided () {
	local spec=$1 deciding="" spread=""
	[ "$(result_get burst status)" = PASS ] || return 0
	read -r deciding spread < <(tsv_select "$RAW_DIR/burst-steps.tsv" clients ok release_spread_ms |
		awk -F'\t' -v min="${SETTING[TARGET_BURST_MIN]}" '$1 >= min + 0 && $2 == $1 { print $1, $3; exit }') || true
	[ -n "$deciding" ] || return 0
	result_set burst deciding_step "$deciding"
	case $spread in '' | -) return 0 ;; esac
	awk -v s="$spread" -v g="$BURST_SPREAD_GOAL_MS" 'BEGIN { exit !(s > g) }' || return 0
	result_status burst INCONCLUSIVE "all $deciding clients of the deciding step logged in, but they reached the server over $(figs ms "$spread") ms (goal $BURST_SPREAD_GOAL_MS ms), so the burst was gentler than a real one and MaxStartups $spec may have let through more than it would at once; run the burst again on a quieter machine (\`./test-ssh.sh burst\`), with nothing else running" \
		"Rerun ./test-ssh.sh burst on a quiet machine, with nothing else running: this one let the clients arrive too far apart to prove the PASS"
}

# burst_is_deciding: true when the step just run (BURST_ROW) has at least
# TARGET_BURST_MIN clients, all logged in.
burst_is_deciding () {
	[ "${BURST_ROW[clients]}" -ge "${SETTING[TARGET_BURST_MIN]}" ] && [ "${BURST_ROW[ok]}" = "${BURST_ROW[clients]}" ]
}

# burst_model SPEC RESULT: the range of results the MaxStartups model
# gives for these steps (the outcomes between its 2.5 % and 97.5 %
# points) and its probability of RESULT, as the figure's interval
# (figure_method=model; the verdict stays on what was seen).
burst_model () {
	local out range lo hi p
	out=$(maxstartups_outcomes "$1" "${SETTING[BURST_STEPS]}") || return 0
	# The central 95 % of the model's outcomes (sshperf-rank distribution).
	range=$(printf '%s\n' "$out" | awk -F'\t' '{ print $1, $3 }' | stats_rank distribution) || range=""
	lo=$(printf '%s\n' "$range" | sed -n 's/^lo=//p')
	hi=$(printf '%s\n' "$range" | sed -n 's/^hi=//p')
	lo=${lo:--} hi=${hi:--}
	p=$(printf '%s\n' "$out" | awk -F'\t' -v r="$2" '$1 == r { p = $3 } END { print p == "" ? 0 : sprintf("%.3g", p) }')
	result_interval burst "$lo" "$hi" "$(wc -w <<<"${SETTING[BURST_STEPS]}")" model - \
		"the range of results the MaxStartups $1 model gives when every step's clients arrive before any has authenticated; a probability of $p for $2"
	result_set burst figure_probability "$p"
}

measure_burst () {
	local steps="$RAW_DIR/burst-steps.tsv" spec n result=0 over="" worst=0 other=0 \
		unconfirmed="" list="" oks="" silent_step="" not_run="" stopped="" disagree="" fallback="" \
		ok refused failed timeout spread confirmed client_refused by deciding="" deciding_tries=0 tries earlier
	spec=$(burst_maxstartups)
	BURST_ROWS=()
	burst_write_steps "$steps"
	# A step where no client got an answer ends the test: larger steps
	# would only wait longer for the same silence.
	for n in ${SETTING[BURST_STEPS]}; do
		if [ -n "$silent_step" ]; then
			not_run="$not_run $n"
			continue
		fi
		progress_step "burst: $n clients"
		tries=1 earlier=""
		while burst_step "$n" || { silent_step=$n; false; }; do
			[ -z "$deciding" ] || break
			burst_is_deciding || break
			spread=${BURST_ROW[release_spread_ms]:--}
			if ! awk -v s="$spread" -v g="$BURST_SPREAD_GOAL_MS" 'BEGIN { exit !(s > g) }' ||
				[ "$tries" -ge "$BURST_DECIDING_TRIES" ]; then
				deciding=$n deciding_tries=$tries
				break
			fi
			earlier="$earlier${earlier:+, }$spread"
			tries=$((tries + 1))
			progress_step "burst: $n clients again (the deciding step; release spread $spread ms, goal $BURST_SPREAD_GOAL_MS ms)"
		done
		if [ -n "$earlier" ]; then
			BURST_ROW[note]="$tries of at most $BURST_DECIDING_TRIES tries, the earlier at $earlier ms"
		fi
		BURST_ROWS+=("$(tsv_row BURST_ROW "$BURST_STEPS_COLUMNS")")
		burst_write_steps "$steps"
	done
	# Every run has the key (the same keys in every run, t57): 0 when no
	# step decided.
	result_set burst deciding_tries "$deciding_tries"
	if [ -n "$not_run" ]; then
		stopped="no client of the $silent_step-client step got an answer (each one timed out), so the steps of${not_run} clients were not run"
		result_set burst not_run_steps "${not_run# }"
	fi

	result_set burst max_startups "$spec"
	result_set burst mode "$(server_get MODE)"
	result_set burst spread_goal_ms "$BURST_SPREAD_GOAL_MS"
	# The steps' rows stay in raw/burst-steps.tsv (docs/data.md); the
	# data file gets the summary.
	while IFS=$'\t' read -r n ok refused failed timeout spread confirmed client_refused by; do
		list="$list $n"
		oks="$oks $ok/$n"
		if [ "$ok" = "$n" ] && [ "$n" -gt "$result" ]; then result=$n; fi
		other=$((other + ${failed:-0} + ${timeout:-0}))
		if [ "$confirmed" = no ]; then
			unconfirmed="$unconfirmed $n"
			disagree="${disagree:+$disagree, }$n clients: the server log refused $refused, the clients' messages said $client_refused"
		fi
		[ "$by" != client ] || fallback="$fallback $n"
		case $spread in
		'' | -) ;;
		*)
			if awk -v s="$spread" -v g="$BURST_SPREAD_GOAL_MS" 'BEGIN { exit !(s > g) }'; then
				over="$over $n"
				awk -v s="$spread" -v w="$worst" 'BEGIN { exit !(s > w) }' && worst=$spread
			fi
			;;
		esac
	done < <(tsv_select "$steps" clients ok refused failed timeout release_spread_ms log_confirmed \
		client_refused classified_by)
	result_set burst steps "${list# }"
	result_set burst result "$result"
	result_set burst other_failures "$other"
	burst_model "$spec" "$result"
	result_verdict burst "$result" ">=" "${SETTING[TARGET_BURST_MIN]}" clients "most clients released at once that all logged in" \
		"at most $result clients released at once all logged in; the target is ${SETTING[TARGET_BURST_MIN]} (MaxStartups $spec)${stopped:+; $stopped}" \
		"Raise the first value of MaxStartups to at least ${SETTING[TARGET_BURST_MIN]} (automation and jump hosts: MaxStartups 100:30:200; try it with MAX_STARTUPS=100:30:200 ./start-ssh.sh), or lower TARGET_BURST_MIN if fewer logins ever come at once"
	burst_undecided "$spec"
	[ -z "$over" ] ||
		result_warn burst "release spread over the ${BURST_SPREAD_GOAL_MS} ms goal at${over} clients (up to $(figs ms "$worst") ms): the clients did not reach the server at quite the same moment, so fewer may be refused than in a real burst"
	[ -z "$unconfirmed" ] ||
		result_set burst log_unconfirmed_steps "${unconfirmed# }"
	# The server's log decides; where the clients' own messages say
	# otherwise, the report says so with the counts.
	[ -z "$disagree" ] ||
		result_warn burst "refusals classified from the server's log differ from the clients' own messages ($disagree); the log is taken"
	[ -z "$fallback" ] ||
		result_warn burst "the server's log named none of the clients at${fallback} clients; there refusals are counted from the clients' own messages"
	[ -z "$stopped" ] || [ "$(result_get burst status)" != PASS ] || result_warn burst "$stopped"
	result_set burst summary "all logged in up to $result clients at once (steps:$oks logged in), $other other failures, MaxStartups $spec, target >= ${SETTING[TARGET_BURST_MIN]}"
	burst_one_source "$silent_step"
}
