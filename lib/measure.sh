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
# when not PASS); warning when the report should say something. The
# verdict functions below write them; the renderer reads the rest.

# A test stops waiting once this many logins (sessions, commands) in a row
# got no answer within LOGIN_TIMEOUT: the server does not answer, and the
# rest would only wait for their own deadlines (helpers' -g option).
# shellcheck disable=SC2034 # used by the metric scripts and lib/hold.sh
NO_ANSWER_STOP=3

# result_set TEST KEY VALUE: one key=value in the test's data file
# (appended; the last value of a key wins, lib/kv.sh).
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
# four, in this order:
#   result_verdict TEST FIGURE OP TARGET UNIT LABEL [REASON]
#       figure (- when FIGURE is empty), unit, figure_label, target,
#       target_op, and status: PASS when FIGURE OP TARGET holds (OP is <=
#       or >=), else FAIL, with REASON as the reason when one is given.
#   result_status TEST STATUS [REASON]
#       what decides instead of the figure (a failed login, a server
#       that did not answer): the status, and the reason when given.
#   result_fail TEST REASON
#       a second target missed: FAIL, REASON added to a reason already
#       recorded ("first; second").
#   result_warn TEST TEXT
#       a warning for the report, added to one already recorded.
# A later call wins over an earlier one (the last value of a key wins).
result_verdict () {
	local test=$1 figure=$2 op=$3 target=$4 status
	result_set "$test" figure "${figure:--}"
	result_set "$test" unit "$5"
	result_set "$test" figure_label "$6"
	result_set "$test" target "$target"
	result_set "$test" target_op "$op"
	status=$(verdict "$figure" "$op" "$target")
	result_set "$test" status "$status"
	[ "$status" = PASS ] || [ $# -lt 7 ] || result_set "$test" reason "$7"
}

result_status () {
	result_set "$1" status "$2"
	[ $# -lt 3 ] || result_set "$1" reason "$3"
}

result_fail () {
	local earlier
	earlier=$(result_get "$1" reason)
	result_status "$1" FAIL "${earlier:+$earlier; }$2"
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
