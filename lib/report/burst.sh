# shellcheck shell=bash disable=SC2016
# (SC2016: backticks in the strings are markdown.)
# The report's section for `burst`; sourced by lib/bin/render.sh.

# The MaxStartups model and parser: lib/maxstartups.sh (loaded by
# lib/charts.sh, which lib/bin/render.sh loads before the sections).

# burst_lookup FILE N: the expected value for N in a maxstartups_expected
# output.
burst_lookup () {
	awk -F'\t' -v n="$2" '$1 == n { print $2 }' "$1"
}

# burst_expected_load ARRAY FILE: ARRAY[N] gets what burst_lookup FILE N
# prints, for every N of the file at once (one read, not an awk per
# cell): its second column, the lines of an N given twice joined.
burst_expected_load () {
	local -n burst_expected_to=$1
	local n v
	burst_expected_to=()
	while IFS= read -r n; do
		case $n in *$'\t'*) v=${n#*$'\t'} ;; *) v="" ;; esac
		n=${n%%$'\t'*}
		burst_expected_to[$n]+="${burst_expected_to[$n]:+$'\n'}${v%%$'\t'*}"
	done <"$2"
}

# The steps' rows, raw/burst-steps.tsv (docs/data.md): BURST_CELL[N|COLUMN].
declare -gA BURST_CELL=()
burst_load_steps () {
	tsv_load BURST_CELL "$1" clients
}

# step N COLUMN: a cell of the steps table; nothing for a step not run.
step () {
	printf '%s' "${BURST_CELL[$1|$2]:-}"
}

# report_burst_sources STEPS: which source addresses the clients came
# from, and on a server with per-source limits the same steps from one
# address (raw/burst-one-source-steps.tsv).
report_burst_sources () {
	local many one n why
	local -A ONE=()
	many=${D[burst|sources_many]-}
	one=${D[burst|sources_one]-}
	# A run from before the source addresses (every client from
	# 127.0.0.1) renders as it did.
	[ -n "$many" ] || return 0
	prose "$many" <<-'EOF'
	**Sources.** The steps above are a fleet: every client connected from a loopback address of its
	own (%s; the first and last of each step in `raw/burst-steps.tsv`), so sshd's per-source limits
	(`PerSourcePenalties`, `PerSourceMaxStartups`, OpenSSH 9.8 and later) counted each client
	alone and `MaxStartups` decided.

	EOF
	if [ -z "$one" ] || [ "$one" = - ]; then
		why=${D[burst|one_source_not_run]-}
		printf 'The same steps from one address were not run: %s.\n\n' "${why:-not recorded}"
		return 0
	fi
	tsv_load ONE "$RUN_DIR/raw/burst-one-source-steps.tsv" clients
	prose "$one" "${D[burst|one_source_penalty]-}" <<-'EOF'
	The same steps with every client from one address (%s), as from an Ansible controller or from
	clients behind a NAT: the server's per-source limits stay as configured, so they count all of
	them as one client. These steps decide nothing; sshd refused %s of them for a penalty in all.

	| Clients at once, one source | Logged in | Refused (MaxStartups) | Refused (penalty) | Other failures | Release spread ms |
	|---:|---:|---:|---:|---:|---:|
	EOF
	for n in $1; do
		[ -n "${ONE[$n|ok]:-}" ] || continue
		printf '| %s | %s | %s | %s | %s | %s |\n' "$n" "${ONE[$n|ok]}" \
			"$(( ${ONE[$n|refused]//[^0-9]/}+0 - ${ONE[$n|penalty]//[^0-9]/}+0 ))" "${ONE[$n|penalty]:-0}" \
			"$(( ${ONE[$n|failed]//[^0-9]/}+0 + ${ONE[$n|timeout]//[^0-9]/}+0 ))" "$(ms "${ONE[$n|release_spread_ms]:-}")"
	done
	printf '\nEach client of these steps is in `raw/burst-one-step-N.tsv`, classified from the server log in `raw/burst-one-step-N-class.tsv`.\n\n'
}

report_burst () {
	local spec steps n start='?' rate='?' full='?' model rec all rows confirmed spread goal mode oks other timeout
	local unnamed unnamed_note differs spread_cell done_cell measured
	local -A EXPECTED=() RECOMMENDED=()
	burst_load_steps "$RUN_DIR/raw/burst-steps.tsv"
	spec=$(maxstartups_of_run "$RUN_DIR")
	steps=${D[burst|steps]-}
	goal=${D[burst|spread_goal_ms]-}
	mode=${D[burst|mode]-}
	# A run without the key: the mode of the run's environment.
	[ -n "$mode" ] || mode=${KV_CACHE[$DATA_DIR/environment.env|service_mode]-}
	read -r start rate full < <(maxstartups_parse "$spec") || true
	model=$(mktemp)
	rec=$(mktemp)
	all=$(printf '5 10 20 50 100 %s\n' "$steps" | tr ' ' '\n' | grep . | sort -nu | tr '\n' ' ')
	maxstartups_expected "$spec" "$all" >"$model" || true
	maxstartups_expected 100:30:200 "$all" >"$rec"
	burst_expected_load EXPECTED "$model"
	burst_expected_load RECOMMENDED "$rec"


	local where="each step's lines are in this folder, \`raw/burst-step-N-server.log\`"
	[ "$mode" = direct ] && where="the server's log of each step is in this folder, \`raw/burst-step-N-server.log\`" ||
		where="from the journal of the unit; $where"
	prose "$where" "${spec:-?}" <<-'EOF'
	For each step, that many `ssh` clients were started first and held at a barrier after their
	own start-up (a small gate program as their `ProxyCommand` waits there and makes the TCP
	connection only when released). Then all were released at the same moment and each was timed
	from that release. A client counts as refused when the server says so: sshd (at `LogLevel
	VERBOSE`) logs every connection it drops under `MaxStartups` with the client's port, and every
	session it starts, and each client is matched to those lines by the port of its connection
	(%s). Only where the log names no client does the client's own message decide (`Exceeded
	MaxStartups`, `Not allowed at this time`, or `kex_exchange_identification` with a closed or
	reset connection); the column *Refused by the clients' messages* shows that count, and a
	difference is a warning. This server runs with `MaxStartups %s`.

	EOF

	prose <<-'EOF'
	| Clients at once | Logged in | Refused (MaxStartups) | Other failures | Expected (model) |
	Refusals in the server log | Refused by the clients' messages | Release spread ms |
	Last client done ms |
	|---:|---:|---:|---:|---:|---:|---:|---:|---:|
	EOF
	rows=0
	for n in $steps; do
		rows=$((rows + 1))
		confirmed=${BURST_CELL[$n|log_confirmed]:-}
		spread=${BURST_CELL[$n|release_spread_ms]:-}
		other=${BURST_CELL[$n|failed]:-}
		timeout=${BURST_CELL[$n|timeout]:-}
		other=$(( ${other//[^0-9]/}+0 + ${timeout//[^0-9]/}+0 ))
		# The cells from the arrays, not a $(step ...) each (a fork).
		unnamed=${BURST_CELL[$n|log_unnamed]:-} unnamed_note="" differs=""
		[ "$unnamed" -gt 0 ] 2>/dev/null && unnamed_note=" ($unnamed without a line of their own)"
		[ "$confirmed" != no ] || differs=" (differs)"
		ms_to spread_cell "$spread"
		ms_to done_cell "${BURST_CELL[$n|done_max_ms]:-}"
		printf '| %s | %s | %s | %s | %s | %s | %s | %s%s | %s |\n' "$n" "${BURST_CELL[$n|ok]:-}" \
			"${BURST_CELL[$n|refused]:-}" \
			"$other" \
			"${EXPECTED[$n]-}" \
			"${BURST_CELL[$n|log_drops]:-}$unnamed_note" \
			"${BURST_CELL[$n|client_refused]:-}$differs" \
			"$spread_cell" \
			"$(awk -v s="$spread" -v g="${goal:-5}" 'BEGIN { if (s != "-" && s != "" && s + 0 > g + 0) printf " ⚠" }')" \
			"$done_cell"
	done

	prose "${goal:-5}" <<-'EOF'

	n = one burst per step (the clients of a step are the samples). The release spread is the time
	from the release to the last client's completed TCP connect; the goal is %s ms or less (for 100
	clients on 2 cores), marked ⚠ when exceeded: a wider spread lets early clients finish before
	late ones arrive, which a real burst would not. Every client's row (outcome, exit code,
	message, times) is in `raw/burst-step-N.tsv`.

	EOF

	for n in $steps; do
		case ${BURST_CELL[$n|note]:-} in

		*" tries, the earlier at "*)
			prose "$n" "${BURST_CELL[$n|note]:-}" <<-'EOF'
			The step of %s clients decides the verdict, so it ran again while its release spread
			was over the goal: %s. The table and the files of that step are from the last try.

			EOF
			;;
		esac
	done
	report_burst_sources "$steps"
	for n in $steps; do
		[ "${BURST_CELL[$n|penalty]:-}" -gt 0 ] 2>/dev/null &&
			printf 'At %s clients sshd dropped %s connection(s) for a penalty (`PerSourcePenalties`, OpenSSH 9.8 and later), not for `MaxStartups`: the lines are in `raw/burst-step-%s-server.log`.\n\n' \
				"$n" "${BURST_CELL[$n|penalty]:-}" "$n"
	done

	prose "${spec:-?}" "$start" "$start" "$rate" "$full" <<-'EOF'
	**What `MaxStartups %s` means:** sshd counts the connections that have not finished logging
	in yet (start:rate:full). While fewer than %s are pending, every new connection is accepted.
	With %s pending, a new one is refused with a probability of %s%%; the probability rises in a
	straight line to 100%% at %s pending. The expected numbers below assume that all clients
	arrive before any of them has logged in, as in this test.

	EOF
	printf '| Clients at once | Expected with this server (`%s`) | Measured here | Expected with `100:30:200` |\n|---:|---:|---:|---:|\n' "${spec:-?}"
	for n in $all; do
		measured="not run"
		[ -z "${BURST_CELL[$n|ok]:-}" ] || measured="${BURST_CELL[$n|ok]} of $n"
		printf '| %s | %s of %s | %s | %s of %s |\n' "$n" "${EXPECTED[$n]-}" "$n" \
			"$measured" "${RECOMMENDED[$n]-}" "$n"
	done
	rm -f "$model" "$rec"

	part body
	printf '\n**How to read this result:**\n\n'
	oks=""
	for n in $steps; do oks+="$n:${BURST_CELL[$n|ok]:-} "; done
	awk -v result="${D[burst|result]-}" -v start="$start" -v other="${D[burst|other_failures]-}" \
		-v oks="$oks" -v uncf="${D[burst|log_unconfirmed_steps]-}" -v target="${D[burst|target]-}" 'BEGIN {
		ns = split(oks, st, " "); first = 0
		for (i = 1; i <= ns; i++) {
			split(st[i], f, ":")
			if (f[2] != f[1] && (first == 0 || f[1] + 0 < first)) first = f[1] + 0
		}
		if (first == 0)
			printf "- Every step got in completely, up to %d clients at once: bursts of that size are safe with this setting.\n", result
		else if (first > start)

			printf "- All clients got in up to %d at once; the burst of %d lost clients. That is" \
				" MaxStartups doing its job (it protects sshd from floods), not a fault - but" \
				" automation that opens more than %d connections at once will see logins fail at" \
				" random.\n", result, first, start
		else

			printf "- Clients were lost already in the burst of %d, not more than the first" \
				" MaxStartups value (%d): something besides MaxStartups turns them away" \
				" (PerSourcePenalties on OpenSSH 9.8 and newer, a firewall rate limit, logins" \
				" still pending from earlier) or they failed under load.\n", first, start
		if (other + 0 > 0)
			printf "- %d client(s) failed for another reason than MaxStartups (see the message column of raw/burst-step-N.tsv): time-outs or errors under load are a real problem, unlike refusals.\n", other
		if (uncf != "")

			printf "- At %s clients the clients'"'"' own messages disagree with the server log" \
				" about who was refused; the log is taken (see raw/burst-step-N-class.tsv, one row" \
				" per client with both views).\n", uncf
		if (result + 0 < target + 0)
			printf "- The target is %d clients at once: raise the first MaxStartups value to at least that.\n", target
	}'

	part advice
	prose <<-'EOF'

	**What to set:** for hosts that automation or many users reach at the same moment (Ansible
	with `forks`, parallel ssh tools, jump hosts after an outage), set `MaxStartups` so that its
	first value is at least the number of clients that may arrive together, e.g. `MaxStartups
	100:30:200`; keep `LoginGraceTime` short (e.g. 30 s) so that stalled connections do not hold
	the slots. On the clients, `ConnectionAttempts 3` retries a refused connection, and re-using
	connections (ControlMaster) avoids most new logins. To measure another setting:
	`MAX_STARTUPS=100:30:200 ./start-ssh.sh && ./test-ssh.sh burst`.

	EOF
}
