#!/usr/bin/env bash
# The load mode's two clock helpers on their own (docs/load-hosts.md):
# sshperf-offset against a command on this host (one clock: the offset is
# 0 within its uncertainty), and what it says when the command answers
# badly or not at all; sshperf-clock -u, the common start, at once for a
# moment past and refused for one too far ahead. Needs no root and no
# test server.
. "$(dirname "$0")/lib/harness.sh"
# Read in the test bodies (test_expect evaluates them).
export OFFSET="$BUILD_DIR/sshperf-offset" CLOCK="$BUILD_DIR/sshperf-clock"

test_expect 'one clock: the offset is 0 within its uncertainty, every sample in the table' '
	"$OFFSET" -n 5 -o samples.tsv -- sh -c "while read -r _; do date +%s.%N; done" >out &&
	cat out &&
	test_kv out samples 5 &&
	off=$(sed -n "s/^offset_ms=//p" out) && unc=$(sed -n "s/^uncertainty_ms=//p" out) &&
	awk -v o="$off" -v u="$unc" "BEGIN { if (o < 0) o = -o; exit !(u > 0 && o <= u + 0.002) }" &&
	test_eq "$(head -n 1 samples.tsv)" "$(printf "sample\tsend_wall_ns\tremote_wall_ns\tround_trip_ms\toffset_ms")" &&
	test_eq "$(tail -n +2 samples.tsv | wc -l)" 5
'

test_expect 'a clock 60 s ahead is found 60 s ahead' '
	"$OFFSET" -n 3 -- sh -c "while read -r _; do echo \$((\$(date +%s) + 60)).\$(date +%N); done" >out &&
	cat out &&
	off=$(sed -n "s/^offset_ms=//p" out) &&
	awk -v o="$off" "BEGIN { exit !(o > 59000 && o < 61000) }" || { echo "offset $off ms, not about 60000"; false; }
'

test_expect 'fewer digits after the point, and a carriage return, are read' '
	"$OFFSET" -n 2 -- sh -c "while read -r _; do printf \"%s.5\\r\\n\" \$(date +%s); done" >out &&
	test_kv out samples 2
'

test_expect 'an answer that is no time: exit 1, and it says so' '
	rc=0 && "$OFFSET" -n 2 -- sh -c "while read -r _; do echo soon; done" >out 2>err || rc=$? &&
	test_eq "$rc" 1 &&
	test_grep -F "first answer: the answer \"soon\" is not SECONDS.NANOSECONDS" err
'

test_expect 'a command that never answers: exit 1 at the timeout; one that ends: exit 1 at once' '
	rc=0 && timeout 30 "$OFFSET" -t 0.5 -- sleep 20 >out 2>err || rc=$? &&
	test_eq "$rc" 1 && test_grep -F "first answer: no answer within the timeout" err &&
	rc=0 && timeout 30 "$OFFSET" -- sh -c "exit 255" >out 2>err || rc=$? &&
	test_eq "$rc" 1 && test_grep -F "(the command'"'"'s exit: 255)" err
'

test_expect 'sshperf-clock -u: a moment past returns at once, late; one too far ahead is refused' '
	past=$(( $(date +%s) - 2 )) &&
	timeout 10 "$CLOCK" -u "$past" >out &&
	cat out &&
	test_kv out start_wall_ns "${past}000000000" &&
	late=$(sed -n "s/^late_ms=//p" out) &&
	awk -v l="$late" "BEGIN { exit !(l >= 2000) }" &&
	rc=0 && "$CLOCK" -u "$(( $(date +%s) + 100 ))" -m 50 >out 2>err || rc=$? &&
	test_eq "$rc" 2 && test_grep "s ahead, more than 50 s" err
'

test_expect 'sshperf-clock -u: waits for the second asked for, not before it' '
	start=$(( $(date +%s) + 2 )) &&
	timeout 10 "$CLOCK" -u "$start" >out &&
	cat out &&
	woke=$(sed -n "s/^woke_wall_ns=//p" out) &&
	awk -v w="$woke" -v s="$start" "BEGIN { exit !(w / 1e9 >= s) }" &&
	test_grep "^late_ms=[0-9]" out
'

test_done
