#!/usr/bin/env bash
# The base time of sshd's padding from a table of sshperf-capture pad
# (lib/capture.sh capture_pad_fit, docs/metrics.md "The login test
# measures the padding"): logins that all fit one base time give it; logins
# that fit two base times equally (every login 2b = 3b') give none and say
# both; too few logins, or times that are no whole steps, give none with
# the reason. The tables are made here from sshd's rule, with the
# overshoot of a real sleep. Needs no root and no test server.
. "$(dirname "$0")/lib/harness.sh"
# shellcheck source=lib/data.sh
. "$KIT_DIR/lib/data.sh"
# shellcheck source=lib/capture.sh
. "$KIT_DIR/lib/capture.sh"

# pad_table N B QUERY [SIGNED_WORK]: N logins of base time B whose query
# took QUERY ms (plus up to 0.4 ms) and whose signed request took
# SIGNED_WORK ms (1): each request padded to B doubled past its work, and
# 0.05-0.35 ms of overshoot on the pair.
pad_table () {
	awk -v n="$1" -v b="$2" -v w="$3" -v sw="${4:-1}" 'BEGIN {
		print "sample\tclient_port\tquery_ms\tsigned_ms\tpair_ms"
		for (i = 1; i <= n; i++) {
			q = w + (i % 5) * 0.1; m = b; while (m < q) m *= 2
			s = b; while (s < sw) s *= 2
			printf "%d\t%d\t%.3f\t%.3f\t%.3f\n", i, 40000 + i, q, q + 0.8, m + s + 0.05 + (i % 7) * 0.05
		}
	}'
}

fit_of () {
	capture_pad_fit "$1" | sort
}

test_expect 'logins that all fit one base time give it, from the median of their times' '
	pad_table 30 6.5 1.5 >t.tsv &&
	fit_of t.tsv >got &&
	test_grep -x "pad_n=30" got && test_grep -x "pad_fit=30" got &&
	test_grep -x "pad_base_ms=6.6[0-9]" got && test_grep ! "^pad_note=" got
'

test_expect 'a query that took 8 base times: the base time all the same, and the pair 16 of them' '
	pad_table 30 5.2 40 >t.tsv &&
	fit_of t.tsv >got &&
	test_grep -x "pad_fit=30" got && test_grep -x "pad_base_ms=5.2[0-9]" got &&
	test_grep -x "pad_pair_p50=4[0-9]\.[0-9]*" got
'

test_expect 'every login 2b = 3b'"'"': no base time, and the note names both' '
	pad_table 30 8.6 1.5 >t.tsv &&
	fit_of t.tsv >got &&
	test_grep -x "pad_base_ms=-" got &&
	test_grep "^pad_note=two base times fit: 8\.[0-9]* ms (30 of 30 logins) and 5\.[0-9]* ms (30)" got
'

test_expect 'logins of two base times mixed: none fits 80 %' '
	{ pad_table 15 6.5 1.5; pad_table 15 8.1 1.5 | tail -n +2; } >t.tsv &&
	fit_of t.tsv >got &&
	test_grep -x "pad_base_ms=-" got &&
	test_grep "^pad_note=no base time fits 80 % of the key logins (at most 1[5-9] of 30" got
'

test_expect 'fewer than 10 key logins, or none with the exchange: no base time, and why' '
	pad_table 5 6.5 1.5 >t.tsv &&
	fit_of t.tsv >got &&
	test_grep -x "pad_n=5" got && test_grep -x "pad_base_ms=-" got &&
	test_grep -x "pad_note=5 key logins showed the exchange, 10 needed" got &&
	printf "sample\tclient_port\tquery_ms\tsigned_ms\tpair_ms\n1\t40001\t-\t-\t-\n" >none.tsv &&
	fit_of none.tsv >got &&
	test_grep -x "pad_n=0" got && test_grep ! "^pad_pair_p50=" got
'

test_done
