#!/usr/bin/env bash
# shellcheck disable=SC2034 # RUN_DIR, DATA_DIR, RAW_DIR are read by lib/rounds.sh
# A repeated run's verdict (REPEAT=N, lib/rounds.sh repeat_combine and
# repeat_judge) on made-up rounds of `login` (target p95 <= 300 ms): judged
# again on the median, not copied from the round whose figure it is. The
# median is the kit's one (nearest rank: of 6 rounds the 3rd smallest,
# one round's own figure; docs/data.md, "The statistics engine"). With 6
# rounds or more, the median's 95 % interval against the target; with
# fewer, the rounds' own verdicts when they agree, INCONCLUSIVE when not;
# a round that failed for another reason than its figure fails the run.
# Needs no root and no test server (build/sshperf-rank).
. "$(dirname "$0")/lib/harness.sh"
# shellcheck source=lib/data.sh
. "$KIT_DIR/lib/data.sh"
# shellcheck source=lib/registry.sh
. "$KIT_DIR/lib/registry.sh"
# shellcheck source=lib/measure.sh
. "$KIT_DIR/lib/measure.sh"
# shellcheck source=lib/rounds.sh
. "$KIT_DIR/lib/rounds.sh"
HELPER_DIR="$KIT_DIR/build"
helper () {
	local name=$1
	shift
	"$HELPER_DIR/sshperf-$name" "$@"
}

# rounds NAME "FIGURE LO HI STATUS[:REASON]"...: a run folder NAME with
# one round per argument, then combined; RUN_DIR, DATA_DIR, RAW_DIR set.
rounds () {
	local k=0 spec fig lo hi st why
	RUN_DIR="$TEST_TMP/$1" DATA_DIR="$TEST_TMP/$1/data" RAW_DIR="$TEST_TMP/$1/raw"
	shift
	rm -rf "$RUN_DIR" && mkdir -p "$DATA_DIR" "$RAW_DIR" || return 1
	for spec in "$@"; do
		k=$((k + 1))
		read -r fig lo hi st <<<"$spec"
		why=""
		case $st in *:*) why=${st#*:} st=${st%%:*} ;; esac
		mkdir -p "$RUN_DIR/rounds/$k/data" "$RUN_DIR/rounds/$k/raw" &&
		printf 'figure=%s\nunit=ms\nfigure_label=p95 of the complete login\ntarget=300\ntarget_op=<=\nfigure_lo=%s\nfigure_hi=%s\nfigure_n=120\nfigure_method=order\nstatus=%s\nreason=%s\nsummary=p95 %s ms\n' \
			"$fig" "$lo" "$hi" "$st" "$why" "$fig" >"$RUN_DIR/rounds/$k/data/login.env" || return 1
	done
	repeat_combine login
}

v () {
	kv_get "$DATA_DIR/login.env" "$1"
}

test_expect '6 rounds well under the target: PASS on the median'"'"'s interval' '
	rounds pass "250 240 260 PASS" "252 241 262 PASS" "254 243 265 PASS" "256 245 266 PASS" "258 247 268 PASS" "260 249 270 PASS" &&
	test_eq "$(v figure)" 254 && test_eq "$(v figure_lo)" 250 && test_eq "$(v figure_hi)" 260 &&
	case $(v summary) in "median of 6 rounds (250, 252, 254, 256, 258, 260 ms; "*"), details of round 3: p95 254 ms") ;;
	*) echo "summary: $(v summary)"; false ;; esac &&
	test_eq "$(v status)" PASS && test_eq "$(v reason)" "" &&
	test_eq "$(v verdict_from)" "the 95 % interval of the median of 6 rounds (250-260 ms) against the target"
'

test_expect '6 rounds around the target: INCONCLUSIVE, though the median'"'"'s own round said PASS' '
	rounds noise "280 270 299 PASS" "290 280 299 PASS" "296 290 299 PASS" "304 301 310 FAIL" "310 302 320 FAIL" "320 305 330 FAIL" &&
	test_eq "$(v figure)" 296 &&
	test_eq "$(v status)" INCONCLUSIVE &&
	case $(v reason) in "within the noise of the target (interval 280-320 of the median of 6 rounds, target 300); "*) ;; *) echo "reason: $(v reason)"; false ;; esac
'

test_expect '6 rounds over the target: FAIL, the reason names the median'"'"'s interval' '
	rounds fail "350 340 360 FAIL" "352 341 362 FAIL" "354 343 365 FAIL" "356 345 366 FAIL" "358 347 368 FAIL" "310 302 320 FAIL" &&
	test_eq "$(v status)" FAIL &&
	test_eq "$(v reason)" "the 95 % interval of the median of 6 rounds, 310-358 ms, is above the target 300 ms"
'

test_expect 'fewer than 6 rounds: no interval; the rounds'"'"' verdicts when they agree, INCONCLUSIVE when not' '
	rounds agree "250 240 260 PASS" "270 260 280 PASS" "260 250 270 PASS" &&
	test_eq "$(v figure_lo)" - && test_eq "$(v status)" PASS &&
	test_eq "$(v verdict_from)" "3 rounds are too few for a 95 % interval of their median (it needs 6): the rounds'"'"' own verdicts, which agree" &&
	test_grep "^figure_interval_note=3 rounds are too few" "$DATA_DIR/login.env" &&
	rounds disagree "250 240 260 PASS" "320 310 330 FAIL:p95 320 ms is above the target" "260 250 270 PASS" &&
	test_eq "$(v figure)" 260 &&
	test_eq "$(kv_get "$RUN_DIR/rounds/3/data/login.env" status)" PASS &&
	test_eq "$(v status)" INCONCLUSIVE &&
	test_eq "$(v reason)" "the 3 rounds disagree (PASS 2, FAIL 1), and 3 rounds are too few for a 95 % interval of their median; REPEAT=6 would give one" &&
	rounds allfail "320 310 330 FAIL:p95 320 ms is above the target" "330 320 340 FAIL:p95 330 ms is above the target" &&
	test_eq "$(v status)" FAIL &&
	case $(v reason) in "every one of the 2 rounds: p95 3"*) ;; *) echo "reason: $(v reason)"; false ;; esac
'

test_expect 'a round that failed for another reason than its figure fails the run, whatever the median' '
	rounds broken "250 240 260 PASS" "252 241 262 FAIL:1 of 30 logins failed" "254 243 265 PASS" "256 245 266 PASS" "258 247 268 PASS" "260 249 270 PASS" &&
	test_eq "$(v status)" FAIL &&
	test_eq "$(v reason)" "round 2: 1 of 30 logins failed" &&
	case $(v verdict_from) in "round 2"*) ;; *) echo "verdict_from: $(v verdict_from)"; false ;; esac
'

test_done
