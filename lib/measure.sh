# shellcheck shell=bash
# What every metric script (lib/metrics/NAME.sh) uses to record its result.
#
# A metric script defines two functions:
#   about_NAME    one line: what the test does and how long it takes
#   measure_NAME  runs the test: raw samples to $RAW_DIR/NAME-*.tsv, figures
#                 and the verdict to $DATA_DIR/NAME.env through result_set
# Keys every test sets: status (PASS FAIL INCONCLUSIVE SKIPPED ERROR, or
# INTERRUPTED, which test-ssh.sh sets; docs/metrics.md "Verdicts"),
# figure, unit, figure_label, target, target_op (<= or >=), summary (one
# line for the console), reason (why, when not PASS). The renderer reads
# the rest.

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
