# shellcheck shell=bash
# What every metric script (lib/metrics/NAME.sh) uses to record its result.
#
# A metric script defines two functions:
#   about_NAME    one line: what the test does and how long it takes
#   measure_NAME  runs the test: raw samples to $RAW_DIR/NAME-*.tsv, figures
#                 and the verdict to $DATA_DIR/NAME.env through result_set
# Keys every test sets: status (PASS FAIL SKIPPED ERROR INCONCLUSIVE, and
# INTERRUPTED from test-ssh.sh), figure, unit, figure_label, target,
# target_op (<= or >=), summary (one line for the console), reason (why,
# when not PASS: what was seen, the numbers), action (what the reader
# should do about it: accept it and why, change which setting, or rerun
# with which option; the report prints it before the reason); warning
# when the report should say something. The verdict functions below
# write them; the renderer reads the rest.

# shellcheck source=lib/stats.sh
. "${BASH_SOURCE[0]%/*}/stats.sh"

# A test stops waiting once this many logins (sessions, commands) in a row
# got no answer within LOGIN_TIMEOUT: the server does not answer, and the
# rest would only wait for their own deadlines (helpers' -g option).
# shellcheck disable=SC2034 # used by the metric scripts and lib/open-sessions.sh
NO_ANSWER_STOP=3

# result_set TEST KEY VALUE: one key=value in the test's data file
# (appended; the last value of a key wins, lib/data.sh).
result_set () {
	kv_set "$DATA_DIR/$1.env" "$2" "$3"
}

result_get () {
	kv_get "$DATA_DIR/$1.env" "$2"
}

# result_or_dash TEST KEY: the value, or "-" when there is none.
result_or_dash () {
	local v
	v=$(result_get "$1" "$2")
	printf '%s' "${v:--}"
}

# result_import TEST FILE: append key=value lines made by a helper.
result_import () {
	cat "$2" >>"$DATA_DIR/$1.env"
}

# The verdict. A test records its main figure and its status with these
# four, in this order. Every status that is not PASS gets an ACTION
# with its REASON: what to do first (accept it and why, change which
# setting, rerun with which option), in a sentence that starts with the
# verb ("Rerun with LOGIN_SAMPLES=120 ...", "Raise MaxStartups ..."),
# then the reason with the numbers:
#   result_verdict TEST FIGURE OP TARGET UNIT LABEL [REASON [ACTION]]
#       figure (- when FIGURE is empty), unit, figure_label, target,
#       target_op, and status: PASS when FIGURE OP TARGET holds (OP is <=
#       or >=), else FAIL, with REASON as the reason and ACTION as the
#       action when given. INCONCLUSIVE for noise gets noise_action.
#   result_status TEST STATUS [REASON [ACTION]]
#       what decides instead of the figure (a failed login, a server
#       that did not answer): the status, the reason and the action.
#   result_fail TEST REASON [ACTION]
#       a second target missed: FAIL, REASON added to a reason already
#       recorded ("first; second"), ACTION to the action the same way.
#   result_warn TEST TEXT
#       a warning for the report, added to one already recorded.
#   result_second TEST OP TARGET FIGURE LO HI WHAT REASON [ACTION [NOISE_ACTION]]
#       a second target (a figure of the test other than the headline,
#       with a target of its own), after result_verdict: judged on its
#       interval LO-HI as the headline is when it has one (- for a bound
#       not known, both - for none), else on FIGURE. On the bad side:
#       result_fail with REASON. Holding the target or within its
#       margin (below): a PASS becomes INCONCLUSIVE ("WHAT: within the
#       noise of the target (interval LO-HI, target T)", or "run-to-run
#       noise") with NOISE_ACTION (else noise_action) as its action, an
#       INCONCLUSIVE gets both added; a FAIL stays.
# A later call wins over an earlier one (the last value of a key wins).
#
# With an interval recorded first (result_interval), result_verdict
# judges the interval, not the figure alone: PASS when all of it is on
# the good side of the target, FAIL when all of it is on the bad side,
# INCONCLUSIVE ("within the noise of the target") when it holds the
# target; a missing bound reaches to the end of the scale. The interval
# says how sure one run is of its own figure, not where the next run
# lands: identical runs move by a few percent between them (make
# stability). So one run decides only when its interval is also clear of
# the target by VERDICT_MARGIN_PCT of it (verdict_margin); an interval
# on one side of the target but within that margin is INCONCLUSIVE ("within
# the run-to-run noise of the target"), and the rounds of REPEAT judge
# their median without the margin (lib/rounds.sh): the rounds hold the
# run-to-run noise themselves.
result_verdict () {
	local test=$1 figure=$2 op=$3 target=$4 status lo hi
	result_set "$test" figure "${figure:--}"
	result_set "$test" unit "$5"
	result_set "$test" figure_label "$6"
	result_set "$test" target "$target"
	result_set "$test" target_op "$op"
	lo=$(result_or_dash "$test" figure_lo)
	hi=$(result_or_dash "$test" figure_hi)
	# A model's range says what to expect, not how sure the figure is.
	if [ -z "$figure" ] || [ "$figure" = - ] || { [ "$lo" = - ] && [ "$hi" = - ]; } ||
		[ "$(result_get "$test" figure_method)" = model ]; then
		status=$(verdict "$figure" "$op" "$target")
	else
		status=$(interval_verdict "$lo" "$hi" "$op" "$target" "$(verdict_margin)")
	fi
	case $status in
	HOLDS | NEAR)
		result_set "$test" status INCONCLUSIVE
		result_set "$test" reason "$(noise_reason "$status" "$lo" "$hi" "$target" "$5")"
		result_set "$test" action "$(noise_action)"
		return 0
		;;
	esac
	result_set "$test" status "$status"
	if [ "$status" = PASS ]; then
		result_action_clear "$test"
	else
		[ $# -lt 7 ] || result_set "$test" reason "$7"
		[ $# -lt 8 ] || result_set "$test" action "$8"
	fi
}

# result_action_clear TEST: no action (a PASS after an earlier status),
# written only when one was recorded, so a PASS has no action key.
result_action_clear () {
	[ -z "$(result_get "$1" action)" ] || result_set "$1" action ""
}

# noise_action [SETTING N]: the action of an INCONCLUSIVE for noise:
# rerun with SETTING=N when that decides it, else with REPEAT; or accept
# it, since the figure sits on the target within what one run can tell.
noise_action () {
	if [ -n "${2:-}" ]; then
		printf 'Rerun with %s=%s to decide it, or accept the figure as on the target: one run cannot tell it from the target' "$1" "$2"
	else
		printf 'Rerun with REPEAT=6 to judge the median of 6 runs, or accept the figure as on the target: one run cannot tell it from the target'
	fi
}

# The interval of the headline figure (docs/data.md, "The headline
# figure, its interval, its parts, its repeats"); before result_verdict.
#   result_interval TEST LO HI N METHOD [SAMPLES [NOTE]]
#       figure_lo, figure_hi (- when not known), figure_n, figure_method
#       (order chunks windows steps model repeat), figure_samples
#       ("raw/FILE.tsv COLUMN", - for none) and figure_interval_note.
#   result_interval_chunks TEST FILE [FILE2]
#       a transfer's rate from its parts (sshperf-xfer -k), below.
#   result_interval_order TEST FILE COLUMN PCT
#       the order-statistic interval of the PCT percentile of COLUMN of
#       the raw table FILE (rows with status ok when it has that column),
#       from sshperf-rank interval; says when n is too small for a bound.
#   result_interval_holds TEST OP TARGET
#       true when the recorded interval holds the target: more samples
#       would help (the staged tests take them, fixed stages, a cap).
#   result_noise_hint TEST SETTING N
#       an INCONCLUSIVE for noise gets "; SETTING=N would decide it", or
#       with N empty (the figure itself within the margin, noise_samples)
#       that REPEAT would judge the median of runs instead; so too, with
#       N named, when N is more than NOISE_HINT_CAP times the setting.
result_interval () {
	result_set "$1" figure_lo "${2:--}"
	result_set "$1" figure_hi "${3:--}"
	result_set "$1" figure_n "${4:-0}"
	result_set "$1" figure_method "$5"
	[ -z "${6:-}" ] || [ "$6" = - ] || result_set "$1" figure_samples "$6"
	[ -z "${7:-}" ] || result_set "$1" figure_interval_note "$7"
}

result_interval_order () {
	local test=$1 file=$2 col=$3 pct=$4 out n lo hi note="" need
	if tsv_select "$file" status >/dev/null 2>&1; then
		out=$(tsv_select "$file" "$col" status | awk -F'\t' '$2 == "ok" { print $1 }' | stats_rank interval)
	else
		out=$(tsv_select "$file" "$col" | stats_rank interval)
	fi || out=""
	n=$(printf '%s\n' "$out" | sed -n 's/^n=//p')
	lo=$(printf '%s\n' "$out" | sed -n "s/^p${pct}_lo=//p")
	hi=$(printf '%s\n' "$out" | sed -n "s/^p${pct}_hi=//p")
	if [ -z "$hi" ] || [ -z "$lo" ]; then
		# The fewest samples that give both bounds at 95 % (sshperf-rank
		# plan's need: the outer order statistics, X(1) and X(n), are
		# then at least that sure).
		need=$(stats_rank plan 1 "$pct" | sed -n 's/^need=//p')
		note="${n:-0} samples are too few for a 95 % $([ -z "$hi" ] && echo upper || echo lower) bound of the p$pct (it needs at least $need)"
	fi
	result_interval "$test" "${lo:--}" "${hi:--}" "${n:-0}" order "raw/$(basename "$file") $col" "$note"
}

# result_interval_chunks TEST FILE [FILE2]: the interval of a rate from
# the parts of one transfer (sshperf-xfer -k output in FILE): the t
# interval of the time per MB over the parts (sshperf-rank rate), as
# MB/s; the parts add up to the whole transfer, so it is the interval of
# its rate. With FILE2 (the other direction), that of the slower of the
# two (interval_lower).
result_interval_chunks () {
	local test=$1 f n=0 lo hi out k lo2 hi2 note=""
	shift
	for f in "$@"; do
		out=$(paste -d' ' <(kv_get "$f" chunk_bytes | tr ',' '\n') <(kv_get "$f" chunk_seconds | tr ',' '\n') |
			awk 'NF == 2 && $2 > 0 { print $1 / 1e6, $2 }' | stats_rank rate) || out=""
		k=$(printf '%s\n' "$out" | sed -n 's/^n=//p')
		lo2=$(printf '%s\n' "$out" | sed -n 's/^rate_lo=//p')
		hi2=$(printf '%s\n' "$out" | sed -n 's/^rate_hi=//p')
		[ -n "$lo2" ] || { result_interval "$test" - - 0 chunks - "the transfer was not timed in parts: no interval"; return 0; }
		if [ "$f" = "$1" ]; then
			lo=$lo2 hi=${hi2:--} n=${k:-0}
		else
			read -r lo hi <<<"$(interval_lower "$lo" "$hi" "$lo2" "${hi2:--}")"
			[ "${k:-0}" -ge "$n" ] || n=$k
		fi
	done
	[ $# -lt 2 ] || note=" in each direction; the lower of the two directions' bounds (the figure is the slower direction)"
	result_interval "$test" "$lo" "$hi" "$n" chunks - \
		"the transfer timed in $n parts$note: the 95 % t interval of the time per MB over the parts, as MB/s; it says how steady the transfer was in this run, not how the next run will do$([ "$hi" != - ] || echo "; too few parts for an upper bound")"
}

# interval_lower LO1 HI1 LO2 HI2: "LO HI", the interval of the lower of
# two figures from theirs (- for a bound not known: the end of the
# scale): the lower of the two lower bounds and of the two upper ones.
interval_lower () {
	awk -v l1="$1" -v h1="$2" -v l2="$3" -v h2="$4" 'BEGIN {
		if (l1 == "-" || l2 == "-") lo = "-"; else lo = (l1 + 0 < l2 + 0) ? l1 : l2
		if (h1 == "-") hi = h2; else if (h2 == "-") hi = h1; else hi = (h1 + 0 < h2 + 0) ? h1 : h2
		print lo, hi }'
}

result_interval_holds () {
	[ "$(interval_verdict "$(result_or_dash "$1" figure_lo)" "$(result_or_dash "$1" figure_hi)" "$2" "$3")" = HOLDS ]
}

# The most times a setting result_noise_hint proposes: a login test
# INCONCLUSIVE at 0.4 % from its target asked for LOGIN_SAMPLES=15007 (an
# hour of logins), sftp for a 70 GB file (SFTP_FILE_MB=70196, twice that
# free in the home); past this, runs (REPEAT) are the way.
NOISE_HINT_CAP=10

result_noise_hint () {
	local reason now=""
	if declare -p SETTING >/dev/null 2>&1; then now=${SETTING[$2]:-}; fi
	case $now in '' | *[!0-9]* | 0) now="" ;; esac
	[ "$(result_get "$1" status)" = INCONCLUSIVE ] || return 0
	reason=$(result_get "$1" reason)
	case $reason in "within the noise of the target"* | "within the run-to-run noise of the target"*) ;; *) return 0 ;; esac
	if [ -n "${3:-}" ] && [ -n "$now" ] && [ "$3" -gt $((NOISE_HINT_CAP * now)) ]; then
		result_set "$1" reason "$reason; $2=$3 would be needed to decide it, $(($3 / now)) times the setting, more than one run should take: $(repeat_hint)"
		result_set "$1" action "$(noise_action)"
	elif [ -n "${3:-}" ]; then
		result_set "$1" reason "$reason; $2=$3 would decide it"
		result_set "$1" action "$(noise_action "$2" "$3")"
	else
		result_set "$1" reason "$reason; $(repeat_hint)"
		result_set "$1" action "$(noise_action)"
	fi
}

# verdict_margin: VERDICT_MARGIN_PCT, the share of a target that one
# run's interval must also clear to decide (above); 0 without settings.
verdict_margin () {
	local m=0
	if declare -p SETTING >/dev/null 2>&1; then m=${SETTING[VERDICT_MARGIN_PCT]:-0}; fi
	printf '%s' "$m"
}

# repeat_hint: what decides a figure that one run cannot: the median of
# repeated runs, judged on its interval without the margin (lib/rounds.sh
# needs 6 rounds for one).
repeat_hint () {
	printf 'REPEAT=6 would judge the median of 6 runs instead'
}

# noise_reason HOLDS|NEAR LO HI TARGET [UNIT]: the reason of an INCONCLUSIVE
# verdict on an interval: it holds the target, or it is on one side but
# within VERDICT_MARGIN_PCT of it.
noise_reason () {
	local lo=$2 hi=$3
	# The bounds of a headline (UNIT given) with the digits its interval
	# supports, as the report prints them beside the figure; a second
	# figure's (result_second) in tenths (fig, lib/units.sh).
	if [ "$lo" != - ] && [ "$hi" != - ]; then
		if [ -n "${5:-}" ]; then
			fig lo "$5" "$2" "$2" "$3"
			fig hi "$5" "$3" "$2" "$3"
		else
			fig lo "" "$2"
			fig hi "" "$3"
		fi
	fi
	[ "$lo" != - ] || lo="no lower bound"
	[ "$hi" != - ] || hi="no upper bound"
	if [ "$1" = HOLDS ]; then
		printf 'within the noise of the target (interval %s-%s, target %s)' "$lo" "$hi" "$4"
	else
		awk -v lo="$lo" -v hi="$hi" -v t="$4" -v m="$(verdict_margin)" 'BEGIN {
			printf "within the run-to-run noise of the target (interval %s-%s, target %s: one run decides only when its interval is also %s %% clear of the target, %.4g-%.4g, VERDICT_MARGIN_PCT)", \
				lo, hi, t, m, t * (1 - m / 100), t * (1 + m / 100) }'
	fi
}

# stage_plan BASE PCT: the sample counts of the stages, fixed before the
# test starts: BASE; then twice BASE, or the fewest samples that give
# both 95 % bounds of the PCT percentile when that is more; then four
# times BASE, the cap (sshperf-rank plan, from the same order-statistic
# ranks as the interval). Each later stage is taken only while the
# interval holds the target.
stage_plan () {
	stats_rank plan "$1" "$2" | sed -n 's/^stages=//p'
}

# noise_samples N LO HI FIGURE TARGET [MARGIN]: how many samples would
# likely decide a verdict whose interval (from N samples) holds the
# target or its margin (MARGIN %, default verdict_margin): the interval
# narrows as 1/sqrt(n), so until its half-width is below the figure's
# distance to the edge of the margin; at least 2N, 4N with a bound
# missing. Nothing when the figure itself is within the margin: no number
# of samples in one run decides it (repeat_hint).
noise_samples () {
	awk -v n="$1" -v lo="$2" -v hi="$3" -v f="$4" -v t="$5" -v margin="${6:-$(verdict_margin)}" 'BEGIN {
		d = f - t; if (d < 0) d = -d
		if (margin > 0) { d -= t * margin / 100; if (d <= 0) exit }
		if (lo == "-" || hi == "-" || d == 0) { print 4 * n; exit }
		w = (hi - lo) / 2; m = n * (w / d) * (w / d) * 1.2
		m = (m == int(m)) ? m : int(m) + 1
		print (m < 2 * n) ? 2 * n : m }'
}

result_second () {
	local test=$1 op=$2 target=$3 figure=$4 lo=$5 hi=$6 what=$7 status text act
	if [ "$lo" = - ] && [ "$hi" = - ]; then
		status=$(verdict "$figure" "$op" "$target")
	else
		status=$(interval_verdict "$lo" "$hi" "$op" "$target" "$(verdict_margin)")
	fi
	case $status in
	FAIL) result_fail "$test" "$8" "${9:-}" ;;
	HOLDS | NEAR)
		text="$what: $(noise_reason "$status" "$lo" "$hi" "$target")"
		act=${10:-$(noise_action)}
		case $(result_get "$test" status) in
		PASS) result_status "$test" INCONCLUSIVE "$text" "$act" ;;
		INCONCLUSIVE) result_set "$test" reason "$(result_get "$test" reason); $text"
			result_set "$test" action "$(result_get "$test" action); $act" ;;
		esac
		;;
	esac
}

result_status () {
	result_set "$1" status "$2"
	[ $# -lt 3 ] || result_set "$1" reason "$3"
	if [ $# -ge 4 ] && [ "$2" != PASS ]; then result_set "$1" action "$4"
	else result_action_clear "$1"
	fi
}

result_fail () {
	local earlier act
	earlier=$(result_get "$1" reason)
	act=$(result_get "$1" action)
	# The first failure's action leads; a failure after an INCONCLUSIVE
	# puts its own before the noise's.
	if [ -n "${3:-}" ]; then
		if [ "$(result_get "$1" status)" = FAIL ]; then act="${act:+$act; }$3"; else act="$3${act:+; $act}"; fi
	fi
	result_status "$1" FAIL "${earlier:+$earlier; }$2" "$act"
}

result_warn () {
	local earlier
	earlier=$(result_get "$1" warning)
	result_set "$1" warning "${earlier:+$earlier; }$2"
}

# verdict VALUE OP TARGET -> PASS or FAIL (OP is <= or >=).
verdict () {
	awk -v v="$1" -v op="$2" -v t="$3" 'BEGIN {
		if (v == "" || v == "-") { print "FAIL"; exit }
		ok = (op == "<=") ? (v + 0 <= t + 0) : (v + 0 >= t + 0)
		print ok ? "PASS" : "FAIL" }'
}

# interval_verdict LO HI OP TARGET [MARGIN] -> PASS, FAIL, HOLDS (the
# interval holds the target) or NEAR (it does not, but it reaches within
# MARGIN % of the target, default 0: never). A bound "-" reaches to the
# end of the scale. For <= PASS needs HI <= TARGET less the margin and
# FAIL LO > TARGET plus the margin; for >= the mirror.
interval_verdict () {
	awk -v lo="$1" -v hi="$2" -v op="$3" -v t="$4" -v m="${5:-0}" 'BEGIN {
		down = t * (1 - m / 100); up = t * (1 + m / 100)
		known_lo = lo != "-" && lo != ""; known_hi = hi != "-" && hi != ""
		if (op == "<=") {
			if (known_hi && hi + 0 <= down) print "PASS"
			else if (known_lo && lo + 0 > up) print "FAIL"
			else if ((known_hi && hi + 0 <= t + 0) || (known_lo && lo + 0 > t + 0)) print "NEAR"
			else print "HOLDS"
		} else {
			if (known_lo && lo + 0 >= up) print "PASS"
			else if (known_hi && hi + 0 < down) print "FAIL"
			else if ((known_lo && lo + 0 >= t + 0) || (known_hi && hi + 0 < t + 0)) print "NEAR"
			else print "HOLDS"
		} }'
}

# Progress on the console (not with -q): a test's start and end line.
progress () {
	[ -n "${QUIET:-}" ] || printf '%s: %s\n' "$PROG" "$*"
}

# A step inside a long test (a burst step, a cipher, a round): shown only
# on a terminal, so logs and pipes get the start and end lines alone.
progress_step () {
	[ -t 1 ] || return 0
	progress "$@"
}
