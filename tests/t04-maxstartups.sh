#!/usr/bin/env bash
# shellcheck disable=SC2034 # the tables are used inside the test bodies (eval)
# MaxStartups (start:rate:full) in one place, lib/maxstartups.sh: the
# parser and the model against a table, and the MAX_STARTUPS setting
# (helpers/settings.c) accepts only what the parser accepts. No root.
. "$(dirname "$0")/lib/harness.sh"
# shellcheck source=lib/maxstartups.sh
. "$KIT_DIR/lib/maxstartups.sh"

# value, what maxstartups_parse prints (- : refused), and whether the
# MAX_STARTUPS setting takes it (the setting wants all three numbers and
# full above start).
PARSE_TABLE='10:30:100	10 30 100	yes
100:30:200	100 30 200	yes
1:1:2	1 1 2	yes
10:100:11	10 100 11	yes
010:30:100	10 30 100	yes
10	10 100 10	no
10:10:10	10 10 10	no
0:30:100	0 30 100	no
10:30	-	no
10:30:100:	-	no
:30:100	-	no
10::100	-	no
100:30:10	-	no
10:0:100	-	no
10:101:100	-	no
a:b:c	-	no
-1:30:100	-	no
10 :30:100	-	no
0	-	no'

test_expect 'maxstartups_parse: the table' '
	printf "%s\n" "$PARSE_TABLE" | while IFS="	" read -r spec want setting; do
		got=$(maxstartups_parse "$spec") || got=-
		[ "$got" = "$want" ] || { echo "$spec: got \"$got\", want \"$want\""; return 1; }
	done
'

if [ -x "$BUILD_DIR/sshperf-settings" ]; then
	test_expect 'the MAX_STARTUPS setting takes only values the parser takes' '
		printf "%s\n" "$PARSE_TABLE" | while IFS="	" read -r spec want setting; do
			rc=0
			MAX_STARTUPS=$spec "$BUILD_DIR/sshperf-settings" -s "$KIT_DIR/lib/settings.schema" \
				-f "$KIT_DIR/settings.conf" >/dev/null 2>&1 || rc=$?
			case $setting:$rc in
			yes:0 | no:2) ;;
			*) echo "MAX_STARTUPS=$spec: exit $rc, the table says $setting"; return 1 ;;
			esac
			[ "$setting" = no ] || [ "$want" != - ] || { echo "$spec: a setting the parser refuses"; return 1; }
		done
	'
else
	test_skip 'the MAX_STARTUPS setting takes only values the parser takes' 'sshperf-settings is not built (make)'
fi

# spec, N, the expected clients let in (one decimal; the values the model
# gave in lib/charts.sh before it moved here).
MODEL_TABLE='10:30:100	5	5.0
10:30:100	10	10.0
10:30:100	20	16.8
10:30:100	50	34.1
10:30:100	100	55.4
100:30:200	50	50.0
100:30:200	100	100.0
10	50	10.0
3:30:10	3	3.0
3:100:10	20	3.0
1:1:2	5	2.0'

test_expect 'maxstartups_expected: the table, and all in up to start' '
	printf "%s\n" "$MODEL_TABLE" | while IFS="	" read -r spec n want; do
		got=$(maxstartups_expected "$spec" "$n") &&
		[ "$got" = "$(printf "%s\t%s" "$n" "$want")" ] || { echo "$spec at $n: got \"$got\", want $want"; return 1; }
	done &&
	test_eq "$(maxstartups_expected 10:30:100 5 10 20 | cut -f1 | tr "\n" " ")" "5 10 20 "
'

test_expect 'maxstartups_expected: nothing for a value sshd refuses' '
	! maxstartups_expected 10:30 5 >out && test ! -s out &&
	! maxstartups_expected "" 5 >out && test ! -s out
'

# The chance that all N get in, by hand for 10:30:100 and 20 clients:
# the 11th to 20th connections each pass with 0.7 - 0.7 (k - 10) / 90,
# k = 10..19; the product is 0.0168. Each step is its own burst, so the
# result is 10 unless the step of 20 (or a larger one) all got in.
test_expect 'maxstartups_outcomes: the chance that all of a step get in, and of each result' '
	maxstartups_outcomes 10:30:100 5 10 20 50 >got &&
	printf "5	1	0
10	1	0.983182
20	0.0168176	0.0168176
50	2.10418e-11	2.10418e-11
0	-	0
" >want &&
	test_cmp want got &&
	maxstartups_outcomes 100:30:200 5 10 20 50 100 | tail -n 2 >got &&
	printf "100	1	1
0	-	0
" >want && test_cmp want got &&
	! maxstartups_outcomes 10:30 5 >out && test ! -s out
'

test_expect 'sshd'"'"'s drop formula is written once, and both models use it' '
	grep -c -F "(full - start)) / 100" "$KIT_DIR/lib/maxstartups.sh" >count &&
	test_eq "$(cat count)" 1 &&
	declare -f maxstartups_expected >expected.fn && test_grep MAXSTARTUPS_LET_IN_AWK expected.fn &&
	declare -f maxstartups_outcomes >outcomes.fn && test_grep MAXSTARTUPS_LET_IN_AWK outcomes.fn
'

test_expect 'maxstartups_of_run: the burst test, then sshd -T, then the setting' '
	mkdir -p run/data &&
	printf "MAX_STARTUPS='"'"'7:30:70'"'"'\n" >run/data/settings.env &&
	test "$(maxstartups_of_run run)" = 7:30:70 &&
	printf "sshd_maxstartups=8:30:80\n" >run/data/environment.env && KV_LOADED=() &&
	test "$(maxstartups_of_run run)" = 8:30:80 &&
	printf "max_startups=9:30:90\n" >run/data/burst.env && KV_LOADED=() &&
	test "$(maxstartups_of_run run)" = 9:30:90
'

test_done
