#!/usr/bin/env bash
# shellcheck disable=SC2034 # A, B are used inside the test bodies (eval)
# The distances in the report and in --compare, on recorded runs with the
# tables of lib/wire.sh and lib/wire-load.sh (here-docs): the part
# "MaxStartups, rate and burst at a distance" says the arrival rate where
# MaxStartups begins to refuse at each distance, its charts show the
# numbers of their tables, --compare compares a distance only with the
# same RTT setting over the same wire and names a distance one run has
# and the other has not, and a run without distances gets one line that
# points to NETWORK_RTT_MS. Needs no root and no test server.
. "$(dirname "$0")/lib/harness.sh"
# shellcheck source=lib/data.sh
. "$KIT_DIR/lib/data.sh"

A=2026-03-02_101500
B=2026-03-03_091500
RES="$TEST_TMP/results"
mkdir -p "$RES"
cp -R "$TEST_DIR/data/runs/$A" "$TEST_DIR/data/runs/$B" "$RES/"

# svg_value SVG LABEL: the value a chart gives LABEL (its tooltip,
# "<title>LABEL: VALUE</title>").
svg_value () {
	sed -n "s|.*<title>$2: \([-0-9.]*\)[^<]*</title>.*|\1|p" "$1" | head -n 1
}

# The tables of two runs measured at 0 5 100 (A) and 0 100 200 (B).
q_to_tab >"$TEST_TMP/wire-A.tsv" <<-\EOF
rtt_msQmbitQloss_pctQconnect_nQconnect_ms_p50Qconnect_ms_p99Qecho_nQecho_ms_p50Qecho_ms_p99Qprobe_failedQhelperQpacketsQlostQhelper_cpu_msQlogin_nQlogin_ms_p50Qlogin_ms_p95Qlogin_round_tripsQkeyecho_nQkeyecho_ms_p50Qkeyecho_ms_p99QstatusQwarning
0QnoneQ0Q-Q-Q-Q-Q-Q-Q-QnoneQ-Q-Q-Q10Q152.0Q170.0Q-Q200Q0.4Q0.9QokQ-
5QnoneQ0Q20Q5.1Q5.4Q20Q5.2Q5.6Q0QheldQ900Q0Q30.0Q10Q190.0Q210.0Q7.6Q200Q5.6Q6.1QokQ-
100QnoneQ0Q20Q100.3Q100.9Q20Q100.4Q101.0Q0QheldQ5000Q0Q90.0Q10Q860.0Q900.0Q7.1Q200Q100.8Q102.0QokQ-
EOF
q_to_tab >"$TEST_TMP/ms-A.tsv" <<-\EOF
rtt_msQmax_startupsQbeginQauth_msQpredicted_per_sQbelow_per_sQbelow_dropsQabove_per_sQabove_dropsQoutcome
5Q10:30:100Q10Q62.0Q161.3Q3.90Q0Q-Q-Qabove not offered: 1.5 times the prediction is 241.95 logins/s, more than the 30 the kit offers at a distance on one machine
100Q10:30:100Q10Q571.0Q17.5Q3.95Q0Q26.26Q41Qconfirmed
EOF
q_to_tab >"$TEST_TMP/load-A.tsv" <<-\EOF
rtt_msQtestQstepQclientsQoffered_per_sQachieved_per_sQokQfailedQlog_dropsQstartups_maxQstartups_p50Qstartups_meanQauth_msQstatusQnote
5QrateQ1Q20Q4.00Q3.90Q20Q0Q0Q1Q0Q0.240Q62.0QokQ-
100QrateQ1Q20Q4.00Q3.95Q20Q0Q0Q4Q2Q2.210Q571.0QokQ-
100QrateQ2Q105Q26.26Q22.10Q64Q41Q41Q17Q12Q11.500Q599.0QokQ-
100QburstQ10Q10Q-Q-Q10Q0Q0Q10Q0Q1.900Q640.0QokQ-
EOF
q_to_tab >"$TEST_TMP/wire-B.tsv" <<-\EOF
rtt_msQmbitQloss_pctQconnect_nQconnect_ms_p50Qconnect_ms_p99Qecho_nQecho_ms_p50Qecho_ms_p99Qprobe_failedQhelperQpacketsQlostQhelper_cpu_msQlogin_nQlogin_ms_p50Qlogin_ms_p95Qlogin_round_tripsQkeyecho_nQkeyecho_ms_p50Qkeyecho_ms_p99QstatusQwarning
0QnoneQ0Q-Q-Q-Q-Q-Q-Q-QnoneQ-Q-Q-Q10Q150.0Q168.0Q-Q200Q0.4Q0.9QokQ-
100QnoneQ0Q20Q100.2Q100.8Q20Q100.5Q101.2Q0QheldQ5100Q0Q91.0Q10Q946.0Q990.0Q8.0Q200Q100.9Q102.5QokQ-
200QnoneQ0Q20Q200.4Q201.0Q20Q200.6Q201.5Q0QheldQ5200Q0Q95.0Q10Q1700.0Q1760.0Q7.8Q200Q201.0Q203.0QokQ-
EOF
q_to_tab >"$TEST_TMP/ms-B.tsv" <<-\EOF
rtt_msQmax_startupsQbeginQauth_msQpredicted_per_sQbelow_per_sQbelow_dropsQabove_per_sQabove_dropsQoutcome
100Q10:30:100Q10Q500.0Q20.0Q3.96Q0Q30.00Q38Qconfirmed
200Q10:30:100Q10Q1000.0Q10.0Q3.00Q0Q15.00Q30Qconfirmed
EOF
for r in A B; do
	eval "run=\$$r"
	cp "$TEST_TMP/wire-$r.tsv" "$RES/$run/raw/wire.tsv"
	cp "$TEST_TMP/ms-$r.tsv" "$RES/$run/raw/wire-maxstartups.tsv"
done
cp "$TEST_TMP/load-A.tsv" "$RES/$A/raw/wire-load.tsv"

test_expect 'the fixtures are tables of the declared shape' '
	tsv_select "$RES/$A/raw/wire-load.tsv" rtt_ms test step status note >cells &&
	test_grep -x "100	rate	2	ok	-" cells &&
	tsv_select "$RES/$A/raw/wire.tsv" rtt_ms helper status >cells &&
	test_grep -x "5	held	ok" cells
'

test_expect 'the report says where MaxStartups begins to refuse at each distance' '
	"$KIT_DIR/lib/bin/render.sh" "$RES/$A" "" >/dev/null &&
	r=$RES/$A/report.md &&
	test_grep -x "### MaxStartups, rate and burst at a distance" "$r" &&
	test_grep -xF -- "- At 100 ms, 17.5 logins/s keep 10 connections unauthenticated: MaxStartups 10:30:100 begins to refuse." "$r" &&
	test_grep -xF -- "- At 5 ms, 161.3 logins/s keep 10 connections unauthenticated: MaxStartups 10:30:100 begins to refuse." "$r" &&
	test_grep -F "| 100 ms | 10:30:100 | 571.0 ms | 17.5 logins/s | 3.95, 0 | 26.26, 41 | confirmed |" "$r" &&
	test_grep -F "| 5 ms | 10:30:100 | 62.0 ms | 161.3 logins/s | 3.90, 0 | -, - | above not offered" "$r" &&
	test_grep -F "| 100 ms | rate 2 | 105 | 26.26 / 22.10 | 64 | 41 | 41 | 17 / 12 / 11.500 | 599.0 ms | ok |" "$r" &&
	test_grep "^| At your users. distance | measured at 5, 100 ms round-trip time too" "$r" &&
	test_grep -F "](#distance) |" "$r"
'

test_expect 'the distance charts show the numbers of their tables' '
	svg=$RES/$A/charts/distance-maxstartups.svg &&
	test_grep -F "](charts/distance-maxstartups.svg)" "$RES/$A/report.md" &&
	test_grep -F "](charts/distance-figures.svg)" "$RES/$A/report.md" &&
	tsv_select "$RES/$A/raw/wire-maxstartups.tsv" rtt_ms predicted_per_s >rows &&
	while IFS="	" read -r d v; do
		test_eq "$(svg_value "$svg" "logins/s where MaxStartups begins to refuse at $d")" "$v" || return 1
	done <rows &&
	tsv_select "$RES/$A/raw/wire.tsv" rtt_ms login_ms_p50 keyecho_ms_p50 >rows &&
	while IFS="	" read -r d l k; do
		test_eq "$(svg_value "$RES/$A/charts/distance-figures.svg" "login p50 ms at $d")" "$l" &&
		test_eq "$(svg_value "$RES/$A/charts/distance-figures.svg" "keystroke echo p50 ms at $d")" "$k" || return 1
	done <rows
'

test_expect 'a run without distances points to NETWORK_RTT_MS, once, and has no distance part' '
	"$KIT_DIR/lib/bin/render.sh" "$RES/$B" "" >/dev/null &&
	cp -R "$TEST_DIR/data/runs/$B" "$TEST_TMP/plain" &&
	"$KIT_DIR/lib/bin/render.sh" "$TEST_TMP/plain" "" >/dev/null &&
	test_grep "^| At your users. distance | not measured, loopback only: .NETWORK_RTT_MS=\"0 20 100\". measures across a wire" "$TEST_TMP/plain/report.md" &&
	test_eq "$(grep -c NETWORK_RTT_MS "$TEST_TMP/plain/report.md")" 1 &&
	test_grep ! "MaxStartups, rate and burst at a distance" "$TEST_TMP/plain/report.md" &&
	! ls "$TEST_TMP/plain/charts" | grep distance
'

test_expect '--compare compares a distance only with the same RTT setting, and names the others' '
	"$KIT_DIR/test-ssh.sh" --compare "$RES/$A" "$RES/$B" >out.txt &&
	c=$(cat out.txt) &&
	test_grep -x "## At your users. distance" "$c" &&
	test_grep -xF -- "- Only in A (not compared): 5 ms." "$c" &&
	test_grep -xF -- "- Only in B (not compared): 200 ms." "$c" &&
	test_grep -F "| 100 ms | login p50 (ms) | 860.0 | 946.0 | +10.0 % (worse) | lower |" "$c" &&
	test_grep -F "| 100 ms | logins/s where MaxStartups begins to refuse (logins/s) | 17.5 | 20.0 | +14.3 % (better) | higher |" "$c" &&
	test_grep -F "| 100 ms | time unauthenticated per login (ms) | 571.0 | 500.0 | -12.4 % (better) | lower |" "$c" &&
	test_grep ! "^| 5 ms |" "$c" &&
	test_grep ! "^| 200 ms |" "$c"
'

test_expect '--compare does not compare one RTT over two different wires' '
	sed -i "s/^100	none	0	/100	50	0	/" "$RES/$B/raw/wire.tsv" &&
	"$KIT_DIR/test-ssh.sh" --compare "$RES/$A" "$RES/$B" >out.txt &&
	c=$(cat out.txt) &&
	test_grep -F "| 100 ms | every figure | - | - | not compared: the wire differed (A: rate limit none, loss 0 %; B: rate limit 50 Mbit/s, loss 0 %) | - |" "$c" &&
	test_grep ! "^| 100 ms | login p50" "$c"
'

test_expect '--compare of two runs without distances has no distance section' '
	cp -R "$TEST_DIR/data/runs/$A" "$TEST_TMP/plainA" &&
	"$KIT_DIR/test-ssh.sh" --compare "$TEST_TMP/plainA" "$TEST_TMP/plain" >out.txt &&
	test_grep ! "^## At your users" "$(cat out.txt)"
'

test_done
