#!/usr/bin/env bash
# The target's side of a load run (issue 47, docs/load-hosts.md): the
# target watches its test server over the load (`test-ssh.sh
# --load-watch`) while two load hosts, network namespaces as in t37, run
# a burst and the closed login loop at one start (`test-ssh.sh --load`);
# their run folders, copied into the watch's hosts/NAME/, are merged
# (`test-ssh.sh --load-merge`). Checked: bad input exits 2 with one line
# and nothing written; the logins sshd's log shows from each host's
# address are the ones the host counted and the merge reports, which the
# test counts in the log itself; sshd's CPU per login is above 0 and
# the watch's samples span every host's tests (by the target's clock);
# the merged login times are one summary of both hosts' samples; the
# hosts' bursts are classified from the watch's log; planted faults are
# found: burst releases 20 ms apart, a login missing from the log, a
# host whose run failed, a slice counter that falls to 0 between sessions
# (sshd's CPU summed over its rises); the report renders the merged figures by `fig`;
# data files hold only keys and columns docs/data.md declares.
. "$(dirname "$0")/lib/harness.sh"
. "$TEST_DIR/lib/snapshot.sh"
. "$TEST_DIR/lib/procs.sh"

host_kit_test 'load merge'
LOAD_HOST_WHAT='load merge'
. "$TEST_DIR/lib/loadhost.sh"

# shellcheck disable=SC2034 # read in the test bodies (test_expect evaluates them)
BURST_CLIENTS=10
RESULTS="$TEST_TMP/watch-results"
test_atexit '"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null 2>&1'

# t37's layout, with namespaces and veths of this file's own names
# (spl: load merge).
load_hosts_two spl loadmerge

host_snapshot_save

# refused TEXT ARGS...: test-ssh.sh ARGS exits 2 with one line holding
# TEXT, writes no results folder and leaves the host unchanged.
refused () {
	local text=$1 rc=0
	shift
	RESULTS_DIR="$RESULTS" "$KIT_DIR/test-ssh.sh" "$@" >"$TEST_TMP/o" 2>"$TEST_TMP/e" || rc=$?
	[ "$rc" -eq 2 ] || { echo "exit $rc from: $*"; cat "$TEST_TMP/o" "$TEST_TMP/e"; return 1; }
	test_eq "$(wc -l <"$TEST_TMP/e")" 1 &&
	cat "$TEST_TMP/e" &&
	test_grep -F -- "$text" "$TEST_TMP/e" &&
	test_eq "$(ls -A "$RESULTS" 2>/dev/null)" "" &&
	host_unchanged
}

test_expect 'bad input to the watch exits 2 with one line, before anything' '
	refused "no window: give the load" --load-watch &&
	refused "--seconds 0 is not a number of seconds from 1 to 3600" --load-watch --seconds 0 &&
	refused "--seconds soon is not a number" --load-watch --seconds soon &&
	refused "s ahead, more than 3600 s" --load-watch --seconds 5 --start-at "$(( $(date +%s) + 7200 ))" &&
	refused "s ago; give the start the load hosts were given" --load-watch --seconds 10 --start-at "$(( $(date +%s) - 60 ))" &&
	refused "unknown argument login" --load-watch --seconds 5 login &&
	refused "the test server is not running" --load-watch --seconds 5
'
test_expect 'bad input to the merge exits 2 with one line, nothing written' '
	mkdir -p "$TEST_TMP/fake/data" "$TEST_TMP/fake/raw" "$TEST_TMP/fake/hosts/h1/data" &&
	refused "takes one folder" --load-merge &&
	refused "is not a watch" --load-merge "$TEST_TMP/fake" &&
	printf "mode=watch\n" >"$TEST_TMP/fake/data/watch.env" &&
	refused "hosts/h1 is not a load host" --load-merge "$TEST_TMP/fake" &&
	rmdir "$TEST_TMP/fake/hosts/h1/data" "$TEST_TMP/fake/hosts/h1" &&
	refused "holds no load host" --load-merge "$TEST_TMP/fake" &&
	test_eq "$(find "$TEST_TMP/fake" -type f | wc -l)" 1
'
test_expect 'every load host failed (failed.env only): exit 1, a partial report, NOT_RUN rows, no figure' '
	w=$TEST_TMP/allfailed &&
	mkdir -p "$w/data" "$w/raw" "$w/hosts/load1" "$w/hosts/198.18.9.8" &&
	printf "mode=watch\nstatus=ok\n" >"$w/data/watch.env" &&
	printf "reason=unreachable: no route\ntask=Run the load\n" >"$w/hosts/load1/failed.env" &&
	printf "reason=lost mid-run\ntask=Run the load\n" >"$w/hosts/198.18.9.8/failed.env" &&
	rc=0 && "$KIT_DIR/test-ssh.sh" --load-merge "$w" >"$TEST_TMP/allfailed.out" 2>&1 || rc=$? &&
	cat "$TEST_TMP/allfailed.out" &&
	test_eq "$rc" 1 &&
	test_eq "$(cat "$TEST_TMP/allfailed.out")" "$w/load-report.md" &&
	test_kv "$w/data/load-merge.env" status partial &&
	test_kv "$w/data/load-merge.env" hosts_failed "198.18.9.8 load1" &&
	test_kv "$w/data/load-merge.env" hosts_failed_n 2 &&
	test_kv "$w/data/load-merge.env" logins_ok - &&
	test_kv "$w/data/load-merge.env" rate_hosts 0 &&
	(. "$KIT_DIR/lib/data.sh" && tsv_select "$w/raw/load-merge-hosts.tsv" host address status logins_ok) >rows &&
	test_grep -x "198.18.9.8	198.18.9.8	NOT_RUN	-" rows &&
	test_grep -x "load1	-	NOT_RUN	-" rows &&
	test_grep -F -- "- load1 did not complete: unreachable: no route (task: Run the load)" "$w/load-report.md" &&
	test_grep -F -- "- 198.18.9.8 did not complete: lost mid-run (task: Run the load)" "$w/load-report.md" &&
	test_kv "$w/data/load-merge.env" reason "198.18.9.8: NOT_RUN; load1: NOT_RUN" &&
	test_eq "$(grep -c -F "unreachable: no route" "$w/load-report.md")" 1 &&
	[ -s "$w/load-report.html" ]
'

export LISTEN_ADDRESS="$SERVER_ADDR" LOAD_HOSTS="$LOAD_ADDR $LOAD_ADDR2" MAX_STARTUPS=100:30:200

# The watch's CPU column on planted samples: the slice's counter falls to
# "-" and to 0 when its sessions end and rises from 0 again. Summed over
# its rises: 10+10+5+5 for the unit, 50+30+0+30 for the slice = 140; the
# last row less the first would say 60.
test_expect 'planted samples: sshd CPU is each counter summed over its rises, the slice'"'"'s counter falling to 0 and rising again' '
	printf "sample\tsshd_cpu_ms\tsession_cpu_ms\n1\t100\t-\n2\t110\t50\n3\t120\t80\n4\t125\t0\n5\t130\t30\n6\t130\t-\n" >cpu.tsv &&
	(. "$KIT_DIR/lib/data.sh" && . "$KIT_DIR/lib/sampler.sh" && samples_server_cpu cpu.tsv | tsv_select - sample server_cpu_ms) >cpu.out &&
	printf "1\t0.000\n2\t60.000\n3\t100.000\n4\t105.000\n5\t140.000\n6\t140.000\n" >cpu.expect &&
	test_cmp cpu.expect cpu.out
'

test_expect 'the target: the test server starts with the load hosts let in' '
	"$KIT_DIR/start-ssh.sh" >"$TEST_TMP/start.out" 2>&1 || { cat "$TEST_TMP/start.out"; false; } &&
	for k in ed25519 ecdsa; do
		if [ -f "$CLIENT_DIR/id_$k" ]; then cp "$CLIENT_DIR/id_$k" "$TEST_TMP/key" && break; fi
	done &&
	chmod 0600 "$TEST_TMP/key"
'

# load_on NS NAME -- ARGS...: test-ssh.sh --load ARGS in NS, its stdout
# and stderr in NAME.out and NAME.err, its status in NAME.rc.
load_on () {
	local ns=$1 name=$2 rc=0
	shift 3
	timeout --kill-after=10 200 ip netns exec "$ns" env RESULTS_DIR="$TEST_TMP/results-$name" RATE_WORKERS=2 DURATION=3 \
		"$KIT_DIR/test-ssh.sh" --load "$@" >"$TEST_TMP/$name.out" 2>"$TEST_TMP/$name.err" || rc=$?
	echo "$rc" >"$TEST_TMP/$name.rc"
}

# watch_from START: test-ssh.sh --load-watch from START for at most 100 s
# in the background (WATCH_PID, its timeout), its stdout and stderr in
# watch.out and watch.err. The test ends it with a TERM once both load
# hosts have ended (watch_end), as the play will.
WATCH_PID=""
watch_from () {
	RESULTS_DIR="$RESULTS" timeout --kill-after=10 200 "$KIT_DIR/test-ssh.sh" --load-watch --start-at "$1" --seconds 100 \
		>"$TEST_TMP/watch.out" 2>"$TEST_TMP/watch.err" &
	WATCH_PID=$!
}
# watch_end: TERM to the watch itself (not to its timeout, which would
# signal its whole process group, the sampler of a sample among it); the
# wall clock just before into watch.term; its status into watch.rc.
watch_end () {
	local rc=0
	date +%s%N >"$TEST_TMP/watch.term" &&
	kill -TERM "$(pgrep -P "$WATCH_PID")" &&
	wait "$WATCH_PID" || rc=$?
	echo "$rc" >"$TEST_TMP/watch.rc"
}

test_expect 'a watch on the target while two load hosts run a burst and the login loop at one start' '
	start=$(( $(date +%s) + 10 )) &&
	watch_from "$start" &&
	waits_for 20 grep -q "watching the test server" "$TEST_TMP/watch.out" >/dev/null &&
	# The hosts start at the watch start, or 8 s after the watch is up
	# when it took most of its lead to start (a loaded machine: once 6 s
	# past a start 6 s ahead, and the load mode takes 5 s late at most);
	# the merge reads each host by its own start.
	{ [ "$start" -ge $(( $(date +%s) + 8 )) ] || start=$(( $(date +%s) + 8 )); } &&
	pids="" &&
	for h in 1 2; do
		ns=$NS && [ "$h" = 1 ] || ns=$NS2
		load_on "$ns" "load$h" -- --target "$SERVER_ADDR:$TEST_PORT" --key "$TEST_TMP/key" --user "$TEST_USER" \
			--start-at "$start" --burst-clients "$BURST_CLIENTS" burst rate &
		pids="$pids $!"
	done &&
	wait $pids &&
	watch_end &&
	cat "$TEST_TMP/watch.err" "$TEST_TMP/load1.err" "$TEST_TMP/load2.err" &&
	test_eq "$(cat "$TEST_TMP/watch.rc") $(cat "$TEST_TMP/load1.rc") $(cat "$TEST_TMP/load2.rc")" "0 0 0" &&
	watch=$(tail -n 1 "$TEST_TMP/watch.out") && [ -d "$watch" ] &&
	printf "%s\n" "$watch" >"$TEST_TMP/watch.run" &&
	for h in 1 2; do
		run=$(tail -n 1 "$TEST_TMP/load$h.out") && [ -d "$run" ] &&
		mkdir -p "$watch/hosts" && cp -R "$run" "$watch/hosts/load$h" || return 1
	done
'

# shellcheck disable=SC2034 # read in the test bodies (test_expect evaluates them)
WATCH=$(cat "$TEST_TMP/watch.run" 2>/dev/null || echo "$TEST_TMP/no-run")
# shellcheck disable=SC2034 # read in the test bodies
MERGE="$WATCH/data/load-merge.env"

test_expect 'the watch: its samples, the listener'"'"'s title and sshd'"'"'s log of the window' '
	env=$WATCH/data/watch.env &&
	test_kv "$env" status ok &&
	test_kv "$env" mode watch &&
	test_kv "$env" listen_address "$SERVER_ADDR" &&
	samples=$(sed -n "s/^samples=//p" "$env") && echo "$samples samples" &&
	[ "$samples" -ge 2 ] &&
	test_eq "$(tail -n +2 "$WATCH/raw/watch-samples.tsv" | wc -l)" "$samples" &&
	test_kv "$env" ended signal &&
	[ "$(sed -n "s/^window_end_wall_ns=//p" "$env")" -ge "$(cat "$TEST_TMP/watch.term")" ] &&
	awk -v c="$(sed -n "s/^sshd_cpu_ms=//p" "$env")" "BEGIN { exit !(c > 0) }" &&
	[ "$(sed -n "s/^startups_samples=//p" "$env")" -gt 0 ] &&
	test_eq "$(tail -n +2 "$WATCH/raw/watch-startups.tsv" | wc -l)" "$(sed -n "s/^startups_samples=//p" "$env")" &&
	test_grep "Accepted publickey for $TEST_USER from $LOAD_ADDR port " "$WATCH/raw/watch-server.log" ||
	{ grep -E "^(samples|ended|window_|sshd_cpu|startups_samples)" "$WATCH/data/watch.env"; false; }
'

test_expect 'the merge: exit 0 and a report' '
	"$KIT_DIR/test-ssh.sh" --load-merge "$WATCH" >"$TEST_TMP/merge.out" 2>"$TEST_TMP/merge.err" ||
		{ cat "$TEST_TMP/merge.out" "$TEST_TMP/merge.err"; false; } &&
	test_eq "$(cat "$TEST_TMP/merge.out")" "$WATCH/load-report.md" &&
	test_kv "$MERGE" status ok &&
	test_kv "$MERGE" hosts_n 2 &&
	[ -s "$WATCH/load-report.html" ] &&
	cat "$WATCH/load-report.md"
'
test_expect 'the logins sshd'"'"'s log shows from each host'"'"'s address are the host'"'"'s own count and the merge'"'"'s' '
	sum=0 &&
	for h in 1 2; do
		addr=$LOAD_ADDR && [ "$h" = 1 ] || addr=$LOAD_ADDR2
		inlog=$(grep -c "Accepted publickey for $TEST_USER from $addr port " "$WATCH/raw/watch-server.log") &&
		env=$WATCH/hosts/load$h/data/load.env &&
		own=$((1 + $(sed -n "s/^burst_ok=//p" "$env") + $(sed -n "s/^rate_ok=//p" "$env"))) &&
		echo "load$h ($addr): $inlog logins in sshd'"'"'s log, $own by its own count" &&
		test_eq "$inlog" "$own" &&
		(. "$KIT_DIR/lib/data.sh" && tsv_select "$WATCH/raw/load-merge-hosts.tsv" host address logins_ok logins_accepted) >row &&
		test_grep -x "load$h	$addr	$own	$inlog" row &&
		sum=$((sum + inlog)) || return 1
	done &&
	test_kv "$MERGE" logins_ok "$sum" &&
	test_kv "$MERGE" logins_accepted "$sum" &&
	test_kv "$MERGE" logins_agree yes
'
test_expect 'sshd CPU per login is above 0, and the watch spans every host'"'"'s tests by the target'"'"'s clock' '
	per=$(sed -n "s/^sshd_cpu_ms_per_login=//p" "$MERGE") &&
	share=$(sed -n "s/^rate_sshd_cpu_pct=//p" "$MERGE") &&
	echo "sshd CPU per login $per ms, sshd at $share % of the CPUs during the loops, $(sed -n "s/^rate_logins_per_s=//p" "$MERGE") logins/s" &&
	awk -v p="$per" -v s="$share" "BEGIN { exit !(p > 0 && s > 0 && s <= 100) }" &&
	# The rest of the machine per login: here the load hosts'"'"' clients
	# share the CPUs, so only its form and its sum are checked: busy less
	# sshd, of cores CPUs over the window, over the accepted logins.
	test_grep -E "^other_cpu_ms_per_login=[0-9]+[.][0-9]{2}$" "$MERGE" &&
	v() { sed -n "s/^$1=//p" "$MERGE"; } &&
	awk -v o="$(v other_cpu_ms_per_login)" -v b="$(v machine_busy_pct)" -v s="$(v sshd_cpu_pct)" -v w="$(v window_s)" -v c="$(v cores)" -v n="$(v logins_accepted)" \
		"BEGIN { x = (b - s) / 100 * w * 1000 * c / n; if (x < 0) x = 0; d = o - x; if (d < 0) d = -d
			if (d > 0.01 + x / 100) { print \"other_cpu_ms_per_login \" o \", from the keys \" x; exit 1 } }" &&
	test_grep -E "^[|] the rest of the machine.s CPU per login .* [|] [0-9.]+ ms [|]$" "$WATCH/load-report.md" &&
	test_kv "$MERGE" window_covers yes &&
	ws=$(sed -n "s/^window_start_wall_ns=//p" "$MERGE") && we=$(sed -n "s/^window_end_wall_ns=//p" "$MERGE") &&
	for h in 1 2; do
		env=$WATCH/hosts/load$h/data/load.env &&
		off=$(sed -n "s/^clock_offset_ms=//p" "$env") &&
		for k in burst_start_wall_ns rate_end_wall_ns; do
			t=$(awk -v w="$(sed -n "s/^$k=//p" "$env")" -v o="$off" "BEGIN { printf \"%.0f\", w + o * 1e6 }") &&
			[ "$ws" -le "$t" ] && [ "$t" -le "$we" ] || { echo "load$h $k $t outside the watch $ws-$we"; return 1; }
		done || return 1
	done ||
	{ grep -E "^(rate_|window_|load_)" "$MERGE"; false; }
'
test_expect 'the merged login times: one summary of both hosts'"'"' samples' '
	n=0 &&
	for h in 1 2; do
		n=$((n + $(sed -n "s/^rate_ok=//p" "$WATCH/hosts/load$h/data/load.env"))) || return 1
	done &&
	test_kv "$MERGE" rate_hosts 2 &&
	test_kv "$MERGE" rate_login_n "$n" &&
	for h in 1 2; do
		(. "$KIT_DIR/lib/data.sh" && tsv_select "$WATCH/hosts/load$h/raw/rate-logins.tsv" login_ms status) || return 1
	done | awk -F"\t" "\$2 == \"ok\" { print \$1 }" | sort -n >all.txt &&
	test_eq "$(wc -l <all.txt)" "$n" &&
	test_kv "$MERGE" rate_login_max "$(awk -v m="$(tail -n 1 all.txt)" "BEGIN { printf \"%.3f\", m }")" &&
	test_kv "$MERGE" rate_login_min "$(awk -v m="$(head -n 1 all.txt)" "BEGIN { printf \"%.3f\", m }")"
'
test_expect 'the bursts: each host'"'"'s clients classified from the watch'"'"'s log, their releases side by side' '
	for h in 1 2; do
		env=$WATCH/hosts/load$h/data/load.env &&
		cls=$WATCH/raw/load-merge-load$h-burst-class.env &&
		test_kv "$cls" log yes &&
		test_kv "$cls" ok "$(sed -n "s/^burst_ok=//p" "$env")" &&
		test_kv "$cls" disagree 0 || return 1
	done &&
	test_kv "$MERGE" burst_hosts 2 &&
	test_kv "$MERGE" burst_ok "$((2 * BURST_CLIENTS))" &&
	r1=$(sed -n "s/^burst_release_target_wall_ns=//p" "$WATCH/hosts/load1/data/load.env") &&
	r2=$(sed -n "s/^burst_release_target_wall_ns=//p" "$WATCH/hosts/load2/data/load.env") &&
	apart=$(awk -v a="$r1" -v b="$r2" "BEGIN { d = a - b; if (d < 0) d = -d; printf \"%.3f\", d / 1e6 }") &&
	echo "releases $apart ms apart" &&
	test_kv "$MERGE" burst_releases_apart_ms "$apart" &&
	test_kv "$MERGE" burst_releases_wide "$(awk -v a="$apart" "BEGIN { print (a > 5) ? \"yes\" : \"no\" }")"
'
test_expect 'the report renders the merged figures by fig, a row per host' '
	(. "$KIT_DIR/lib/data.sh" && . "$KIT_DIR/lib/report/units.sh" &&
		fig lps logins/s "$(sed -n "s/^rate_logins_per_s=//p" "$MERGE")" && fig cpu ms "$(sed -n "s/^sshd_cpu_ms_per_login=//p" "$MERGE")" &&
		printf "%s\n%s\n" "$lps" "$cpu") >figs &&
	# Under load the burst of one host can end after the loop of the other: no
	# common window, and no rate, which the row then says ("-").
	if [ "$(sed -n 1p figs)" = - ]; then
		test_kv "$MERGE" rate_overlap_s 0.000 &&
		test_grep -E "^\| logins/s of the closed loops, all hosts, in their common window of 0(\.0)? s \| - \|$" "$WATCH/load-report.md" &&
		test_grep -F "closed loops did not run at the same time (no common window)" "$WATCH/load-report.md"
	else
		test_grep -F "| $(sed -n 1p figs) logins/s |" "$WATCH/load-report.md"
	fi &&
	test_grep -F "| $(sed -n 2p figs) ms |" "$WATCH/load-report.md" &&
	test_grep -F "| load1 | $LOAD_ADDR | ok " "$WATCH/load-report.md" &&
	test_grep -F "| load2 | $LOAD_ADDR2 | ok " "$WATCH/load-report.md"
'

# planted COPY: a copy of the merged watch folder, to plant a fault in.
planted () {
	rm -rf "${TEST_TMP:?}/$1" && cp -R "$WATCH" "$TEST_TMP/$1"
}
# load2's release is moved to 20 ms after the later of the two: the real
# releases can themselves be that far apart (18.6 ms once, load2 first,
# beside two other lanes), and 20 ms after load2's own was then 1.4 ms
# from load1's.
test_expect 'planted: a host'"'"'s burst released 20 ms later is flagged, a login missing from sshd'"'"'s log is found' '
	planted late &&
	env=$TEST_TMP/late/hosts/load2/data/load.env &&
	r1=$(sed -n "s/^burst_release_target_wall_ns=//p" "$TEST_TMP/late/hosts/load1/data/load.env" | tail -n 1) &&
	r2=$(sed -n "s/^burst_release_target_wall_ns=//p" "$env" | tail -n 1) &&
	printf "burst_release_target_wall_ns=%s\n" "$(( (r1 > r2 ? r1 : r2) + 20000000 ))" >>"$env" &&
	awk -v a="from $LOAD_ADDR2 port " "!done && index(\$0, a) && /Accepted publickey/ { done = 1; next } { print }" \
		"$WATCH/raw/watch-server.log" >"$TEST_TMP/late/raw/watch-server.log" &&
	(. "$KIT_DIR/lib/data.sh" && tsv_select "$WATCH/raw/watch-sources.tsv" address accepted) |
		awk -F"\t" -v a="$LOAD_ADDR2" "\$1 == a { \$2 = \$2 - 1 } { print }" OFS="\t" >fixed &&
	{ head -n 1 "$WATCH/raw/watch-sources.tsv" | cut -f1,2; cat fixed; } >"$TEST_TMP/late/raw/watch-sources.tsv" &&
	"$KIT_DIR/test-ssh.sh" --load-merge "$TEST_TMP/late" >/dev/null &&
	test_kv "$TEST_TMP/late/data/load-merge.env" burst_releases_wide yes &&
	test_grep "more than 5 ms" "$TEST_TMP/late/load-report.md" &&
	test_kv "$TEST_TMP/late/data/load-merge.env" logins_agree no &&
	test_grep "a host disagrees" "$TEST_TMP/late/load-report.md"
'
test_expect 'planted: a host whose run failed makes the report partial, exit 1, the other host kept' '
	planted failed &&
	printf "status=FAIL\nreason=planted\n" >>"$TEST_TMP/failed/hosts/load1/data/load.env" &&
	rc=0 && "$KIT_DIR/test-ssh.sh" --load-merge "$TEST_TMP/failed" >/dev/null || rc=$? &&
	test_eq "$rc" 1 &&
	test_kv "$TEST_TMP/failed/data/load-merge.env" status partial &&
	test_grep "^reason=load1: FAIL planted" "$TEST_TMP/failed/data/load-merge.env" &&
	test_grep -F "| load2 | $LOAD_ADDR2 | ok " "$TEST_TMP/failed/load-report.md"
'
test_expect 'planted: a load host that did not run (failed.env only) gets a NOT_RUN row, exit 1, the others'"'"' figures as before' '
	planted lost &&
	mkdir "$TEST_TMP/lost/hosts/lost" &&
	printf "reason=unreachable: ssh: connect to host 198.18.9.9 port 22: No route to host\ntask=Run the load\naddress=198.18.9.9\n" \
		>"$TEST_TMP/lost/hosts/lost/failed.env" &&
	rc=0 && "$KIT_DIR/test-ssh.sh" --load-merge "$TEST_TMP/lost" >/dev/null || rc=$? &&
	test_eq "$rc" 1 &&
	env=$TEST_TMP/lost/data/load-merge.env &&
	test_kv "$env" status partial &&
	test_kv "$env" hosts_failed lost &&
	test_kv "$env" hosts_failed_n 1 &&
	test_kv "$env" hosts_n 3 &&
	test_kv "$MERGE" hosts_failed "" &&
	awk -F"\t" "\$1 == \"lost\"" "$TEST_TMP/lost/raw/load-merge-hosts.tsv" >row &&
	test_eq "$(cut -f1-3 row)" "lost	198.18.9.9	NOT_RUN" &&
	test_eq "$(cut -f4- row | tr "\t" "\n" | sort -u)" "-" &&
	test_grep -F -- "- lost did not complete: unreachable: ssh: connect to host 198.18.9.9 port 22: No route to host (task: Run the load)" \
		"$TEST_TMP/lost/load-report.md" &&
	test_grep -F "| lost | 198.18.9.9 | NOT_RUN " "$TEST_TMP/lost/load-report.md" &&
	keys="^(logins_|load_|window_covers|burst_|concurrent_alive|sshd_cpu_ms_per_login|rate_|login_total_)" &&
	grep -E "$keys" "$MERGE" >before.env && grep -E "$keys" "$env" >after.env &&
	test_grep "^rate_logins_per_s=" after.env &&
	test_cmp before.env after.env &&
	grep -v "^lost	" "$WATCH/raw/load-merge-hosts.tsv" >before.tsv &&
	grep -v "^lost	" "$TEST_TMP/lost/raw/load-merge-hosts.tsv" >after.tsv &&
	test_cmp before.tsv after.tsv
'

# undeclared FILE SECTION: the keys of FILE that docs/data.md does not
# declare in its SECTION.
undeclared () {
	awk -v s="### $2" "\$0 == s { on = 1 } on && /^\`\`\`keys\$/ { getline; print; exit }" "$KIT_DIR/docs/data.md" | tr " " "\n" | sort >declared.txt &&
	{ [ -s declared.txt ] || { echo "docs/data.md declares no key of $2"; return 1; }; } &&
	cut -d= -f1 "$1" | sort -u | comm -23 - declared.txt
}
test_expect 'data/watch.env and data/load-merge.env hold only keys docs/data.md declares' '
	test_eq "$(undeclared "$WATCH/data/watch.env" data/watch.env)" "" &&
	test_eq "$(undeclared "$MERGE" data/load-merge.env)" "" &&
	test_eq "$(undeclared "$TEST_TMP/lost/data/load-merge.env" data/load-merge.env)" "" &&
	test_eq "$(undeclared "$TEST_TMP/allfailed/data/load-merge.env" data/load-merge.env)" ""
'

test_expect 'cleanup leaves the host as before' '
	"$KIT_DIR/start-ssh.sh" -q cleanup &&
	host_unchanged && no_kit_processes && [ ! -d "$STATE_DIR" ]
'
test_expect 'the test removes its namespaces: the host'"'"'s network as before the test' '
	ip netns del "$NS2" && { ip link del "$DEV2" 2>/dev/null || :; } &&
	load_host_gone "$NS" "$DEV"
'

test_done
