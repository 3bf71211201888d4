# shellcheck shell=bash
# Rate and burst at a distance, and where MaxStartups begins to refuse
# there (docs/metrics.md, section 10, "MaxStartups at a distance").
# Called by lib/wire.sh (wire_run_distances) once per distance above 0,
# while that distance's wire is in place.
#
# sshd counts a connection against MaxStartups from its accept until it
# has authenticated, and writes the count into its listener's process
# title ("[listener] 3 of 10-100 startups"). sshperf-startups samples that
# title through each step. The count over time, divided by the logins
# that reached sshd, is the time each stayed unauthenticated (Little's
# law, read backwards); the arrival rate that keeps MaxStartups' start of
# them unauthenticated is start / that time. Each distance:
#   1. a rate step well below it (WIRE_LOAD_BASE_MAX logins/s at most,
#      a third of start in flight if each login stayed unauthenticated
#      as long as a whole login one after another takes at this
#      distance): the time unauthenticated, and the prediction;
#   2. a rate step above it (WIRE_LOAD_ABOVE times the prediction), when
#      that is within what the kit offers here (WIRE_LOAD_RATE_MAX);
#   3. bursts of the BURST_STEPS up to WIRE_LOAD_BURST_MAX clients.
# Every step counts the MaxStartups drops in sshd's own log. The clients
# are the real ssh, on the test host, across the wire. Nothing here
# changes the host: the steps run in the kit's namespaces. Steps 1 and 2
# run when the run selected rate or burst (both meet MaxStartups), step 3
# when it selected burst.
#
# raw/wire-load.tsv: one row per step; raw/wire-maxstartups.tsv: one row
# per distance (docs/data.md).

# shellcheck source=lib/maxstartups.sh
. "$KIT_DIR/lib/maxstartups.sh"

WIRE_LOAD_COLUMNS="rtt_ms test step clients offered_per_s achieved_per_s ok failed log_drops startups_max startups_p50 startups_mean auth_ms status note"
WIRE_MAXSTARTUPS_COLUMNS="rtt_ms max_startups begin auth_ms predicted_per_s below_per_s below_drops above_per_s above_drops outcome"

# The first step: at most this many logins/s, and an expected third of
# MaxStartups' start in flight (from a guess of 6 round trips and 50 ms
# per login before anything is measured).
WIRE_LOAD_BASE_MAX=${WIRE_LOAD_BASE_MAX:-4}
# The step above the prediction: this many times it ...
WIRE_LOAD_ABOVE=${WIRE_LOAD_ABOVE:-1.5}
# ... offered only up to this rate (logins/s): the real ssh clients and
# sshd share this machine, and beyond it the step would measure the
# machine, not MaxStartups.
WIRE_LOAD_RATE_MAX=${WIRE_LOAD_RATE_MAX:-30}
# A rate step lasts this long, longer at a low rate so that it has at
# least WIRE_LOAD_STEP_MIN_LOGINS logins.
WIRE_LOAD_STEP_SECONDS=${WIRE_LOAD_STEP_SECONDS:-4}
WIRE_LOAD_STEP_MIN_LOGINS=20
# The bursts at a distance: the BURST_STEPS up to this many clients.
WIRE_LOAD_BURST_MAX=${WIRE_LOAD_BURST_MAX:-20}
# The listener's title is read this often (ms).
WIRE_LOAD_SAMPLE_MS=10

# wire_load_ssh: the ssh command of the test host (array WIRE_LOAD_SSH),
# with the test host's options (lib/wire.sh, wire_ssh_opts).
wire_load_ssh () {
	local -a opts
	mapfile -t -d '' opts < <(wire_ssh_opts testhost)
	WIRE_LOAD_SSH=("$SSH" -F "$CLIENT_CONFIG" "${opts[@]}")
}

# wire_load_maxstartups: "SPEC start full" of the test server as it runs
# (sshd -T through lib/server.sh; MAX_STARTUPS when it says nothing).
wire_load_maxstartups () {
	local spec parsed start rate full
	spec=$(server_effective maxstartups | head -n 1)
	parsed=$(maxstartups_parse "$spec") || { spec=${SETTING[MAX_STARTUPS]}; parsed=$(maxstartups_parse "$spec"); } || return 1
	read -r start rate full <<<"$parsed"
	printf '%s %s %s\n' "$spec" "$start" "$full"
}

# wire_load_drops MARK: the connections sshd's log says it dropped for
# MaxStartups since MARK (server_log_mark) on the kit's end of the wire:
# its "drop connection #N from [A]:P on [WIRE]:PORT past MaxStartups"
# lines, and the N of "additional N connections dropped" (OpenSSH 10
# rate-limits the lines). The same lines burst_classify reads.
wire_load_drops () {
	{ server_log_since "$1" || :; } | awk -v on="on [$(wire_server_addr)]:${SETTING[TEST_PORT]} " '
		index($0, "drop connection #") && index($0, on) && tolower($0) ~ /maxstartups/ { n++ }
		(i = index($0, "logging rate-limited: additional ")) > 0 { n += substr($0, i + 33) + 0 }
		END { print n + 0 }'
}

# wire_load_track PIDS: the kit's processes of the step in progress, for
# lib/wire.sh's wire_clear_current to end at the run's exit or on a
# signal.
wire_load_track () {
	# shellcheck disable=SC2034 # lib/wire.sh's, read by wire_clear_current
	WIRE_PROBES=$1
}

# wire_load_sampler_start BASE: sshperf-startups on the listener, in the
# background (its pid in WIRE_LOAD_SAMPLER, its figures in
# BASE-startups.env, its samples in BASE-startups.tsv).
wire_load_sampler_start () {
	local pid
	pid=$(server_pid)
	WIRE_LOAD_SAMPLER=""
	[ -n "$pid" ] || return 1
	"$HELPER_DIR/sshperf-startups" -p "$pid" -i "$WIRE_LOAD_SAMPLE_MS" -t 3600 -o "$1-startups.tsv" \
		>"$1-startups.env" 2>"$1-startups.err" </dev/null 9>&- &
	WIRE_LOAD_SAMPLER=$!
}

# wire_load_sampler_stop: ends it (TERM: it prints its figures and exits).
wire_load_sampler_stop () {
	[ -n "$WIRE_LOAD_SAMPLER" ] || return 0
	kill -TERM "$WIRE_LOAD_SAMPLER" 2>/dev/null || true
	wait "$WIRE_LOAD_SAMPLER" 2>/dev/null || true
	WIRE_LOAD_SAMPLER=""
}

# wire_load_step_row BASE: the sampler's figures into WL_ROW, and the
# time unauthenticated per connection that reached sshd (auth_ms).
wire_load_step_row () {
	local reached
	WL_ROW[startups_max]=$(kv_get "$1-startups.env" startups_max)
	WL_ROW[startups_p50]=$(kv_get "$1-startups.env" startups_p50)
	WL_ROW[startups_mean]=$(kv_get "$1-startups.env" startups_mean)
	reached=$(( ${WL_ROW[ok]:-0} + ${WL_ROW[failed]:-0} - ${WL_ROW[log_drops]:-0} ))
	WL_ROW[auth_ms]=$(awk -v a="$(kv_get "$1-startups.env" startups_ms)" -v n="$reached" \
		'BEGIN { if (n > 0 && a != "" && a != "-") printf "%.1f", a / n; else print "-" }')
}

# wire_load_rate_step RTT STEP OFFERED: one open-loop step across the wire
# (sshperf-sweep, the real ssh, at OFFERED logins/s); its row in WL_ROW.
wire_load_rate_step () {
	local d=$1 step=$2 rate=$3 base="$RAW_DIR/wire-$1-rate-$2" mark seconds full rc=0
	WL_ROW=([rtt_ms]="$d" [test]=rate [step]="$step" [offered_per_s]="$rate")
	seconds=$(awk -v r="$rate" -v d="$WIRE_LOAD_STEP_SECONDS" -v n="$WIRE_LOAD_STEP_MIN_LOGINS" \
		'BEGIN { if (r > 0 && n / r > d) d = n / r; printf "%.2f", d }')
	# Logins in flight: up to MaxStartups' full, so that sshd, not the
	# driver, decides what is refused.
	read -r _ _ full <<<"$(wire_load_maxstartups)" || true
	mark=$(server_log_mark)
	wire_load_sampler_start "$base" || { WL_ROW[status]=ERROR WL_ROW[note]="the test server is not running"; return 1; }
	wire_load_ssh
	wire_load_track "$WIRE_LOAD_SAMPLER"
	wire_run testhost "$base-driver.env" "$base-errors.txt" -- "$HELPER_DIR/sshperf-sweep" -r "$rate" -d "$seconds" \
		-c "${full:-100}" -t "${SETTING[LOGIN_TIMEOUT]}" -g "$NO_ANSWER_STOP" -o "$base-logins.tsv" \
		-- "${WIRE_LOAD_SSH[@]}" "$HOST_ALIAS" true || rc=$?
	wire_load_sampler_stop
	wire_load_track ""
	WL_ROW[clients]=$(kv_get "$base-driver.env" logins)
	WL_ROW[achieved_per_s]=$(kv_get "$base-driver.env" achieved_per_s)
	WL_ROW[ok]=$(kv_get "$base-driver.env" ok)
	WL_ROW[failed]=$(kv_get "$base-driver.env" failed)
	WL_ROW[log_drops]=$(wire_load_drops "$mark")
	wire_load_step_row "$base"
	if [ -z "${WL_ROW[ok]}" ]; then
		WL_ROW[status]=ERROR
		WL_ROW[note]="sshperf-sweep exit $rc: $(tail -n 1 "$base-errors.txt" 2>/dev/null)"
		return 1
	fi
	WL_ROW[status]=ok
	return 0
}

# wire_load_burst_step RTT N: N real ssh clients on the test host,
# released at once (sshperf-burst and its gate, as the burst test does),
# from the test host's first source; its row in WL_ROW.
wire_load_burst_step () {
	local d=$1 n=$2 base="$RAW_DIR/wire-$1-burst-$2" mark rc=0 refused failed timeout
	WL_ROW=([rtt_ms]="$d" [test]=burst [step]="$n" [clients]="$n" [offered_per_s]=- [achieved_per_s]=-)
	mark=$(server_log_mark)
	wire_load_sampler_start "$base" || { WL_ROW[status]=ERROR WL_ROW[note]="the test server is not running"; return 1; }
	wire_load_ssh
	wire_load_track "$WIRE_LOAD_SAMPLER"
	wire_run testhost "$base.tsv" "$base.err" -- "$HELPER_DIR/sshperf-burst" -H -n "$n" -g "$HELPER_DIR/sshperf-gate" \
		-S "$(wire_client_addr)" -s "$base.env" -w 60 -t "$((SETTING[LOGIN_TIMEOUT] + n / 2))" \
		-- "${WIRE_LOAD_SSH[@]}" "$HOST_ALIAS" true || rc=$?
	wire_load_sampler_stop
	wire_load_track ""
	WL_ROW[ok]=$(kv_get "$base.env" ok)
	refused=$(kv_get "$base.env" refused) failed=$(kv_get "$base.env" failed) timeout=$(kv_get "$base.env" timeout)
	WL_ROW[failed]=$(( ${refused:-0} + ${failed:-0} + ${timeout:-0} ))
	WL_ROW[log_drops]=$(wire_load_drops "$mark")
	wire_load_step_row "$base"
	if [ -z "${WL_ROW[ok]}" ]; then
		WL_ROW[status]=ERROR
		WL_ROW[failed]=-
		WL_ROW[note]="sshperf-burst exit $rc: $(tail -n 1 "$base.err" 2>/dev/null)"
		return 1
	fi
	WL_ROW[status]=ok
	return 0
}

# wire_load_write ROW_ARRAY: the row, appended to raw/wire-load.tsv (its
# header first, when the run has none yet).
wire_load_write () {
	local table="$RAW_DIR/wire-load.tsv"
	[ -f "$table" ] || tsv_header "$WIRE_LOAD_COLUMNS" >"$table"
	tsv_row WL_ROW "$WIRE_LOAD_COLUMNS" >>"$table"
}

# wire_load_bursts RTT: the bursts at this distance, a row each.
wire_load_bursts () {
	local n
	local -A WL_ROW
	for n in ${SETTING[BURST_STEPS]}; do
		[ "$n" -le "$WIRE_LOAD_BURST_MAX" ] || continue
		progress "distance $1 ms: burst, $n ssh clients from the test host released at once"
		wire_load_burst_step "$1" "$n" || true
		wire_load_write
	done
}

# wire_load_wanted NEED: true when a test the run selected (test-ssh.sh's
# list) has NEED in its registry line (lib/metrics.tab).
wire_load_wanted () {
	local name
	for name in ${selected:-}; do
		! metric_needs "$name" "$1" || return 0
	done
	return 1
}

# wire_load_run RTT [LOGIN_MS]: the steps at this distance (the wire in
# place; LOGIN_MS the p50 of the logins one after another there), their
# rows, and the distance's row of raw/wire-maxstartups.tsv; the rate steps
# and the prediction when the run selected rate or burst, the bursts when
# it selected burst.
wire_load_run () {
	local d=$1 spec begin full base_rate above table="$RAW_DIR/wire-maxstartups.tsv" want_burst=""
	local -A WL_ROW ms
	# Only for the tests the run selected (test-ssh.sh's list) whose
	# registry line asks for it: the rate steps and the prediction for
	# distance-rate (rate and burst both meet MaxStartups), the bursts
	# for distance-burst.
	wire_load_wanted distance-rate || return 0
	! wire_load_wanted distance-burst || want_burst=yes
	read -r spec begin full <<<"$(wire_load_maxstartups)" || true
	[ -f "$table" ] || tsv_header "$WIRE_MAXSTARTUPS_COLUMNS" >"$table"
	ms=([rtt_ms]="$d" [max_startups]="${spec:--}" [begin]="${begin:--}")
	if [ -z "$begin" ]; then
		ms[outcome]="MaxStartups of the test server not known"
		tsv_row ms "$WIRE_MAXSTARTUPS_COLUMNS" >>"$table"
		return 0
	fi
	# A third of start in flight if each login stayed unauthenticated as
	# long as a whole login one after another took here (LOGIN_MS, more
	# than its unauthenticated part), or else 6 round trips and 50 ms.
	base_rate=$(awk -v b="$begin" -v d="$d" -v l="${2:-}" -v m="$WIRE_LOAD_BASE_MAX" 'BEGIN {
		t = (l + 0 > 0) ? l + 0 : 6 * d + 50
		r = b / (3 * t / 1000); if (r > m) r = m; if (r < 0.5) r = 0.5; printf "%.2f", r }')
	progress "distance $d ms: rate, $base_rate logins/s offered from the test host (well below MaxStartups $spec), the listener's unauthenticated count sampled"
	wire_load_rate_step "$d" 1 "$base_rate" || true
	wire_load_write
	ms[below_per_s]=${WL_ROW[achieved_per_s]:--}
	ms[below_drops]=${WL_ROW[log_drops]:--}
	ms[auth_ms]=${WL_ROW[auth_ms]:--}
	ms[predicted_per_s]=$(awk -v b="$begin" -v a="${ms[auth_ms]}" 'BEGIN { if (a + 0 > 0) printf "%.1f", b * 1000 / a; else print "-" }')
	above=$(awk -v p="${ms[predicted_per_s]}" -v k="$WIRE_LOAD_ABOVE" 'BEGIN { if (p + 0 > 0) printf "%.2f", p * k; else print "-" }')
	if [ "$above" = - ]; then
		ms[above_per_s]=- ms[above_drops]=-
		ms[outcome]="no prediction: the first step measured no time unauthenticated (${WL_ROW[note]:-no login reached sshd})"
	elif awk -v a="$above" -v m="$WIRE_LOAD_RATE_MAX" 'BEGIN { exit !(a > m) }'; then
		ms[above_per_s]=- ms[above_drops]=-
		ms[outcome]="above not offered: $WIRE_LOAD_ABOVE times the prediction is $above logins/s, more than the $WIRE_LOAD_RATE_MAX the kit offers at a distance on one machine"
	else
		progress "distance $d ms: rate, $above logins/s offered ($WIRE_LOAD_ABOVE times the ${ms[predicted_per_s]} logins/s that keep $begin unauthenticated)"
		wire_load_rate_step "$d" 2 "$above" || true
		wire_load_write
		ms[above_per_s]=${WL_ROW[offered_per_s]}
		ms[above_drops]=${WL_ROW[log_drops]:--}
	fi
	if [ -z "${ms[outcome]:-}" ] && ! awk -v b="${ms[below_per_s]}" -v p="${ms[predicted_per_s]}" 'BEGIN { exit !(b + 0 < p + 0) }'; then
		ms[outcome]="not confirmed: the slow step (${ms[below_per_s]} logins/s) was not below the prediction"
	fi
	if [ -z "${ms[outcome]:-}" ]; then
		if [ "${ms[below_drops]}" = 0 ] && [ "${ms[above_drops]:-0}" != 0 ] && [ "${ms[above_drops]}" != - ]; then
			ms[outcome]=confirmed
		else
			ms[outcome]="not confirmed: ${ms[below_drops]} drops below, ${ms[above_drops]} above"
		fi
	fi
	tsv_row ms "$WIRE_MAXSTARTUPS_COLUMNS" >>"$table"
	[ -z "$want_burst" ] || wire_load_bursts "$d"
	progress "distance $d ms: ${ms[auth_ms]} ms unauthenticated per login; ${ms[predicted_per_s]} logins/s keep $begin connections unauthenticated: MaxStartups $spec begins to refuse (drops at ${ms[below_per_s]}/s: ${ms[below_drops]}, at ${ms[above_per_s]}/s: ${ms[above_drops]}; ${ms[outcome]})"
}
