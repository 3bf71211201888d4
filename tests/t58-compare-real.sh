#!/usr/bin/env bash
# --compare finds real changes and calls identical setups unchanged, on
# the real test server (one pair each; the 5-in-5 repetition is make
# stability, tests/bench/stability.sh STABILITY_REAL=1):
# - a 300 ms sleep in sshd's AuthorizedKeysCommand (tests/lib/delay.sh,
#   once per login) against the same program sleeping 0 ms: login
#   significantly worse, and every login of the delayed run spends at
#   least the 300 ms in its authentication phase (by construction). A
#   change is significant when all of its interval is past 10 % of the
#   median; on a loaded CI machine a login takes 300-600 ms, and 50 ms
#   (the bench's) is too close to that edge for one pair. Between runs
#   of one setup sshd's part over the client's must move past 10 % too
#   (lib/compare.sh judge_whose): CI saw a 150 ms sleep cleared as the
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
#   shift's interval past the threshold and the floor, by the numbers it
#   prints), and
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

# judged A B TEST: the Significant cell of TEST in --compare A B.
judged () {
	local out
	out=$("$KIT_DIR/test-ssh.sh" --compare "$(cat "$TEST_TMP/$1")" "$(cat "$TEST_TMP/$2")") || return 1
	awk -F' [|] ' -v t="| \`$3\`" 'index($0, t) == 1 { print $6 }' "$out"
}

# has CELL TEXT: CELL holds TEXT, else what it was.
has () {
	case $1 in *"$2"*) return 0 ;; esac
	echo "expected \"$2\" in: $1"
	return 1
}

# shift_ms CELL: the Hodges-Lehmann shift of a rank-test cell.
shift_ms () {
	printf '%s\n' "$1" | sed -n 's/.*shift \([-+0-9.e]*\) ms.*/\1/p'
}

# by_rule CELL: a rank-test cell answers as its own numbers say:
# significant exactly when p < 0.05 and all of the shift's 95 % interval
# is beyond the threshold: its near end at least the threshold (% of the
# median, the cell's "at least") and, for a time, at least the floor;
# "worse" for a longer time. Between runs of one setup a significant
# change of whole logins may be answered "no significant change" when
# sshd's own part (or its part over the client's) did not move (lib/
# compare.sh judge_whose): then the cell names that part, and the near
# end of its interval must be less than the threshold, or past it on the
# other side than the whole logins' shift (a part that moved the other
# way: "but the other way than the whole logins"). The other way, a
# change of whole logins with p < 0.05 but its near end under the
# threshold is significant when sshd's own part and its part over the
# client's moved past it ("not met by the whole logins ... but by
# sshd's"): then both near ends must be past the threshold, on the side
# of the whole logins' shift. Prints the cell, so the log shows the
# pair's answer.
by_rule () {
	echo "# $1"
	printf '%s\n' "$1" | awk '
		{
			part = ""
			if (match($0, /^no significant change \(sshd.s (own part|part over the ssh client.s) of the same logins moved [-+0-9.]+ % \(95 % [-+0-9.]+ to [-+0-9.]+ %/)) {
				part = substr($0, RSTART, RLENGTH); sub(/.*\(95 % /, "", part); split(part, w, / to | %/)
				wnear = (w[1] + 0 > 0) ? w[1] + 0 : ((w[2] + 0 < 0) ? w[2] + 0 : 0)
			}
			own = index($0, "not met by the whole logins") > 0
			rest = $0; k = 0
			while (own && match(rest, /of the same logins moved [-+0-9.]+ % \(95 % [-+0-9.]+ to [-+0-9.]+ %/)) {
				m = substr(rest, RSTART, RLENGTH); rest = substr(rest, RSTART + RLENGTH)
				sub(/.*\(95 % /, "", m); split(m, w, / to | %/)
				pnear[++k] = (w[1] + 0 > 0) ? w[1] + 0 : ((w[2] + 0 < 0) ? w[2] + 0 : 0)
			}
			if (own && k != 2) { printf "judged by sshd%cs part, but %d parts named, not 2\n", 39, k; exit 1 }
			if (!match($0, /shift [-+0-9.e]+ ms \([-+0-9.]+ %/)) { print "no shift in the cell"; exit 1 }
			split(substr($0, RSTART + 6, RLENGTH - 6), a, / ms \(/); shift = a[1] + 0; pct = a[2] + 0
			if (!match($0, /p [0-9.e-]+,/)) { print "no p in the cell"; exit 1 }
			p = substr($0, RSTART + 2, RLENGTH - 3) + 0
			if (!match($0, /threshold [0-9.]+ % and [0-9.]+ ms/)) { print "no threshold in the cell"; exit 1 }
			split(substr($0, RSTART + 10, RLENGTH - 10), t, / % and /); th = t[1] + 0; fl = t[2] + 0
			if (!match($0, /95 % [-+0-9.e]+ to [-+0-9.e]+ \(at least [-+0-9.]+ %\)/)) { print "no interval in the cell"; exit 1 }
			split(substr($0, RSTART + 5, RLENGTH - 5), c, / to | \(at least | %\)/); lo = c[1] + 0; hi = c[2] + 0; npct = c[3] + 0
			near = (lo > 0) ? lo : ((hi < 0) ? hi : 0)
			if ((near == 0) != (npct == 0)) { printf "interval %g to %g, but \"at least %g %%\"\n", lo, hi, npct; exit 1 }
			sig = p < 0.05 && (npct >= th || npct <= -th) && (near >= fl || near <= -fl)
			want = !sig ? "no significant change" : (shift > 0 ? "significantly worse" : "significantly better")
			if (own) {
				if (sig || p >= 0.05) { printf "judged by sshd%cs part, but the whole logins were %s by the rule\n", 39, sig ? "significant" : "not p < 0.05"; exit 1 }
				for (i = 1; i <= 2; i++)
					if ((shift > 0 && pnear[i] < th) || (shift < 0 && pnear[i] > -th)) { printf "judged by sshd%cs part, but part %d moved only %g %% at its near end (threshold %g %%, shift %g ms)\n", 39, i, pnear[i], th, shift; exit 1 }
				want = shift > 0 ? "significantly worse" : "significantly better"
			} else if (part != "") {
				if (!sig) { printf "sshd%cs part judged, but the whole logins were no significant change by the rule\n", 39; exit 1 }
				if (index($0, "but the other way than the whole logins") > 0) {
					if (!((shift > 0 && wnear <= -th) || (shift < 0 && wnear >= th))) { printf "sshd%cs part: near end %g %% is not past the threshold %g %% the other way than the shift %g ms\n", 39, wnear, th, shift; exit 1 }
				} else if (wnear >= th || wnear <= -th) { printf "sshd%cs part: near end %g %% is past the threshold %g %%, yet no change\n", 39, wnear, th; exit 1 }
				want = "no significant change"
			}
			if (index($0, want) != 1) { printf "p %g, shift %g ms (%g %%), near end %g ms (%g %%), threshold %g %% and %g ms: the rule says \"%s\"\n", p, shift, pct, near, npct, th, fl, want; exit 1 }
		}'
}

# delay_seen RUN RUNS0 SPENT0: what the delay program did during RUN (its
# runs and ms since RUNS0 and SPENT0), the AuthorizedKeysCommand the run
# recorded of the server, and its logins' authentication phases, so that
# a delayed run that showed no delay says which of them was missing.
# Status 1.
delay_seen () {
	local d
	d=$(cat "$TEST_TMP/$1")
	echo "the delay program ran $(($(delay_runs server) - $2)) times, $(awk -v a="$(delay_spent server)" -v b="$3" "BEGIN { printf \"%.1f\", a - b }") ms, during $1"
	echo "the server's $(grep "^sshd_authorizedkeyscommand=" "$d/data/environment.env")"
	echo "its authentication phases (ms): $(tsv_select "$d/raw/login-samples.tsv" auth_ms status | awk -F"\t" "{ printf \"%s%s\", sep, \$1 \"/\" \$2; sep = \" \" }")"
	echo "the server's listeners (pid, parent, seconds up, command): $(ps -o pid=,ppid=,etimes=,args= -p "$(pgrep -d, -f -- "$SSHD_CONFIG")" | tr -s " " | paste -sd";" -)"
	return 1
}

# itself RUN TEST: a run against itself is no change, with a zero shift.
itself () {
	local c
	c=$(judged "$1" "$1" "$2") &&
	has "$c" "no significant change (rank test of the samples: shift +0 ms"
}

test_expect 'two runs of login and burst on the default setup' '
	"$KIT_DIR/start-ssh.sh" -q >/dev/null &&
	kit_run base1 login burst && kit_run base2 login burst
'

test_expect 'the default setup against itself: answered by the rule; a run against itself is no change' '
	c=$(judged base1 base2 login) &&
	has "$c" "rank test of the samples" && by_rule "$c" &&
	itself base1 login &&
	c=$(judged base1 base2 burst) &&
	case $c in "no significant change"* | "no interval: not judged") ;; *) echo "burst: $c"; false ;; esac
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
	c=$(judged nodelay delay1 login) &&
	{ has "$c" "significantly worse (rank test of the samples" || delay_seen delay1 "$runs0" "$spent0"; } && by_rule "$c" &&
	s=$(shift_ms "$c") &&
	{ awk -v s="$s" "BEGIN { exit !(s > 0) }" || { echo "shift ${s:-none}: $c"; false; }; } &&
	# What the code does bound: the sleep is inside every login of the
	# delayed run, in its authentication phase. (Each check says only
	# its own failure: grouped, an earlier one does not fall through.)
	min=$(tsv_select "$(cat "$TEST_TMP/delay1")/raw/login-samples.tsv" auth_ms status |
		awk -F"\t" "\$2 == \"ok\" { if (m == \"\" || \$1 < m) m = \$1 } END { print m }") &&
	{ awk -v m="$min" "BEGIN { exit !(m != \"\" && m >= 300) }" || { echo "shortest authentication of the delayed run: ${min:-none} ms"; false; }; }
'

test_expect 'the delayed setup against itself: answered by the rule; a run against itself is no change' '
	kit_run delay2 login &&
	c=$(judged delay1 delay2 login) &&
	has "$c" "rank test of the samples" && by_rule "$c" &&
	itself delay2 login
'

test_expect 'MaxStartups 100:30:200 against the default: burst significantly better' '
	delay_set server 0 &&
	MAX_STARTUPS=100:30:200 "$KIT_DIR/start-ssh.sh" -q >/dev/null &&
	kit_run wide burst &&
	f=$(kv_get "$(cat "$TEST_TMP/wide")/data/burst.env" figure) &&
	test_eq 40 "$f" &&
	c=$(judged base1 wide burst) &&
	if [ -z "$(kv_get "$(cat "$TEST_TMP/wide")/data/burst.env" figure_lo)" ]; then
		# Before burst gives an interval (issue 27, step 1) it is not judged.
		test_eq "no interval: not judged" "$c"
	else
		has "$c" "significantly better"
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
	want=$(tsv_select "$r/raw/repeat-figures.tsv" figure | sort -g | awk "{ v[NR] = \$1 } END { printf \"%.6g\", (v[1] + v[2]) / 2 }") &&
	test_kv "$r/data/login.env" figure "$want" &&
	c=$(judged rep rep login) &&
	# Both rounds'"'"' logins, each round staged up to 4x LOGIN_SAMPLES.
	n=$(awk -F"\t" "FNR > 1 && \$2 == \"ok\"" "$r"/rounds/*/raw/login-samples.tsv | wc -l) &&
	[ "$n" -ge 10 ] && has "$c" "n $n and $n"
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
