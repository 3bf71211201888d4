#!/usr/bin/env bash
# The burst test's classification (burst_classify in lib/metrics/burst.sh)
# on recorded steps: each client matched to sshd's own log by the local
# port of its connection. OpenSSH 10.5p1 names three drops and then
# rate-limits its drop lines; clients it dropped without a line still count
# as refused, and clients whose own message disagrees with the log are
# counted. Without a log the clients' messages decide. Needs no server.
. "$(dirname "$0")/lib/harness.sh"
# shellcheck source=lib/data.sh
. "$KIT_DIR/lib/data.sh"
# shellcheck source=lib/metrics/burst.sh
. "$KIT_DIR/lib/metrics/burst.sh"

D="$TEST_DIR/data"
export D

# kv BASE KEY: a value of a classification's summary, BASE.env (test_kv
# BASE.env KEY VALUE checks one).
kv () {
	kv_get "$1.env" "$2"
}

test_expect 'OpenSSH 10.5p1, 20 clients: 6 refused by the server (3 named, 3 without a line), 14 logged in' '
	burst_classify "$D/burst-openssh105-step20.tsv" "$D/burst-openssh105-step20-server.log" 11022 c &&
	test_kv c.env log yes && test_kv c.env refused 6 && test_kv c.env ok 14 &&
	test_kv c.env failed 0 && test_kv c.env timeout 0 &&
	test_kv c.env log_named 3 && test_kv c.env log_unnamed 3 &&
	[ "$(kv c log_named)" -eq "$(grep -c "drop connection #" "$D/burst-openssh105-step20-server.log")" ] &&
	test_kv c.env pending 0 && test_kv c.env penalty 0
'

test_expect 'its clients that printed "Connection closed by 127.0.0.1 port 11022" are refusals, and the difference is counted' '
	burst_classify "$D/burst-openssh105-step20.tsv" "$D/burst-openssh105-step20-server.log" 11022 c &&
	test_kv c.env client_refused 3 && test_kv c.env disagree 3 &&
	awk -F"\t" "NR > 1 && \$7 ~ /^Connection closed by 127.0.0.1 port 11022/ { print \$1 }" \
		"$D/burst-openssh105-step20.tsv" >closed &&
	test_eq "$(wc -l <closed)" 3 &&
	while read -r n; do
		awk -F"\t" -v n="$n" "\$1 == n && \$2 == \"refused\" && \$3 == \"server\" { f = 1 } END { exit !f }" c.tsv || return 1
	done <closed
'

test_expect 'the classification is a table with its header, one row per client, and the summary in its own .env' '
	burst_classify "$D/burst-openssh105-step20.tsv" "$D/burst-openssh105-step20-server.log" 11022 c &&
	printf "client\tclass\tsource\toutcome\n" >want && head -n 1 c.tsv >got && test_cmp want got &&
	[ "$(tail -n +2 c.tsv | wc -l)" -eq "$(tail -n +2 "$D/burst-openssh105-step20.tsv" | wc -l)" ] &&
	! grep -n "^#" c.tsv && ! grep -vn "^[a-z_]*=" c.env
'

test_expect 'a client the log admitted is never a refusal, whatever it printed' '
	q_to_tab >t.tsv <<-\EOF &&
	clientQoutcomeQexitQwoke_msQconnect_msQdone_msQmessageQlocal_port
	1QrefusedQ255Q1Q1Q9Qkex_exchange_identification: Connection closed by remote hostQ40001
	2QokQ0Q1Q1Q9Q-Q40002
	EOF
	cat >s.log <<-\EOF &&
	Connection from 127.0.0.1 port 40001 on 127.0.0.1 port 11022 rdomain ""
	Connection from 127.0.0.1 port 40002 on 127.0.0.1 port 11022 rdomain ""
	EOF
	burst_classify t.tsv s.log 11022 c &&
	test_kv c.env refused 0 && test_kv c.env failed 1 && test_kv c.env disagree 1
'

test_expect 'drop lines of OpenSSH 8.7 and 9.9 ("past MaxStartups", "past Maxstartups"), another port ignored, a penalty counted apart' '
	q_to_tab >t.tsv <<-\EOF &&
	clientQoutcomeQexitQwoke_msQconnect_msQdone_msQmessageQlocal_port
	1QfailedQ255Q1Q1Q9QConnection closed by 127.0.0.1 port 11022Q40001
	2QrefusedQ255Q1Q1Q9Qkex_exchange_identification: read: Connection reset by peerQ40002
	3QfailedQ255Q1Q1Q9QConnection closed by 127.0.0.1 port 11022Q40003
	4QokQ0Q1Q1Q9Q-Q40004
	EOF
	cat >s.log <<-\EOF &&
	drop connection #10 from [127.0.0.1]:40001 on [127.0.0.1]:11022 past MaxStartups
	drop connection #10 from [127.0.0.1]:40002 on [127.0.0.1]:11022 past Maxstartups
	drop connection #3 from [127.0.0.1]:40003 on [127.0.0.1]:11022 penalty: connections without attempting authentication
	drop connection #10 from [127.0.0.1]:40004 on [127.0.0.1]:22 past MaxStartups
	Connection from 127.0.0.1 port 40004 on 127.0.0.1 port 11022 rdomain ""
	EOF
	burst_classify t.tsv s.log 11022 c &&
	test_kv c.env refused 3 && test_kv c.env ok 1 && test_kv c.env log_named 3 &&
	test_kv c.env penalty 1 && test_kv c.env disagree 2 && test_kv c.env log_unnamed 0
'

test_expect 'no server log: the clients own messages decide' '
	: >empty.log &&
	burst_classify "$D/burst-openssh105-step20.tsv" empty.log 11022 c &&
	test_kv c.env log no && test_kv c.env refused 3 && test_kv c.env failed 3 &&
	test_kv c.env ok 14 && test_kv c.env disagree 0
'

test_expect 'a client that logged in but the log does not name yet is pending, not a refusal' '
	q_to_tab >t.tsv <<-\EOF &&
	clientQoutcomeQexitQwoke_msQconnect_msQdone_msQmessageQlocal_port
	1QokQ0Q1Q1Q9Q-Q40001
	2QokQ0Q1Q1Q9Q-Q40002
	EOF
	echo "Connection from 127.0.0.1 port 40001 on 127.0.0.1 port 11022 rdomain \"\"" >s.log &&
	burst_classify t.tsv s.log 11022 c &&
	test_kv c.env pending 1 && test_kv c.env ok 2 && test_kv c.env refused 0
'

# Recorded on OpenSSH 9.9p1 with the clients of a fleet (lib/sources.sh):
# each from an address of its own, 127.1.0.6 to 127.1.0.13. sshd names the
# address with the port ("from [127.1.0.7]:34810"), and the two together
# are the key; a recording without the local_addr column (from before the
# sources) is classified by the port alone, with the same result here.
test_expect 'OpenSSH 9.9p1, 8 clients from 8 addresses: each matched by address and port, 3 refused' '
	burst_classify "$D/burst-openssh99-sources-step8.tsv" "$D/burst-openssh99-sources-step8-server.log" 11022 c &&
	test_kv c.env log yes && test_kv c.env refused 3 && test_kv c.env ok 5 &&
	test_kv c.env log_named 3 && test_kv c.env log_other_drops 0 &&
	test_kv c.env disagree 0 && test_kv c.env pending 0 && test_kv c.env penalty 0 &&
	test_eq "$(awk -F"\t" "NR > 1 && \$3 != \"server\"" c.tsv | wc -l)" 0 &&
	tsv_select "$D/burst-openssh99-sources-step8.tsv" client outcome exit woke_ms connect_ms done_ms message local_port |
		{ tsv_header "client outcome exit woke_ms connect_ms done_ms message local_port"; cat; } >noaddr.tsv &&
	burst_classify noaddr.tsv "$D/burst-openssh99-sources-step8-server.log" 11022 p &&
	test_cmp c.tsv p.tsv && test_cmp c.env p.env
'

test_done
