#!/usr/bin/env bash
# run.sh timeout: 1800
# --compare finds real changes and calls identical setups unchanged, on
# the real test server (one pair each; the 5-in-5 repetition is make
# stability, tests/bench/stability.sh STABILITY_REAL=1):
# - a 300 ms sleep in sshd's AuthorizedKeysCommand (tests/lib/delay.sh,
#   once per login) against the same program sleeping 0 ms: login
#   significantly worse where the runs' interval can show it (sees), and
#   every login of the delayed run spends at
#   least the 300 ms in its authentication phase (by construction). A
#   change is significant when all of its interval is past 10 % of the
#   median; on a loaded CI machine a login takes 300-600 ms, and 50 ms
#   (the bench's) is too close to that edge for one pair. Between runs
#   of one setup sshd's part over the client's must move past 10 % too
#   (lib/compare/whose.sh judge_whose): CI saw a 150 ms sleep cleared as the
#   machine's doing when the client was slower in the delayed run (that
#   part +9.4 %, 95 % -2.5 to +21.2 %, sshd's part 2.7 times the
#   client's), so the sleep is twice that. The
#   shift between two runs is not the code's to bound: the sleep can
#   overlap the client's delayed-ACK wait, and the load can change
#   between the runs (+35.8 ms was seen on a fresh machine whose load
#   fell during the pair), so the 50 ms sleep and its 50-100 ms band of
#   issue 27 are measured by tests/bench/real-changes.sh, 5 pairs, not
#   asserted here;
# - MaxStartups 100:30:200 against the default 10:30:100: burst
#   significantly better (where burst gives an interval);
# - two runs of the default setup, and two of the delayed one: --compare
#   answers by its rule (significant only with p < 0.05 and all of the
#   shift's interval past the threshold and the floor), checked from the
#   decisions it writes beside its report (compare-A.tsv, docs/data.md),
#   never from its words, and
#   a run against itself is no change. How often two identical runs are
#   called unchanged is a rate, not a property of one pair: the rule
#   allows 5 % by design, and between-run drift on a VM adds to it (91.7 %
#   "no significant change" in make stability's last 5 runs, its
#   criterion 2). A test that asserted it of one pair failed CI on the
#   delayed pair; the rate is make stability's to measure.
# Also REPEAT=2: the run's figure is the median of its rounds.
. "$(dirname "$0")/lib/harness.sh"
. "$TEST_DIR/lib/snapshot.sh"
. "$TEST_DIR/lib/delay.sh"
# shellcheck source=lib/data.sh
. "$KIT_DIR/lib/data.sh"

export RESULTS_DIR="$TEST_TMP/results" LOGIN_SAMPLES=20 BURST_STEPS="10 20 40" TARGET_BURST_MIN=10
mkdir -p "$RESULTS_DIR"

host_kit_test '--compare of real changes'
test_atexit '"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null 2>&1'
host_snapshot_save
delay_fixture_or_stop

# kit_run NAME TEST...: a run of TEST...; its folder in $TEST_TMP/NAME.
kit_run () {
	local name=$1 rc=0
	shift
	"$KIT_DIR/test-ssh.sh" -q "$@" >"$TEST_TMP/$name.out" 2>&1 || rc=$?
	dirname "$(tail -n 1 "$TEST_TMP/$name.out")" >"$TEST_TMP/$name"
	if test_verdict_exit "$rc" "$TEST_TMP/$name.out" && [ -f "$(cat "$TEST_TMP/$name")/report.md" ]; then
		return 0
	fi
	echo "test-ssh.sh $* exited $rc:"
	tail -n 5 "$TEST_TMP/$name.out"
	return 1
}

# decided A B TEST: TEST's decision in --compare A B, from the table of
# decisions it writes beside its markdown (compare-A.tsv, docs/data.md),
# as key=value lines by the header's names; the markdown's Significant
# cell of TEST last, as cell=, for the log.
decided () {
	local out
	out=$("$KIT_DIR/test-ssh.sh" --compare "$(cat "$TEST_TMP/$1")" "$(cat "$TEST_TMP/$2")") || return 1
	awk -F'\t' -v t="$3" 'NR == 1 { for (i = 1; i <= NF; i++) h[i] = $i; next }
		$1 == t { for (i = 1; i <= NF; i++) print h[i] "=" $i }' "${out%.md}.tsv"
	awk -F' [|] ' -v t="| \`$3\`" 'index($0, t) == 1 { print "cell=" $6 }' "$out"
}

# key DECISION KEY: KEY's value in a decision of decided.
key () {
	printf '%s\n' "$1" | sed -n "s/^$2=//p"
}

# is DECISION KEY VALUE: KEY is VALUE, else the decision as it was.
is () {
	[ "$(key "$1" "$2")" = "$3" ] && return 0
	echo "expected $2=$3 in the decision:"
	printf '%s\n' "$1" | sed 's/^/  /'
	return 1
}

# by_rule DECISION: a rank-test decision answers as its own numbers say,
# each recomputed here from the shift's interval and the medians, never
# from words: the whole logins are significant exactly when p < 0.05 and
# the near end of the shift's 95 % interval is at least the threshold (%
# of A's median) and, for a time, the floor; the word is then "worse"
# for a longer time (rule rank). Between runs of one setup sshd's part of
# the same logins may decide instead (lib/compare/whose.sh): a
# significant change of whole logins is unchanged when sshd's own part
# (own_*) or its part over the client's (over_*) did not move past the
# threshold on the side of the shift (rule whose-part, naming the part),
# and a change with p < 0.05 whose near end is under the threshold is
# significant when both moved past it that way (rule whose-own); sshd's
# padding steps can make that unchanged (rule whose-steps), which needs
# both parts moved. Prints the decision on one line, so the log shows the
# pair's answer.
by_rule () {
	echo "# $(printf '%s\n' "$1" | grep -v '^cell=' | grep -v '=-$' | paste -sd' ' -)"
	echo "# $(key "$1" cell)"
	printf '%s\n' "$1" | awk -F= '
		{ v[$1] = substr($0, length($1) + 2) }
		function near(lo, hi) { return lo + 0 > 0 ? lo + 0 : (hi + 0 < 0 ? hi + 0 : 0) }
		# past(P): part P moved past the threshold (and the floor, but for
		# over) with p < 0.05: 1 on the side of the shift, -1 the other way.
		function past(p,   n, pct) {
			if (v[p "_median_a"] + 0 <= 0 || v[p "_shift_lo"] == "-") return 0
			n = near(v[p "_shift_lo"], v[p "_shift_hi"]); pct = n / v[p "_median_a"] * 100
			if (!(v[p "_p"] + 0 < 0.05 && (pct >= th || pct <= -th) && (p == "over" || n >= fl || n <= -fl))) return 0
			return (n > 0) == (shift > 0) ? 1 : -1
		}
		END {
			th = v["threshold"] + 0; fl = v["floor"] + 0; shift = v["shift"] + 0; p = v["p"] + 0
			if (v["p"] == "" || v["p"] == "-" || v["shift_lo"] == "-") { printf "no p or no interval in the decision (rule %s)\n", v["rule"]; exit 1 }
			n = near(v["shift_lo"], v["shift_hi"]); npct = n / v["median_a"] * 100
			sig = p < 0.05 && (npct >= th || npct <= -th) && (v["unit"] != "ms" || n >= fl || n <= -fl)
			if (v["whole"] != (sig ? "yes" : "no")) { printf "whole=%s, but p %g, near end %g (%g %% of %g), threshold %g %% and %g: %s\n", v["whole"], p, n, npct, v["median_a"], th, fl, sig ? "past" : "not past"; exit 1 }
			moved = shift > 0 ? "worse" : "better"
			r = v["rule"]
			if (r == "rank") want = sig ? moved : "unchanged"
			else if (r == "whose-part") {
				if (!sig) { print "whose-part, but the whole logins were not significant by the rule"; exit 1 }
				q = past(v["part"])
				if (q == 1 || v[v["part"] "_moved"] != (q == 0 ? "no" : "other")) { printf "whose-part %s: moved=%s, but by its numbers %s\n", v["part"], v[v["part"] "_moved"], q == 1 ? "past the threshold with the shift" : (q == 0 ? "not past it" : "past it the other way"); exit 1 }
				want = "unchanged"
			} else if (r == "whose-own" || r == "whose-steps") {
				if (p >= 0.05) { printf "%s, but p %g\n", r, p; exit 1 }
				if (past("own") != 1 || past("over") != 1) { printf "%s, but by their numbers sshd%cs own part %s and its part over the client%cs %s\n", r, 39, past("own") == 1 ? "moved" : "did not move", 39, past("over") == 1 ? "moved" : "did not move"; exit 1 }
				want = r == "whose-own" ? moved : "unchanged"
			} else { printf "rule %s is not one of a rank test between runs of one setup\n", r; exit 1 }
			if (v["word"] != want) { printf "word=%s, but rule %s with these numbers says %s\n", v["word"], r, want; exit 1 }
		}'
}

# delay_seen RUN RUNS0 SPENT0 BASE: what the delay program did during RUN
# (its runs and ms since RUNS0 and SPENT0), the AuthorizedKeysCommand the
# run recorded of the server, and its logins' authentication phases, so
# that a delayed run that showed no delay says which of them was missing;
# and the machine's load at the start and end of BASE and RUN: a delay
# present in every login but answered "unchanged" because the client's
# part grew with sshd's (the decision above, over_*) is the machine's
# load moving between the runs, which the rule by design takes for the
# machine. Status 1.
delay_seen () {
	local d r
	d=$(cat "$TEST_TMP/$1")
	for r in "$4" "$1"; do
		echo "the machine's load (1 min) at the start and end of $r: $(kv_get "$(cat "$TEST_TMP/$r")/data/run.env" load_before | cut -d" " -f1), $(kv_get "$(cat "$TEST_TMP/$r")/data/run.env" load_after | cut -d" " -f1)"
	done
	echo "the delay program ran $(($(delay_runs server) - $2)) times, $(awk -v a="$(delay_spent server)" -v b="$3" "BEGIN { printf \"%.1f\", a - b }") ms, during $1"
	echo "the server's $(grep "^sshd_authorizedkeyscommand=" "$d/data/environment.env")"
	echo "its authentication phases (ms): $(tsv_select "$d/raw/login-samples.tsv" auth_ms status | awk -F"\t" "{ printf \"%s%s\", sep, \$1 \"/\" \$2; sep = \" \" }")"
	echo "the server's listeners (pid, parent, seconds up, command): $(ps -o pid=,ppid=,etimes=,args= -p "$(pgrep -d, -f -- "$SSHD_CONFIG")" | tr -s " " | paste -sd";" -)"
	return 1
}

# sees DECISION SLEEP: the decision (from the samples) calls a change of
# SLEEP ms worse: 0. Only where the two runs could show it: when half the
# shift's interval is wider than SLEEP less the threshold (a machine so
# loaded that the logins' own spread and the drift between the runs hide
# the sleep; seen beside stress-unit and a second lane of host tests:
# 95 % -317 to +367 ms around logins of 1.1 s), the rule cannot call it
# significant and must not: it may only not call it better; that is
# said, and 2. How often the sleep is seen is make stability's to
# measure. 1, with the decision, when neither holds.
sees () {
	local w
	w=$(awk -v lo="$(key "$1" shift_lo)" -v hi="$(key "$1" shift_hi)" -v m="$(key "$1" median_a)" -v th="$(key "$1" threshold)" -v s="$2" \
		"BEGIN { if (lo == \"-\" || hi == \"-\" || m == \"-\") exit; if ((hi - lo) / 2 > s - m * th / 100) print \"wide\" }")
	if [ "$w" = wide ] && [ "$(key "$1" word)" != better ]; then
		echo "# not asserted: the interval $(key "$1" shift_lo) to $(key "$1" shift_hi) ms is too wide to show $2 ms past the threshold of $(key "$1" threshold) % of $(key "$1" median_a) ms; the answer: $(key "$1" word)"
		return 2
	fi
	is "$1" word worse && is "$1" how samples && return 0
	return 1
}

# itself RUN TEST: a run against itself is no change, with a zero shift.
itself () {
	local d
	d=$(decided "$1" "$1" "$2") &&
	is "$d" word unchanged && is "$d" shift 0 && is "$d" how samples
}

test_expect 'two runs of login and burst on the default setup' '
	"$KIT_DIR/start-ssh.sh" -q >/dev/null &&
	kit_run base1 login burst && kit_run base2 login burst
'

test_expect 'the default setup against itself: answered by the rule; a run against itself is no change' '
	d=$(decided base1 base2 login) &&
	is "$d" how samples && by_rule "$d" &&
	itself base1 login &&
	d=$(decided base1 base2 burst) &&
	case $(key "$d" word)/$(key "$d" rule) in unchanged/* | unjudged/no-interval) ;; *) echo "burst:"; printf "%s\n" "$d"; false ;; esac
'

# The delay's "none" is the same program sleeping 0 ms: what the login
# gains is the sleep, not the program's own start (a shell and a few
# commands per check, many ms on a loaded machine).
test_expect 'a 300 ms sleep in sshd once per login: login significantly worse, the sleep inside every delayed login' '
	SSHD_OPTIONS=$DELAY_SSHD_OPTIONS "$KIT_DIR/start-ssh.sh" -q >/dev/null &&
	delay_set server 0 once &&
	kit_run nodelay login &&
	delay_set server 300 once &&
	runs0=$(delay_runs server) spent0=$(delay_spent server) &&
	kit_run delay1 login &&
	d=$(decided nodelay delay1 login) &&
	{ r=0; sees "$d" 300 || r=$?; [ "$r" -ne 1 ] || delay_seen delay1 "$runs0" "$spent0" nodelay; } && by_rule "$d" &&
	s=$(key "$d" shift) &&
	{ [ "$r" -eq 2 ] || awk -v s="$s" "BEGIN { exit !(s > 0) }" || { echo "shift ${s:-none}: $(key "$d" cell)"; false; }; } &&
	# What the code does bound: the sleep is inside every login of the
	# delayed run, in its authentication phase. (Each check says only
	# its own failure: grouped, an earlier one does not fall through.)
	min=$(tsv_select "$(cat "$TEST_TMP/delay1")/raw/login-samples.tsv" auth_ms status |
		awk -F"\t" "\$2 == \"ok\" { if (m == \"\" || \$1 < m) m = \$1 } END { print m }") &&
	{ awk -v m="$min" "BEGIN { exit !(m != \"\" && m >= 300) }" || { echo "shortest authentication of the delayed run: ${min:-none} ms"; false; }; }
'

test_expect 'the delayed setup against itself: answered by the rule; a run against itself is no change' '
	kit_run delay2 login &&
	d=$(decided delay1 delay2 login) &&
	is "$d" how samples && by_rule "$d" &&
	itself delay2 login
'

test_expect 'MaxStartups 100:30:200 against the default: burst significantly better' '
	delay_set server 0 &&
	MAX_STARTUPS=100:30:200 "$KIT_DIR/start-ssh.sh" -q >/dev/null &&
	kit_run wide burst &&
	f=$(kv_get "$(cat "$TEST_TMP/wide")/data/burst.env" figure) &&
	test_eq 40 "$f" &&
	d=$(decided base1 wide burst) &&
	if [ -z "$(kv_get "$(cat "$TEST_TMP/wide")/data/burst.env" figure_lo)" ]; then
		# Before burst gives an interval (issue 27, step 1) it is not judged.
		is "$d" rule no-interval && is "$d" word unjudged
	else
		is "$d" word better
	fi
'

test_expect 'REPEAT=2 login: two rounds, the median of their figures, its table' '
	"$KIT_DIR/start-ssh.sh" -q >/dev/null &&
	LOGIN_SAMPLES=5 REPEAT=2 kit_run rep login &&
	r=$(cat "$TEST_TMP/rep") &&
	test -f "$r/rounds/1/data/login.env" && test -f "$r/rounds/2/data/login.env" &&
	test -f "$r/rounds/2/raw/login-samples.tsv" &&
	test_kv "$r/data/login.env" figure_method repeat &&
	test_kv "$r/data/login.env" figure_n 2 &&
	# The median of two rounds by the one definition of the kit (nearest
	# rank, docs/data.md "The statistics engine"): the lower of the two.
	# As the engine prints a sample (%.15g): 461.220 is 461.22.
	want=$(printf "%.15g" "$(tsv_select "$r/raw/repeat-figures.tsv" figure | sort -g | head -n 1)") &&
	test_kv "$r/data/login.env" figure "$want" &&
	d=$(decided rep rep login) &&
	# Both rounds'"'"' logins, each round staged up to 4x LOGIN_SAMPLES.
	n=$(awk -F"\t" "FNR > 1 && \$2 == \"ok\"" "$r"/rounds/*/raw/login-samples.tsv | wc -l) &&
	[ "$n" -ge 10 ] && is "$d" n_a "$n" && is "$d" n_b "$n"
'

test_expect 'REPEAT=0: one line, exit 2, no run folder' '
	n=$(find "$RESULTS_DIR" -mindepth 1 -maxdepth 1 | wc -l) &&
	REPEAT=0 expect_status 2 "$KIT_DIR/test-ssh.sh" login &&
	test_grep "REPEAT" "$TEST_TMP/out" && test "$(wc -l <"$TEST_TMP/out")" -eq 1 &&
	test "$(find "$RESULTS_DIR" -mindepth 1 -maxdepth 1 | wc -l)" -eq "$n"
'

test_expect 'cleanup leaves the host as before' '
	"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null &&
	host_unchanged
'

test_done
