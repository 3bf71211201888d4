#!/usr/bin/env bash
# Whose time a login is (docs/metrics.md, "Whose time"), checked with
# delays put on one side on purpose (tests/lib/delay.sh): a sleep in sshd
# (an AuthorizedKeysCommand) shows in sshd's turns and not the client's; a
# sleep in the client (a KnownHostsCommand between two of its packets, a
# wrapper that holds its first packet) in the client's and not sshd's. The
# delay is the difference between logins with and without it, interleaved,
# on one test server. The TCP waits found are Nagle's: a client with
# TCP_NODELAY from its first packet has none of its own, and each lasts a
# delayed ACK. The parts of every
# login add up to its total; the login test writes them and the report
# shows them. On this host, as root, with the real sshd and ssh.
. "$(dirname "$0")/lib/harness.sh"
. "$TEST_DIR/lib/snapshot.sh"
. "$TEST_DIR/lib/delay.sh"
. "$TEST_DIR/lib/whose.sh"
# shellcheck source=lib/data.sh
. "$KIT_DIR/lib/data.sh"

host_kit_test 'whose time'
export LOGIN_SAMPLES=10 RESULTS_DIR="$TEST_TMP/results"
mkdir -p "$RESULTS_DIR"
test_atexit '"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null 2>&1'
host_snapshot_save
delay_fixture_or_stop

H=$KIT_DIR/build
# Logins per series.
N=10
export H N

# timed NAME CMD...: N logins of CMD timed by sshperf-login while
# sshperf-capture records their packets (with EACH set, one sshperf-login
# per login, the function EACH called with the login's number before it); $TEST_TMP/NAME-whose.tsv has one
# row per ok login: sample, total, each part (server client tcp_wait),
# their sum (parts), each phase (kex: its time from ssh -v) and its parts
# (kex_server ...), in ms.
timed () {
	local name=$1 out=$TEST_TMP/$1 pid end
	shift
	"$H/sshperf-capture" record -p "$TEST_PORT" -i lo -d 120 -o "$out-packets.tsv" >/dev/null 2>"$out-capture.err" &
	pid=$!
	end=$((SECONDS + 5))
	until [ -s "$out-packets.tsv" ]; do
		if ! kill -0 "$pid" 2>/dev/null || [ "$SECONDS" -ge "$end" ]; then
			echo "$name: the capture did not start: $(cat "$out-capture.err")"
			return 1
		fi
		sleep 0.01
	done
	if [ -z "${EACH:-}" ]; then
		"$H/sshperf-login" -H -n "$N" -t 10 -- "$@" >"$out-logins.tsv" 2>"$out-login.err" || true
	else
		for i in $(seq "$N"); do
			"$EACH" "$i"
			"$H/sshperf-login" -H -n 1 -t 10 -- "$@" >"$out-one.tsv" 2>>"$out-login.err" || true
			[ "$i" -gt 1 ] || head -n 1 "$out-one.tsv" >"$out-logins.tsv"
			awk -F'\t' -v OFS='\t' -v i="$i" 'NR == 1 { for (k = 1; k <= NF; k++) if ($k == "sample") c = k; next } { $c = i; print }' \
				"$out-one.tsv" >>"$out-logins.tsv"
		done
	fi
	kill "$pid"
	wait "$pid" || true
	"$H/sshperf-capture" turns -p "$TEST_PORT" "$out-packets.tsv" "$out-logins.tsv" >"$out-parts.tsv" || return 1
	awk -F'\t' '
		BEGIN { split("connect greeting kex auth session", ph, " ") }
		FNR == 1 { for (i = 1; i <= NF; i++) c[FILENAME, $i] = i; next }
		FILENAME ~ /logins/ {
			if ($c[FILENAME, "status"] != "ok") next
			s = $c[FILENAME, "sample"]; total[s] = $c[FILENAME, "total_ms"]
			for (i = 1; i <= 5; i++) v[s, ph[i]] = $c[FILENAME, ph[i] "_ms"]
			next
		}
		{
			s = $c[FILENAME, "sample"]; w = $c[FILENAME, "whose"]; ms = $c[FILENAME, "ms"]
			v[s, w] += ms; v[s, $c[FILENAME, "phase"] "_" w] += ms; v[s, "parts"] += ms
		}
		END {
			k = split("server client tcp_wait parts", col, " ")
			for (i = 1; i <= 5; i++) { col[++k] = ph[i]; col[++k] = ph[i] "_server"; col[++k] = ph[i] "_client"; col[++k] = ph[i] "_tcp_wait" }
			line = "sample\ttotal"
			for (j = 1; j <= k; j++) line = line "\t" col[j]
			print line
			for (s in total) {
				line = s "\t" total[s]
				for (j = 1; j <= k; j++) line = line sprintf("\t%.3f", v[s, col[j]])
				print line
			}
		}' "$out-logins.tsv" "$out-parts.tsv" >"$out-whose.tsv"
	ok=$(($(wc -l <"$out-whose.tsv") - 1))
	[ "$ok" -eq "$N" ] || { echo "$name: $ok of $N logins ok"; cat "$out-login.err"; return 1; }
}

# pooled NAME...: the rows of the series NAME... under one header, on stdout.
pooled () {
	local f first=yes
	for f in "$@"; do
		if [ "$first" = yes ]; then cat "$TEST_TMP/$f-whose.tsv"; first=no; else sed 1d "$TEST_TMP/$f-whose.tsv"; fi
	done
}

# p50 FILE COLUMN
p50 () {
	"$H/sshperf-summary" -c "$2" -p x_ "$1" | sed -n 's/^x_p50=//p'
}

# The kit's own login (word-split where it is used).
SSH_CMD="ssh -v -F $CLIENT_CONFIG $HOST_ALIAS true"
export SSH_CMD

# alternating NAME SIDE MS EVERY CMD...: N logins of CMD, SIDE's delay 0
# for the odd ones and MS (every EVERY-th run of the program, delay_set)
# for the even ones, so both sets see the same host; the rows of each set
# in $TEST_TMP/NAME-off.tsv and NAME-on.tsv, but for its slowest
# (alt_set). $TEST_TMP/NAME-runs holds the
# program's runs per login with the delay on, NAME-delay the ms per login
# it held its caller up more with the delay on than off (sleep's own
# start and wake-up included).
alternating () {
	local name=$1
	ALT_SIDE=$2 ALT_MS=$3 ALT_EVERY=$4 ALT_LOG=$TEST_TMP/$1-alt
	shift 4
	: >"$ALT_LOG"
	EACH=alt_each timed "$name" "$@" || return 1
	alt_each end
	delay_set "$ALT_SIDE" 0
	alt_set 1 "$name-whose" "$name-off"
	alt_set 0 "$name-whose" "$name-on"
	awk -v runs="$TEST_TMP/$name-runs" -v delay="$TEST_TMP/$name-delay" '
		FNR == 1 { f++ }
		f < 3 { if (FNR > 1) keep[$1] = 1; next }
		{ m++; i[m] = $1; t[m] = $2; r[m] = $3 }
		END {
			for (k = 1; k < m; k++) {
				if (!(i[k] in keep)) continue
				on = i[k] % 2 == 0
				d[on] += t[k + 1] - t[k]; n[on]++
				if (on) runs_on += r[k + 1] - r[k]
			}
			printf "%.2f\n", runs_on / n[1] >runs
			printf "%.1f\n", d[1] / n[1] - d[0] / n[0] >delay
		}' "$TEST_TMP/$name-off.tsv" "$TEST_TMP/$name-on.tsv" "$ALT_LOG"
}

# alt_set ODD FROM TO: the logins of one set of alternating (odd numbers
# when ODD is 1) of $TEST_TMP/FROM.tsv into $TEST_TMP/TO.tsv, but for its
# ALT_TRIM (2) slowest by total. A login stalled by the host moves a mean
# of 12 by itself (seen beside two other test files: one set's mean kex
# 500 ms longer than the other's); leaving the same logins out of every
# column keeps the parts adding up, and the program's own clock
# (NAME-delay) counts the same logins.
alt_set () {
	{
		head -n 1 "$TEST_TMP/$2.tsv"
		awk -F'\t' -v odd="$1" 'NR > 1 && $1 % 2 == odd' "$TEST_TMP/$2.tsv" |
			sort -t "$(printf '\t')" -k2,2g | head -n "-${ALT_TRIM:-2}"
	} >"$TEST_TMP/$3.tsv"
}

# alt_each I: before login I (end: after the last) of alternating.
alt_each () {
	if [ "$1" != end ] && [ $(($1 % 2)) -eq 0 ]; then
		delay_set "$ALT_SIDE" "$ALT_MS" "$ALT_EVERY"
	else
		delay_set "$ALT_SIDE" 0
	fi
	printf '%s\t%s\t%s\n' "$1" "$(delay_spent "$ALT_SIDE")" "$(delay_runs "$ALT_SIDE")" >>"$ALT_LOG"
}

# added NAME PART: what the delay added to PART, as the median over the
# logins with the delay of PART minus that of their neighbours without it
# (the mean of the two, or the one left after alt_set). The two sets
# alternate login by login, so a neighbour met the same load: a burst of
# another test lane that slows a few logins in a row moves a pair's both
# ends, and a pair it spoils still moves a median little. (Means of the
# two sets did not do: beside t58, 30 ms in the client's kex came out as
# -8.3 ms of kex.) A pair's parts add up to its phase; the medians of
# the parts need not quite, which found's tolerances allow for.
added () {
	awk -F'\t' -v col="$2" '
		FNR == 1 { f++; for (i = 1; i <= NF; i++) { if ($i == col) c = i; if ($i == "sample") s = i }; next }
		f == 1 { on[$s] = $c; next }
		{ off[$s] = $c }
		END {
			for (k in on) {
				a = (k - 1) in off; b = (k + 1) in off
				if (a && b) d[++n] = on[k] - (off[k - 1] + off[k + 1]) / 2
				else if (a) d[++n] = on[k] - off[k - 1]
				else if (b) d[++n] = on[k] - off[k + 1]
			}
			for (i = 2; i <= n; i++) for (j = i; j > 1 && d[j - 1] > d[j]; j--) { t = d[j]; d[j] = d[j - 1]; d[j - 1] = t }
			printf "%.1f\n", n == 0 ? 0 : (n % 2 ? d[(n + 1) / 2] : (d[n / 2] + d[n / 2 + 1]) / 2)
		}' "$TEST_TMP/$1-on.tsv" "$TEST_TMP/$1-off.tsv"
}

test_expect 'the test server starts, sshd running the delay program for every key it checks' '
	SSHD_OPTIONS=$DELAY_SSHD_OPTIONS "$KIT_DIR/start-ssh.sh" -q >/dev/null &&
	runs=$(delay_runs server) &&
	[ "$runs" -ge 1 ] || { echo "the delay program ran $runs times during the start'"'"'s login check"; false; }
'

# With and without the delay alternate login by login (24 logins). What a
# delay adds is what its phase grew (ssh -v's clock, not the packets'): on
# a busy host the login grows by more than the program's own clock says
# (sshd resuming after the sleep), so that figure only shows the delay
# landed. The comparisons are made in the phase the delay falls in: the other phases'"'"'
# turns vary by more than 5 ms between two sets of 12 logins on a
# busy host, which says nothing about whose the delay is. The whole
# login'"'"'s parts are shown too.
# shows NAME PHASE: what a delay added, whole login and PHASE, for the message.
shows () {
	printf 'ran %s times per login, %s ms added per login by its own clock; whole login: sshd %+.1f, client %+.1f, TCP waits %+.1f, total %+.1f ms; %s: %+.1f ms (ssh -v), sshd %+.1f, client %+.1f, TCP waits %+.1f ms\n' \
		"$(cat "$TEST_TMP/$1-runs")" "$(cat "$TEST_TMP/$1-delay")" "$(added "$1" server)" "$(added "$1" client)" \
		"$(added "$1" tcp_wait)" "$(added "$1" total)" "$2" "$(added "$1" "$2")" "$(added "$1" "$2_server")" \
		"$(added "$1" "$2_client")" "$(added "$1" "$2_tcp_wait")"
}

# diff_se NAME PART: a tolerance for added NAME PART: the standard error
# of the difference of the two sets' means (Welch's, from their standard
# deviations), which the median of the pairs is no less steady than.
diff_se () {
	awk -F'\t' -v col="$2" '
		FNR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; f++; next }
		{ n[f]++; s[f] += $c; q[f] += $c * $c }
		END {
			for (k = 1; k <= 2; k++) { m = s[k] / n[k]; v[k] = n[k] > 1 ? (q[k] - n[k] * m * m) / (n[k] - 1) : 0 }
			printf "%.3f\n", sqrt(v[1] / n[1] + v[2] / n[2])
		}' "$TEST_TMP/$1-on.tsv" "$TEST_TMP/$1-off.tsv"
}

# found NAME PHASE SIDE OTHER: the delay landed (PHASE grew by at least half
# the program's own figure); OTHER's turns in PHASE grew by less than 5 ms,
# or, on a host busy enough that 12 logins a set move them more, less
# than three standard errors of that difference (diff_se), and never as
# much as half the delay; and SIDE's by at least half the delay. OTHER's
# turns may shrink, by no more than the delay: work OTHER does after its
# last packet (sshd after its key exchange reply) counts in its next turn
# when the answer comes at once, and is done within the pause when the
# answer waits (beside t58 on 2 cores, sshd's kex turns -8.5 ms for a
# 30 ms sleep in the client). A delay put on the wrong side would show
# as growth, which stays bounded. (A
# second test lane beside this one once moved sshd's kex turns by
# -8.3 ms between the sets of a client-side delay.) A phase's parts add up to it
# (added), so the rest of what it grew is its TCP waits: a pause can make
# a Nagle wait (SIDE's next small segment, sent while its last one is not
# yet acknowledged, waits for the peer's delayed ACK), which is neither
# side's work. Seen beside a busy loop on a slow VM: the client's kex
# turns +26.3 ms and the kex's TCP waits +8.1 ms of a kex that grew
# 36.3 ms; asking SIDE's turns for all of it failed there.
found () {
	local grew side d other tol
	grew=$(added "$1" "$2")
	d=$(cat "$TEST_TMP/$1-delay")
	awk -v g="$grew" -v d="$d" 'BEGIN { exit !(g >= d / 2) }' ||
		{ echo "$2 grew $grew ms, not even half the delay"; return 1; }
	other=$(added "$1" "$2_$4")
	tol=$(awk -v se="$(diff_se "$1" "$2_$4")" -v d="$d" 'BEGIN { t = 3 * se; if (t > d / 2) t = d / 2; if (t < 4.999) t = 4.999; printf "%.3f\n", t }')
	awk -v o="$other" -v t="$tol" -v d="$d" 'BEGIN { exit !(o <= t && o >= -d) }' ||
		{ echo "$4's turns in $2 grew $other ms: expected at most +$tol, and no less than -$d (the delay)"; return 1; }
	side=$(added "$1" "$2_$3")
	awk -v s="$side" -v d="$d" 'BEGIN { exit !(s >= d / 2) }' ||
		{ echo "$3's turns in $2 grew $side ms, not even half the delay"; return 1; }
}

# sshd checks the key twice a login (its query, then its signature); the
# first check of each login sleeps. Every delay of this file is 150 ms:
# on a busy host (load 8-20 beside make stress-unit and other test
# files) the pairs of logins move by tens of ms in the phases with CPU
# work, and a 50 ms sleep in auth came out as +15.5 ms once, a 30 ms
# sleep in the kex as +8.5 and +4.9 ms, a 30 ms hold of the first packet
# as +22.9 ms of connect: too close to half the delay.
test_expect 'a 150 ms sleep in sshd (AuthorizedKeysCommand) goes to sshd'"'"'s turns, not the client'"'"'s' '
	N=24 alternating akc server 150 2 $SSH_CMD &&
	shows akc auth &&
	test_eq "$(cat "$TEST_TMP/akc-runs")" 2.00 &&
	found akc auth server client
'

# ssh runs its KnownHostsCommand twice a login: first to order its host key
# algorithms (%I is ORDER), before its own KEXINIT, then to check the
# host key (HOSTNAME), between the server's key exchange reply and its own
# NEWKEYS. Only the check sleeps: sshd waits for the client's answer
# there, while a sleep in the first run can pass unseen while sshd is
# still starting its key exchange (a busy host: beside t58, the kex grew
# by -19 to +4 ms for 30 ms). The side names the run (client-%I), so the
# count of runs is per reason. (A LocalCommand would not do: it runs
# while Nagle holds the client's last packet for a delayed ACK, which
# hides it.)
test_expect 'a 150 ms sleep in the client'"'"'s key exchange (KnownHostsCommand) goes to the client'"'"'s turns' '
	N=24 alternating khc client-HOSTNAME 150 1 ssh -v -F "$CLIENT_CONFIG" -o "KnownHostsCommand=$DELAY_PROGRAM client-%I" "$HOST_ALIAS" true &&
	shows khc kex &&
	test_eq "$(cat "$TEST_TMP/khc-runs")" 1.00 &&
	found khc kex client server
'

test_expect 'a client whose first packet is held 150 ms: 150 ms more of the client'"'"'s turns' '
	N=24 alternating wrap start 150 1 "$DELAY_PROGRAM" start -- $SSH_CMD &&
	shows wrap connect &&
	test_eq "$(cat "$TEST_TMP/wrap-runs")" 1.00 &&
	found wrap connect client server
'

test_expect 'the parts of every login add up to its total (the rest within 2 %)' '
	for f in "$TEST_TMP"/*-whose.tsv; do
		tsv_select "$f" sample parts total | awk -v f="${f##*/}" "{ d = \$3 - \$2; if (d < 0) d = -d
			if (d > 0.02 * \$3) { printf \"%s login %s: parts %s ms, total %s ms\\n\", f, \$1, \$2, \$3; bad = 1 } }
			END { exit bad }" || return 1
	done
'

# Nagle holds a small segment while the sender has data unacknowledged.
# ssh and sshd set TCP_NODELAY only once the session starts; a client with
# it from its first packet (tests/lib/nodelay.c, preloaded into ssh; sshd
# untouched) no longer waits where the client held its data (after its
# NEWKEYS), while sshd'"'"'s own wait (in the session phase here) stays.
# Each wait lasts one delayed ACK: 40 ms at least on Linux
# (TCP_DELACK_MIN), a few ms more for the timer'"'"'s tick.
test_expect 'TCP waits are Nagle'"'"'s: the client'"'"'s go once it sets TCP_NODELAY, each lasts a delayed ACK' '
	cc -std=c11 -Wall -Wextra -shared -fPIC -o "$TEST_TMP/nodelay.so" "$TEST_DIR/lib/nodelay.c" -ldl &&
	for r in 1 2; do
		timed nagle-$r $SSH_CMD && LD_PRELOAD=$TEST_TMP/nodelay.so timed nodelay-$r $SSH_CMD || return 1
	done &&
	pooled nagle-1 nagle-2 >"$TEST_TMP/nagle.tsv" && pooled nodelay-1 nodelay-2 >"$TEST_TMP/nodelay.tsv" &&
	for f in nagle nodelay; do
		for p in kex auth session; do printf "%s %s %s\n" "$f" "$p" "$(p50 "$TEST_TMP/$f.tsv" "${p}_tcp_wait")"; done
	done >"$TEST_TMP/waits" &&
	echo "p50 TCP waits per phase:" && cat "$TEST_TMP/waits" &&
	echo "login p50 $(p50 "$TEST_TMP/nagle.tsv" total) ms, with TCP_NODELAY in ssh $(p50 "$TEST_TMP/nodelay.tsv" total) ms" &&
	awk "{ w[\$1, \$2] = \$3 }
		\$3 > 2 && (\$3 < 38 || \$3 > 50) { print \"a wait of \" \$3 \" ms is no delayed ACK\"; bad = 1 }
		END {
			if (w[\"nagle\", \"auth\"] < 38) { print \"no wait after the client'"'"'s NEWKEYS\"; bad = 1 }
			if (w[\"nodelay\", \"auth\"] >= 2) { print \"the client'"'"'s wait stays with TCP_NODELAY\"; bad = 1 }
			if ((w[\"nagle\", \"session\"] >= 38) != (w[\"nodelay\", \"session\"] >= 38)) { print \"sshd'"'"'s wait changed with the client'"'"'s TCP_NODELAY\"; bad = 1 }
			exit bad
		}" "$TEST_TMP/waits"
'

# Every ok login is split, the staged ones too: with a target far above
# any login the p95's interval holds it (20 logins give it no upper
# bound), so 5 logins take the second stage of stage_plan, 15 more,
# captured as the first were; the parts of each
# add up to its total within 2 %, and the waterfall of the median login
# is drawn and linked. sshd's padding of the key's two requests is found
# in every login.
test_expect 'test-ssh.sh login: every login split, the staged ones too, adding up; the report and its waterfall' '
	{ LOGIN_SAMPLES=5 TARGET_LOGIN_P95_MS=600000 "$KIT_DIR/test-ssh.sh" login >"$TEST_TMP/run.out" 2>&1 || true; } &&
	run=$(dirname "$(tail -n 1 "$TEST_TMP/run.out")") &&
	env=$run/data/login.env &&
	test_kv "$env" timeline yes &&
	n=$(sed -n "s/^total_n=//p" "$env" | tail -n 1) && ok=$(sed -n "s/^ok=//p" "$env" | tail -n 1) &&
	test_kv "$env" stages 2 &&
	test_eq "$n" 20 && test_eq "$ok" 20 &&
	for k in server client tcp_wait rest; do test_kv "$env" "${k}_n" "$n" || return 1; done &&
	whose_adds_up "$run" login login-samples.tsv "$n" &&
	test_kv "$env" whose_mismatched 0 &&
	test_grep ! "^whose_note=" "$env" &&
	test_grep "^| the rest (no packet shows whose) |" "$run/report.md" &&
	test_grep "sshd.s turns in authentication hold a wait of its own: it finishes no authentication request sooner than" "$run/report.md" &&
	# sshd pads the key query and the signed request to at least 5 ms
	# each (auth2.c): every key login shows the pair, 10 ms or more.
	test_kv "$env" pad_n "$n" &&
	p=$(sed -n "s/^pad_pair_p50=//p" "$env") &&
	{ awk -v p="$p" "BEGIN { exit !(p != \"\" && p >= 10) }" || { echo "query to success p50: ${p:-none} ms"; false; }; } &&
	test_grep "^\*\*sshd.s padding\.\*\* A key login.s last two requests" "$run/report.md" &&
	test -s "$run/charts/login-waterfall.svg" &&
	test_grep -F "](charts/login-waterfall.svg)" "$run/report.md"
'

test_expect 'the host is as before after cleanup' '
	"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null &&
	host_unchanged
'

test_done
