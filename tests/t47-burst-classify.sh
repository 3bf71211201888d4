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

# kv BASE KEY: a value of a classification's summary, BASE.env.
kv () {
	kv_get "$1.env" "$2"
}

test_expect 'OpenSSH 10.5p1, 20 clients: 6 refused by the server (3 named, 3 without a line), 14 logged in' '
	burst_classify "$D/burst-openssh105-step20.tsv" "$D/burst-openssh105-step20-server.log" 11022 c &&
	[ "$(kv c log)" = yes ] && [ "$(kv c refused)" = 6 ] && [ "$(kv c ok)" = 14 ] &&
	[ "$(kv c failed)" = 0 ] && [ "$(kv c timeout)" = 0 ] &&
	[ "$(kv c log_named)" = 3 ] && [ "$(kv c log_unnamed)" = 3 ] &&
	[ "$(kv c log_named)" -eq "$(grep -c "drop connection #" "$D/burst-openssh105-step20-server.log")" ] &&
	[ "$(kv c pending)" = 0 ] && [ "$(kv c penalty)" = 0 ]
'

test_expect 'its clients that printed "Connection closed by 127.0.0.1 port 11022" are refusals, and the difference is counted' '
	burst_classify "$D/burst-openssh105-step20.tsv" "$D/burst-openssh105-step20-server.log" 11022 c &&
	[ "$(kv c client_refused)" = 3 ] && [ "$(kv c disagree)" = 3 ] &&
	awk -F"\t" "NR > 1 && \$7 ~ /^Connection closed by 127.0.0.1 port 11022/ { print \$1 }" \
		"$D/burst-openssh105-step20.tsv" >closed &&
	[ "$(wc -l <closed)" = 3 ] &&
	while read -r n; do
		awk -F"\t" -v n="$n" "\$1 == n && \$2 == \"refused\" && \$3 == \"server\" { f = 1 } END { exit !f }" c.tsv || exit 1
	done <closed
'

test_expect 'the classification is a table with its header, one row per client, and the summary in its own .env' '
	burst_classify "$D/burst-openssh105-step20.tsv" "$D/burst-openssh105-step20-server.log" 11022 c &&
	printf "client\tclass\tsource\toutcome\n" >want && head -n 1 c.tsv >got && test_cmp want got &&
	[ "$(tail -n +2 c.tsv | wc -l)" -eq "$(tail -n +2 "$D/burst-openssh105-step20.tsv" | wc -l)" ] &&
	! grep -n "^#" c.tsv && ! grep -vn "^[a-z_]*=" c.env
'

test_expect 'a client the log admitted is never a refusal, whatever it printed' '
	printf "client\toutcome\texit\twoke_ms\tconnect_ms\tdone_ms\tmessage\tlocal_port\n1\trefused\t255\t1\t1\t9\tkex_exchange_identification: Connection closed by remote host\t40001\n2\tok\t0\t1\t1\t9\t-\t40002\n" >t.tsv &&
	printf "Connection from 127.0.0.1 port 40001 on 127.0.0.1 port 11022 rdomain \"\"\nConnection from 127.0.0.1 port 40002 on 127.0.0.1 port 11022 rdomain \"\"\n" >s.log &&
	burst_classify t.tsv s.log 11022 c &&
	[ "$(kv c refused)" = 0 ] && [ "$(kv c failed)" = 1 ] && [ "$(kv c disagree)" = 1 ]
'

test_expect 'drop lines of OpenSSH 8.7 and 9.9 ("past MaxStartups", "past Maxstartups"), another port ignored, a penalty counted apart' '
	printf "client\toutcome\texit\twoke_ms\tconnect_ms\tdone_ms\tmessage\tlocal_port\n1\tfailed\t255\t1\t1\t9\tConnection closed by 127.0.0.1 port 11022\t40001\n2\trefused\t255\t1\t1\t9\tkex_exchange_identification: read: Connection reset by peer\t40002\n3\tfailed\t255\t1\t1\t9\tConnection closed by 127.0.0.1 port 11022\t40003\n4\tok\t0\t1\t1\t9\t-\t40004\n" >t.tsv &&
	{ echo "drop connection #10 from [127.0.0.1]:40001 on [127.0.0.1]:11022 past MaxStartups"
	  echo "drop connection #10 from [127.0.0.1]:40002 on [127.0.0.1]:11022 past Maxstartups"
	  echo "drop connection #3 from [127.0.0.1]:40003 on [127.0.0.1]:11022 penalty: connections without attempting authentication"
	  echo "drop connection #10 from [127.0.0.1]:40004 on [127.0.0.1]:22 past MaxStartups"
	  echo "Connection from 127.0.0.1 port 40004 on 127.0.0.1 port 11022 rdomain \"\""; } >s.log &&
	burst_classify t.tsv s.log 11022 c &&
	[ "$(kv c refused)" = 3 ] && [ "$(kv c ok)" = 1 ] && [ "$(kv c log_named)" = 3 ] &&
	[ "$(kv c penalty)" = 1 ] && [ "$(kv c disagree)" = 2 ] && [ "$(kv c log_unnamed)" = 0 ]
'

test_expect 'no server log: the clients own messages decide' '
	: >empty.log &&
	burst_classify "$D/burst-openssh105-step20.tsv" empty.log 11022 c &&
	[ "$(kv c log)" = no ] && [ "$(kv c refused)" = 3 ] && [ "$(kv c failed)" = 3 ] &&
	[ "$(kv c ok)" = 14 ] && [ "$(kv c disagree)" = 0 ]
'

test_expect 'a client that logged in but the log does not name yet is pending, not a refusal' '
	printf "client\toutcome\texit\twoke_ms\tconnect_ms\tdone_ms\tmessage\tlocal_port\n1\tok\t0\t1\t1\t9\t-\t40001\n2\tok\t0\t1\t1\t9\t-\t40002\n" >t.tsv &&
	printf "Connection from 127.0.0.1 port 40001 on 127.0.0.1 port 11022 rdomain \"\"\n" >s.log &&
	burst_classify t.tsv s.log 11022 c &&
	[ "$(kv c pending)" = 1 ] && [ "$(kv c ok)" = 2 ] && [ "$(kv c refused)" = 0 ]
'

test_done
