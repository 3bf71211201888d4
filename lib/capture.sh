# shellcheck shell=bash
# The login timeline: sshperf-capture records the test port's packets on
# lo while a test's timed logins run, then splits each login into the
# server's turns, the client's turns and TCP waits (docs/metrics.md,
# "Whose time"). The capture runs only between capture_start and
# capture_stop, around the logins; if it cannot run (no packet socket),
# the test goes on without a timeline and says why.
#
#   capture_start NAME SECONDS [PACKETS]
#                               raw/NAME-packets.tsv (or PACKETS); false,
#                               with the reason in CAPTURE_NOTE, when it
#                               cannot
#   capture_stop                ends it: TERM to its recorded pid, KILL
#                               after 5 s (lib/server.sh end_pids)
#   capture_parts NAME LOGINS   raw/NAME-parts.tsv (one row per login,
#                               phase and part) from the packets and the
#                               sshperf-login table LOGINS; false, with
#                               CAPTURE_NOTE, when they do not match
#   capture_whose NAME TEST LOGINS yes|no
#                               capture_parts and capture_summary for a
#                               test's logins, the keys timeline and
#                               timeline_note
#   capture_login_append TABLE SAMPLE
#                               one sshperf-login -H table on stdin added
#                               to TABLE, for logins timed one at a time
#   capture_mismatched NAME     the logins of raw/NAME-whose.tsv whose
#                               parts miss their total by more than 2 %
#   capture_check NAME TEST [PREFIX]
#                               capture_mismatched as TEST's key
#                               PREFIX_whose_mismatched, and a warning
#                               when it is not 0
#   capture_stage NAME SECONDS CMD...
#                               CMD (more logins, which it appends to the
#                               test's login table) with the capture on,
#                               its packets added to raw/NAME-packets.tsv;
#                               false, with CAPTURE_NOTE, when the capture
#                               could not run (CMD runs all the same)

CAPTURE_PID=""
CAPTURE_NOTE=""

capture_start () {
	local name=$1 seconds=$2 out=${3:-$RAW_DIR/$1-packets.tsv} end
	CAPTURE_NOTE=""
	# A later stage's capture adds its counts (the last value wins).
	[ -n "${3:-}" ] || : >"$RAW_DIR/$name-capture.env"
	"$HELPER_DIR/sshperf-capture" record -p "${SETTING[TEST_PORT]}" -i lo -d "$seconds" \
		-o "$out" >>"$RAW_DIR/$name-capture.env" 2>>"$RAW_DIR/$name-capture-errors.txt" &
	CAPTURE_PID=$!
	at_exit capture_stop
	# It writes the header once its socket is open.
	end=$(( $(date +%s) + 5 ))
	until [ -s "$out" ]; do
		if ! kill -0 "$CAPTURE_PID" 2>/dev/null || [ "$(date +%s)" -ge "$end" ]; then
			at_exit_pop
			CAPTURE_NOTE="the packet capture did not start: $(tail -n 1 "$RAW_DIR/$name-capture-errors.txt")"
			CAPTURE_NOTE=${CAPTURE_NOTE%: }
			return 1
		fi
		sleep 0.01
	done
}

capture_stop () {
	[ -n "$CAPTURE_PID" ] || return 0
	end_pids 5 "$CAPTURE_PID"
	wait "$CAPTURE_PID" 2>/dev/null || true
	CAPTURE_PID=""
}

# A table of parts already there (an earlier stage's) stays when the new
# one cannot be made.
capture_parts () {
	local name=$1 logins=$2 out="$RAW_DIR/$1-parts.tsv" lost
	# Packets the kernel could not queue for the recorder (its dropped=,
	# this stage's) would leave turns out: no timeline from a part.
	lost=$(kv_get "$RAW_DIR/$name-capture.env" dropped)
	if [ "${lost:-0}" != 0 ]; then
		CAPTURE_NOTE="the kernel dropped $lost of the test port's packets before the recorder read them; no timeline from a partial capture"
		return 1
	fi
	if ! "$HELPER_DIR/sshperf-capture" turns -p "${SETTING[TEST_PORT]}" "$RAW_DIR/$name-packets.tsv" "$logins" \
		>"$out.tmp" 2>>"$RAW_DIR/$name-capture-errors.txt"; then
		CAPTURE_NOTE="the packets could not be matched to the logins: $(tail -n 1 "$RAW_DIR/$name-capture-errors.txt")"
		rm -f "$out.tmp"
		return 1
	fi
	mv -f "$out.tmp" "$out"
}

# capture_stage NAME SECONDS CMD...: a later stage of a test's logins
# (lib/metrics/login.sh, auth.sh: more logins while the p95's interval
# holds the target), captured as the first were: CMD runs with a capture
# of its own, whose packets are then added to raw/NAME-packets.tsv, so
# that the packets and the login table again hold the same logins and
# capture_parts can split all of them.
capture_stage () {
	local name=$1 seconds=$2 tmp="$TMPDIR/$1-stage-packets.tsv" captured=yes
	shift 2
	rm -f "$tmp"
	capture_start "$name" "$seconds" "$tmp" || captured=no
	"$@"
	if [ "$captured" = yes ]; then
		at_exit_pop
		tail -n +2 "$tmp" >>"$RAW_DIR/$name-packets.tsv"
	fi
	rm -f "$tmp"
	[ "$captured" = yes ]
}

# The columns of raw/NAME-whose.tsv (docs/data.md): each part over the
# whole login, then phase by phase, then their sum, the login's total as
# sshperf-login timed it, and the rest: the part of that total that no
# packet gave to a side (total - sum; rounding, or a login whose end the
# packets did not show).
CAPTURE_WHOSE_COLUMNS="sample server_ms client_ms tcp_wait_ms connect_server_ms connect_client_ms connect_tcp_wait_ms greeting_server_ms greeting_client_ms greeting_tcp_wait_ms kex_server_ms kex_client_ms kex_tcp_wait_ms auth_server_ms auth_client_ms auth_tcp_wait_ms session_server_ms session_client_ms session_tcp_wait_ms parts_ms total_ms rest_ms"

# capture_summary NAME TEST LOGINS [PREFIX]: the p50 and p95 over the
# logins of each part of a whole login (server, client, tcp_wait, rest)
# and of each phase's parts (kex_server ...), as keys PREFIX_PART_p50 ...
# of the test's data file (docs/data.md, "Whose time"), from
# raw/NAME-parts.tsv and the sshperf-login table LOGINS through
# raw/NAME-whose.tsv (one row per login).
capture_summary () {
	local name=$1 test=$2 logins=$3 prefix=${4:+$4_} whose="$RAW_DIR/$1-whose.tsv" col
	tsv_header "$CAPTURE_WHOSE_COLUMNS" >"$whose"
	awk -F'\t' -v cols="$CAPTURE_WHOSE_COLUMNS" -v logins="$logins" '
		FNR == 1 { delete c; for (i = 1; i <= NF; i++) c[$i] = i; next }
		FILENAME == logins { total[$c["sample"]] = $c["total_ms"]; next }
		{
			s = $c["sample"]
			if (!(s in seen)) { seen[s] = 1; order[++n] = s }
			v[s, $c["whose"] "_ms"] += $c["ms"]
			v[s, $c["phase"] "_" $c["whose"] "_ms"] += $c["ms"]
			v[s, "parts_ms"] += $c["ms"]
		}
		END {
			k = split(cols, name, " ")
			for (i = 1; i <= n; i++) {
				s = order[i]; line = s
				v[s, "total_ms"] = total[s]
				# Rounding of the 15 3-decimal cells is no rest; a
				# negative rest (parts longer than the login) stays,
				# and helper summary counts no such row.
				r = total[s] - v[s, "parts_ms"]
				v[s, "rest_ms"] = (r > -0.01 && r < 0.01) ? 0 : r
				for (j = 2; j <= k; j++) line = line sprintf("\t%.3f", v[s, name[j]])
				print line
			}
		}' "$logins" "$RAW_DIR/$name-parts.tsv" >>"$whose"
	for col in server client tcp_wait rest kex_server kex_client kex_tcp_wait auth_server auth_client auth_tcp_wait \
		session_server session_client session_tcp_wait; do
		helper summary -c "${col}_ms" -p "$prefix${col}_" "$whose" | grep -E "^$prefix${col}_(n|p50|p95)=" >>"$DATA_DIR/$test.env"
	done
	result_set "$test" "${prefix}tcp_waits" "$(tsv_select "$whose" tcp_wait_ms | awk '$1 > 0' | wc -l | tr -d ' ')"
}

# capture_whose NAME TEST LOGINS yes|no: whose time the logins of the
# sshperf-login table LOGINS were, when the capture ran over them (yes):
# raw/NAME-parts.tsv, raw/NAME-whose.tsv and TEST's keys of
# capture_summary. TEST's key timeline says whether there is one,
# timeline_note why not (CAPTURE_NOTE).
capture_whose () {
	local name=$1 test=$2 logins=$3 timeline=$4
	[ "$timeline" = no ] || capture_parts "$name" "$logins" || timeline=no
	result_set "$test" timeline "$timeline"
	if [ "$timeline" = yes ]; then
		capture_summary "$name" "$test" "$logins"
	else
		result_set "$test" timeline_note "$CAPTURE_NOTE"
	fi
}

# capture_login_append TABLE SAMPLE: the rows of the sshperf-login -H
# table on stdin added to TABLE (its header first when TABLE is empty),
# their sample set to SAMPLE: logins timed one sshperf-login at a time
# (startup's first logins, reload's tries) in one table for capture_parts.
capture_login_append () {
	local table=$1 head=yes
	[ ! -s "$table" ] || head=no
	awk -F'\t' -v OFS='\t' -v s="$2" -v head="$head" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == "sample") c = i; if (c && head == "yes") print; next }
		c { $c = s; print }' >>"$table"
}

# capture_mismatched NAME: how many logins of raw/NAME-whose.tsv do not
# add up: sshd's turns, the client's, the TCP waits and the rest more than
# 2 % away from the login's total, or a rest (what no packet gave to a
# side) over 2 % of it. The packets of such a login were not all seen, or
# were matched to the wrong login.
capture_mismatched () {
	tsv_select "$RAW_DIR/$1-whose.tsv" server_ms client_ms tcp_wait_ms rest_ms total_ms | awk -F'\t' '
		function abs(x) { return x < 0 ? -x : x }
		{ d = $1 + $2 + $3 + $4 - $5; if (abs(d) > 0.02 * $5 || abs($4) > 0.02 * $5) n++ }
		END { print n + 0 }'
}

# capture_check NAME TEST [PREFIX]: TEST's key PREFIX_whose_mismatched
# (capture_mismatched NAME), and a warning when a login does not add up.
capture_check () {
	local name=$1 test=$2 prefix=${3:+$3_} n
	n=$(capture_mismatched "$name")
	result_set "$test" "${prefix}whose_mismatched" "$n"
	[ "$n" -eq 0 ] ||
		result_warn "$test" "whose time${3:+ ($3)}: the parts of $n login(s) miss their total by more than 2 %; see raw/$name-whose.tsv"
}

# capture_levels NAME TEST [PREFIX]: whether sshd's turns in the
# authentication phase of raw/NAME-whose.tsv came at two levels, as
# sshd's padding makes them (capture_pad below: a request whose work
# takes about b x 2^k lands on that step or the next): TEST's keys
# PREFIX_auth_server_levels (1 or 2; - with fewer than 4 logins)
# and _low_n, _low_p50, _high_n, _high_p50 and _step_ms (empty unless
# 2; levels_of, lib/stats.sh).
capture_levels () {
	local name=$1 test=$2 prefix=${3:+$3_}
	tsv_select "$RAW_DIR/$name-whose.tsv" auth_server_ms | levels_of "${prefix}auth_server_" >>"$DATA_DIR/$test.env"
}

# capture_pad NAME TEST LOGINS: what sshd's padding of a key login's two
# requests took (auth2.c, ensure_minimum_time_since, every release the
# kit runs: each request other than "none" is finished no sooner than a
# base time b after it began, b doubled until it is past the request's
# work; b is 5 ms plus 0 to 4.3 ms from the user name, the host keys and
# the configuration text). From raw/NAME-packets.tsv (sshperf-capture
# pad, into raw/NAME-pad.tsv: the login test's raw/login-pad.tsv), per
# key login the key's query's work (query_ms) and the time from the query
# to sshd's success (pair_ms): b * 2^k + b * 2^j and sshd's work to
# accept the login, which is not padded. Keys of TEST: pad_n (key logins
# that showed the exchange), pad_query_p50, pad_pair_p50.
#
# b itself is not stated: checked against sshd's own log (LogLevel
# DEBUG3 prints it, "requested N ms") over ten configurations, the pair
# was 2 b plus 1.0 to 1.3 ms of that work, and 2 b + w = 3 b' + w' for
# every run whose logins all took the same doublings, so b and the work
# cannot be told apart from the packets of such a run.
capture_pad () {
	local name=$1 test=$2 logins=$3 out="$RAW_DIR/$1-pad.tsv"
	if ! "$HELPER_DIR/sshperf-capture" pad -p "${SETTING[TEST_PORT]}" "$RAW_DIR/$name-packets.tsv" "$logins" \
		>"$out.tmp" 2>>"$RAW_DIR/$name-capture-errors.txt"; then
		rm -f "$out.tmp"
		result_set "$test" pad_n 0
		return 0
	fi
	mv -f "$out.tmp" "$out"
	result_set "$test" pad_n "$(tsv_select "$out" pair_ms | grep -c '^[0-9][0-9.]*$' || true)"
	helper summary -c query_ms -p pad_query_ "$out" | grep -E '^pad_query_p50=' >>"$DATA_DIR/$test.env" || true
	helper summary -c pair_ms -p pad_pair_ "$out" | grep -E '^pad_pair_p50=' >>"$DATA_DIR/$test.env" || true
}
