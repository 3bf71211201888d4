# shellcheck shell=bash
# The test hosts at a distance and the wire between them and the test
# server (docs/metrics.md, "At your users' distance").
#
#   host namespace           WIRE_NS (the wire)             TESTHOST_NS
#   test server on P.1 --- veth --- P.2  [held] P.5 --- veth --- P.6
#   (WIRE_DEV_HOST)        (WIRE_DEV_RIN)      (WIRE_DEV_ROUT) (WIRE_DEV_CLIENT)
#                                                             sources P.129 ...
#
# P is the first /24 of NETWORK_RANGE. Every packet that crosses the wire
# arrives at WIRE_NS through a veth and is held there, in PREROUTING, by
# sshperf-wire: the one-way delay in each direction, on the receiving side,
# where it belongs to no socket any more. The rules, the rate limit and
# the forwarding are in the kit's own namespaces; in the host's namespace
# the kit adds only its own veth end, with its address and one route
# through it. Everything is recorded in MANIFEST and removed at cleanup.
#
# The wire fails closed: the rule has no --queue-bypass, so when
# sshperf-wire is not running every packet across it is dropped.

# The number of the NFQUEUE (in WIRE_NS only, so any number is the kit's).
WIRE_QUEUE=4400
# How long start and a distance wait for a step (s).
WIRE_STEP_SECONDS=10
# The source addresses of the test host (P.129 ...).
WIRE_SOURCES=${WIRE_SOURCES:-8}

# A short wait that a signal to the script interrupts at once (bash runs
# a trap only when its foreground command ends; `wait` is a builtin).
wire_nap () {
	sleep 0.05 9>&- &
	wait "$!"
}

# wire_prefix: P, the first three numbers of NETWORK_RANGE.
wire_prefix () {
	local r=${SETTING[NETWORK_RANGE]%/*}
	printf '%s\n' "${r%.*}"
}

# The kit's end of the wire: where the test server listens for the test
# hosts.
wire_server_addr () {
	printf '%s.1\n' "$(wire_prefix)"
}

# The test host's first source address.
wire_client_addr () {
	printf '%s.129\n' "$(wire_prefix)"
}

# True when NETWORK_RTT_MS names a distance above 0.
wire_wanted () {
	local d
	for d in ${SETTING[NETWORK_RTT_MS]}; do
		[ "$d" = 0 ] || [ "$d" = 0.0 ] || return 0
	done
	return 1
}

# The distances above 0, one per line.
wire_distances () {
	local d
	for d in ${SETTING[NETWORK_RTT_MS]}; do
		awk -v d="$d" 'BEGIN { exit !(d > 0) }' && printf '%s\n' "$d"
	done
	return 0
}

# True when the test hosts exist (made by start, recorded).
wire_hosts_exist () {
	state_has netns "$TESTHOST_NS" && [ -e "/run/netns/$TESTHOST_NS" ] &&
		[ -e "/run/netns/$WIRE_NS" ] && ip link show "$WIRE_DEV_HOST" >/dev/null 2>&1
}

# wire_range_users RANGE: the host's addresses and routes that overlap
# RANGE, one per line ("address A on DEV", "route R"), apart from the
# kit's own device. Empty when RANGE is free.
wire_range_users () {
	local range=$1
	{
		ip -4 -o addr show 2>/dev/null | awk '{ print "addr", $4, $2 }'
		ip -4 route show table all 2>/dev/null | awk '{ dev = ""; for (i = 1; i < NF; i++) if ($i == "dev") dev = $(i + 1)
			net = ($1 ~ /^(local|broadcast|unicast|multicast|anycast|blackhole|unreachable|prohibit|throw)$/) ? $2 : $1
			print "route", net, dev }'
	} | awk -v range="$range" -v own="$WIRE_DEV_HOST" '
		function ip2n(s,   a) { split(s, a, "."); return ((a[1] * 256 + a[2]) * 256 + a[3]) * 256 + a[4] }
		function net(s, part,   a, n) { n = split(s, a, "/"); part[1] = ip2n(a[1]); part[2] = (n > 1) ? a[2] + 0 : 32 }
		function block(x, len) { return len == 0 ? 0 : int(x / 2 ^ (32 - len)) }
		BEGIN { net(range, r) }
		$2 == "default" || $3 == own || $2 !~ /^[0-9.]+(\/[0-9]+)?$/ { next }
		{
			net($2, o); len = (o[2] < r[2]) ? o[2] : r[2]
			if (len > 0 && block(o[1], len) == block(r[1], len))
				print ($1 == "addr" ? "address " $2 " on " $3 : "route " $2 (($3 != "") ? " dev " $3 : ""))
		}' | sort -u
}

# wire_refuse_reason: why test hosts cannot be made here, or nothing.
# Everything is tried in a namespace that lives only as long as the try
# (unshare --net): the host is not changed.
wire_refuse_reason () {
	local out t
	[ "$(id -u)" -eq 0 ] || { printf 'test hosts need root (CAP_NET_ADMIN)\n'; return 0; }
	for t in ip iptables unshare tc; do
		command -v "$t" >/dev/null 2>&1 || {
			printf '%s is not installed (it makes the test hosts and the wire); install iproute2/iproute and iptables\n' "$t"
			return 0
		}
	done
	out=$(unshare --net sh -c '
		ip link add sshperf0 type veth peer name sshperf1 || exit 11
		iptables -t mangle -A PREROUTING -i sshperf0 -j NFQUEUE --queue-num 1 || exit 12
		tc qdisc add dev sshperf0 root tbf rate 100mbit burst 64kb latency 50ms || exit 13
	' 2>&1) || {
		case $? in
		11) printf 'network namespaces with veth pairs cannot be made here (a container without CAP_NET_ADMIN?): %s\n' "$(printf '%s' "$out" | head -n 1)" ;;
		12) printf 'iptables cannot hand packets to a queue here (NFQUEUE target or nfnetlink_queue missing from the kernel): %s\n' "$(printf '%s' "$out" | head -n 1)" ;;
		13) printf 'the kernel has no TBF queueing discipline (sch_tbf) for NETWORK_MBIT: %s\n' "$(printf '%s' "$out" | head -n 1)" ;;
		*) printf 'a network namespace cannot be made here (no CAP_NET_ADMIN, or a container): %s\n' "$(printf '%s' "$out" | head -n 1)" ;;
		esac
		return 0
	}
}

# wire_check: refuses (exit 2, one line) test hosts that cannot be made
# or a range in use, before anything changes. Called when a distance is
# asked for.
wire_check () {
	local why users
	why=$(wire_refuse_reason)
	[ -z "$why" ] || die "NETWORK_RTT_MS=\"${SETTING[NETWORK_RTT_MS]}\" asks for a distance, but $why; set NETWORK_RTT_MS=0"
	wire_hosts_exist && return 0
	users=$(wire_range_users "${SETTING[NETWORK_RANGE]}")
	[ -z "$users" ] || die "NETWORK_RANGE=${SETTING[NETWORK_RANGE]} is in use on this host ($(printf '%s' "$users" | head -n 3 | paste -sd, | sed 's/,/, /g')); set NETWORK_RANGE to a free network, e.g. 198.18.$((RANDOM % 250)).0/24"
}

# wire_hosts_up: makes the test host, the wire's namespace and the veth
# pairs, with their addresses and routes; records each. Idempotent.
wire_hosts_up () {
	local p i ns
	p=$(wire_prefix)
	wire_hosts_exist && return 0
	for ns in "$WIRE_NS" "$TESTHOST_NS"; do
		if [ ! -e "/run/netns/$ns" ]; then
			record netns "$ns"
			ip netns add "$ns"
		fi
		ip -n "$ns" link set lo up
	done
	if ! ip link show "$WIRE_DEV_HOST" >/dev/null 2>&1; then
		record link "$WIRE_DEV_HOST"
		ip link add "$WIRE_DEV_HOST" type veth peer name "$WIRE_DEV_RIN" netns "$WIRE_NS"
	fi
	if ! ip -n "$WIRE_NS" link show "$WIRE_DEV_ROUT" >/dev/null 2>&1; then
		ip -n "$WIRE_NS" link add "$WIRE_DEV_ROUT" type veth peer name "$WIRE_DEV_CLIENT" netns "$TESTHOST_NS"
	fi
	record addr "$p.1/30 dev $WIRE_DEV_HOST"
	ip addr replace "$p.1/30" dev "$WIRE_DEV_HOST"
	ip -n "$WIRE_NS" addr replace "$p.2/30" dev "$WIRE_DEV_RIN"
	ip -n "$WIRE_NS" addr replace "$p.5/30" dev "$WIRE_DEV_ROUT"
	ip -n "$TESTHOST_NS" addr replace "$p.6/30" dev "$WIRE_DEV_CLIENT"
	for i in $(seq 1 "$WIRE_SOURCES"); do
		ip -n "$TESTHOST_NS" addr replace "$p.$((128 + i))/32" dev "$WIRE_DEV_CLIENT"
	done
	ip link set "$WIRE_DEV_HOST" up
	ip -n "$WIRE_NS" link set "$WIRE_DEV_RIN" up
	ip -n "$WIRE_NS" link set "$WIRE_DEV_ROUT" up
	ip -n "$TESTHOST_NS" link set "$WIRE_DEV_CLIENT" up
	# The wire forwards between its two ends (its own namespace's switch).
	ip netns exec "$WIRE_NS" sysctl -q -w net.ipv4.ip_forward=1 >/dev/null
	ip -n "$WIRE_NS" route replace "$p.128/25" via "$p.6" dev "$WIRE_DEV_ROUT"
	ip -n "$TESTHOST_NS" route replace default via "$p.5" dev "$WIRE_DEV_CLIENT" src "$p.129"
	record route "$p.0/24 via $p.2 dev $WIRE_DEV_HOST"
	ip route replace "$p.0/24" via "$p.2" dev "$WIRE_DEV_HOST" src "$p.1"
	# The test host's /etc/hosts (ip netns exec mounts /etc/netns/NS/hosts
	# over it): the host's, and a name for the kit's end of the wire. A
	# client that asks for the server's name (GSSAPI, which RHEL's and
	# Debian's ssh_config turn on) finds it there; there is no name server
	# the test host can reach, and without the line each login would wait
	# out the resolver (5 s).
	[ -d /etc/netns ] || { record etcdir /etc/netns; mkdir -m 0755 /etc/netns; }
	[ -d "/etc/netns/$TESTHOST_NS" ] || { record etcdir "/etc/netns/$TESTHOST_NS"; mkdir -m 0755 "/etc/netns/$TESTHOST_NS"; }
	record file "/etc/netns/$TESTHOST_NS/hosts"
	{ cat /etc/hosts 2>/dev/null; printf '%s.1\t%s\n' "$p" "$HOST_ALIAS"; } >"/etc/netns/$TESTHOST_NS/hosts"
	chmod 0644 "/etc/netns/$TESTHOST_NS/hosts"
	say "made the test host $TESTHOST_NS ($p.129-$p.$((128 + WIRE_SOURCES))) and the wire $WIRE_NS to the test server's $p.1"
}

# wire_listen CONFIG: the test server also listens on the kit's end of
# the wire, and AllowUsers names where its clients come from: loopback
# and the test hosts' network.
wire_listen () {
	local p
	p=$(wire_prefix)
	config_listen_also "$1" "$p.1" "$p.0/24"
}

# True when PID is a sshperf-wire of this kit (checked before a signal).
wire_pid_is_ours () {
	[ -n "$1" ] && [ -r "/proc/$1/cmdline" ] &&
		tr '\0' ' ' <"/proc/$1/cmdline" | grep -q "sshperf-wire -q $WIRE_QUEUE "
}

# wire_set RTT_MS OUTFILE [RECORD]: the wire at this distance: sshperf-wire
# holding RTT/2 each way (its pid in WIRE_PID), the rules that hand it the
# packets, the rate limit. OUTFILE gets the helper's lines (ready=1, then
# its counts at the end); RECORD, when given, a line per packet and the
# marks of wire_mark (WIRE_RECORD, WIRE_MARKS). Runs in the calling shell
# (no $(...)), so that a signal to the script finds WIRE_PID set.
wire_set () {
	local rtt=$1 out=$2 one_way i rate burst limit dev
	local -a record=()
	# The hold is the setting less WIRE_TRIM_MS (wire_trim), never below 0.
	one_way=$(awk -v r="$rtt" -v t="${WIRE_TRIM_MS:-0}" 'BEGIN { h = (r - t) / 2; printf "%.3f", h < 0 ? 0 : h }')
	WIRE_OUT=$out
	WIRE_RECORD=${3:-}
	WIRE_MARKS=0
	WIRE_MARK_OF=()
	[ -z "$WIRE_RECORD" ] || record=(-r "$WIRE_RECORD")
	# With a deadline of its own: a run killed with SIGKILL leaves no
	# wire running for longer than a long run could need.
	ip netns exec "$WIRE_NS" setsid "$HELPER_DIR/sshperf-wire" -q "$WIRE_QUEUE" -d "$one_way" \
		-l "${SETTING[NETWORK_LOSS_PCT]}" "${record[@]}" -t 21600 >"$out" 2>&1 </dev/null 9>&- &
	WIRE_PID=$!
	record wirepid "$WIRE_PID"
	for i in $(seq 1 $((WIRE_STEP_SECONDS * 20))); do
		grep -q '^ready=1' "$out" 2>/dev/null && break
		kill -0 "$WIRE_PID" 2>/dev/null || break
		wire_nap
	done
	grep -q '^ready=1' "$out" 2>/dev/null || {
		warn "the wire's helper did not start: $(head -n 1 "$out")"
		return 1
	}
	ip netns exec "$WIRE_NS" iptables -t mangle -A PREROUTING -i "$WIRE_DEV_RIN" -j NFQUEUE --queue-num "$WIRE_QUEUE"
	ip netns exec "$WIRE_NS" iptables -t mangle -A PREROUTING -i "$WIRE_DEV_ROUT" -j NFQUEUE --queue-num "$WIRE_QUEUE"
	if [ -n "${SETTING[NETWORK_MBIT]}" ]; then
		# TBF on the wire's two ways out; a burst of at least one GSO
		# packet (64 KB), a queue of one round trip at the rate (at
		# least 64 KB).
		rate=$(awk -v m="${SETTING[NETWORK_MBIT]}" 'BEGIN { printf "%d", m * 1000 }')
		burst=$(awk -v k="$rate" 'BEGIN { b = k * 1000 / 8 / 250; printf "%d", b < 65536 ? 65536 : b }')
		limit=$(awk -v k="$rate" -v r="$rtt" 'BEGIN { l = k * 1000 / 8 * (r < 10 ? 10 : r) / 1000; printf "%d", l < 65536 ? 65536 : l }')
		for dev in "$WIRE_DEV_RIN" "$WIRE_DEV_ROUT"; do
			ip netns exec "$WIRE_NS" tc qdisc replace dev "$dev" root tbf rate "${rate}kbit" burst "$burst" limit "$limit"
		done
	fi
}

# wire_clear PID OUTFILE: the wire back to no distance: rules and rate
# limit gone, the helper stopped. Prints "held" when the helper ran to
# the end, "died" when it had ended before (fail-closed: the packets of
# that time were dropped, and the distance's figures are marked).
wire_clear () {
	local pid=$1 out=$2 state=held i
	ip netns exec "$WIRE_NS" iptables -t mangle -F PREROUTING 2>/dev/null || true
	ip netns exec "$WIRE_NS" tc qdisc del dev "$WIRE_DEV_RIN" root 2>/dev/null || true
	ip netns exec "$WIRE_NS" tc qdisc del dev "$WIRE_DEV_ROUT" root 2>/dev/null || true
	if wire_pid_is_ours "$pid"; then
		kill -TERM "$pid" 2>/dev/null || true
		for i in $(seq 1 $((WIRE_STEP_SECONDS * 20))); do
			wire_pid_is_ours "$pid" || break
			wire_nap
		done
		! wire_pid_is_ours "$pid" || kill -KILL "$pid" 2>/dev/null || true
		grep -q '^stopped=' "$out" 2>/dev/null || state=died
	else
		state=died
	fi
	wait "$pid" 2>/dev/null || true
	printf '%s\n' "$state"
}

# wire_measure RTT_MS RAWFILE: the wire as made, before anything is
# measured across it: TCP connects and one-byte echoes from the test host
# to the kit's end (sshperf-wireprobe). Prints the probe's key=value lines
# and wire_warning= when the connect p50 is off the setting by more than
# max(5 %, 0.2 ms).
wire_measure () {
	local rtt=$1 raw=$2 server client port i p50 rc=0
	# The ready line must be this server's: a file left by an earlier
	# measurement of the distance (before its trim) would end the wait at
	# once, before the new server has written its port.
	rm -f -- "$raw.server"
	"$HELPER_DIR/sshperf-wireprobe" -l "$(wire_server_addr)" -p 0 -t 120 >"$raw.server" 2>&1 </dev/null 9>&- &
	server=$!
	WIRE_PROBES="$server"
	for i in $(seq 1 $((WIRE_STEP_SECONDS * 20))); do
		grep -q '^ready=1' "$raw.server" 2>/dev/null && break
		kill -0 "$server" 2>/dev/null || break
		wire_nap
	done
	port=$(kv_get "$raw.server" port)
	if [ -z "$port" ]; then
		kill "$server" 2>/dev/null || true
		wait "$server" 2>/dev/null || true
		printf 'wire_error=the probe server did not start: %s\n' "$(head -n 1 "$raw.server")"
		return 1
	fi
	# One attempt waits at most 20 round trips (2 s at least): a wire that
	# failed closed ends the probe after 3 of them, not at its deadline.
	ip netns exec "$TESTHOST_NS" "$HELPER_DIR/sshperf-wireprobe" -n 20 -p "$port" -t 120 \
		-w "$(awk -v r="$rtt" 'BEGIN { w = r * 20; printf "%d", w < 2000 ? 2000 : w }')" \
		"$(wire_server_addr)" >"$raw" 2>&1 </dev/null 9>&- &
	client=$!
	WIRE_PROBES="$server $client"
	wait "$client" || rc=$?
	kill "$server" 2>/dev/null || true
	wait "$server" 2>/dev/null || true
	WIRE_PROBES=""

	cat "$raw"
	p50=$(kv_get "$raw" connect_ms_p50)
	[ -n "$p50" ] && [ "$p50" != nan ] || return 1
	awk -v s="$rtt" -v m="$p50" 'BEGIN { tol = s * 0.05; if (tol < 0.2) tol = 0.2
		d = m - s; if (d < 0) d = -d
		if (d > tol) printf "wire_warning=the wire measures %.3f ms for a TCP connect, the setting is %s ms (more than %.2f ms off)\n", m, s, tol }'
	return "$rc"
}

# wire_trim RTT_MS PROBE: how much less the wire should hold, in ms, so
# that a TCP connect across it takes the setting: the excess of the
# probe's connect p50 over RTT_MS, when it is more than WIRE_TRIM_FROM_MS;
# nothing otherwise (a connect at or under the setting is left alone).
# The excess is the wire's own cost, on top of what it holds: each
# packet's trip through the queue to sshperf-wire and back, and the
# helper's wake-ups (0.3-0.5 ms a round trip on an idle 2-core VM, most
# of a 1 ms setting's tolerance of 0.2 ms).
WIRE_TRIM_FROM_MS=0.05
wire_trim () {
	awk -v s="$1" -v m="$(kv_get "$2" connect_ms_p50)" -v from="$WIRE_TRIM_FROM_MS" \
		'BEGIN { if (m == "" || m == "nan") exit; e = m - s; if (e > from) printf "%.3f\n", (e > s ? s : e) }'
}

# wire_ssh_opts WHERE: the options that send ssh (or sftp, which hands
# -o to its ssh) from WHERE to the test server, NUL-separated: none from
# this host over loopback (WHERE=loopback); from the test host
# (WHERE=testhost) the kit's end of the wire, the test host's first
# source address, and the server's host key under its loopback name.
wire_ssh_opts () {
	[ "$1" = testhost ] || return 0
	printf '%s\0' -o "HostName=$(wire_server_addr)" -o "BindAddress=$(wire_client_addr)" \
		-o "HostKeyAlias=[127.0.0.1]:${SETTING[TEST_PORT]}"
}

# wire_where WHERE: the words that run a command there, NUL-separated:
# none here, `ip netns exec` of the test host for WHERE=testhost.
wire_where () {
	[ "$1" = testhost ] || return 0
	printf '%s\0' ip netns exec "$TESTHOST_NS"
}

# wire_run WHERE OUT ERR -- COMMAND...: COMMAND run WHERE (wire_where),
# its output in OUT and its errors in ERR, its pid added to WIRE_PROBES
# while it runs (wire_clear_current ends it at the run's exit or on a
# signal); its exit status.
wire_run () {
	local where=$1 out=$2 err=$3 before=$WIRE_PROBES pid rc=0
	local -a in
	shift 4
	mapfile -t -d '' in < <(wire_where "$where")
	"${in[@]}" "$@" >"$out" 2>"$err" </dev/null 9>&- &
	pid=$!
	WIRE_PROBES="${before:+$before }$pid"
	wait "$pid" || rc=$?
	WIRE_PROBES=$before
	return "$rc"
}

# wire_logins WHERE N OUT: N logins one after another (sshperf-repeat,
# ssh ... true with the default key), each timed from the start of ssh to
# its exit: from the host to 127.0.0.1 (WHERE=loopback) or from the test
# host across the wire (WHERE=testhost). Prints repeat's key=value lines.
wire_logins () {
	local where=$1 n=$2 out=$3
	local -a opts
	mapfile -t -d '' opts < <(wire_ssh_opts "$where")
	wire_run "$where" "$out.env" "$out.err" -- "$HELPER_DIR/sshperf-repeat" -n "$n" -t "${SETTING[LOGIN_TIMEOUT]}" -g 3 \
		-o "$out" -- "$SSH" -F "$CLIENT_CONFIG" "${opts[@]}" "$HOST_ALIAS" true
}

# wire_keyecho WHERE N OUT: N keystrokes through one ssh session (ssh -tt
# HOST cat, sshperf-echo at ECHO_RATE), each timed from its scheduled
# send to its echo, as the interactive test does; from the host over
# loopback or from the test host across the wire. Its key=value lines
# go to OUT.
wire_keyecho () {
	local where=$1 n=$2 out=$3
	local -a opts
	mapfile -t -d '' opts < <(wire_ssh_opts "$where")
	wire_run "$where" "$out" "$out.err" -- "$HELPER_DIR/sshperf-echo" -m ssh -r "${SETTING[ECHO_RATE]}" -n "$n" \
		-t "${SETTING[LOGIN_TIMEOUT]}" -o "$out.tsv" -- "$SSH" -tt -F "$CLIENT_CONFIG" "${opts[@]}" "$HOST_ALIAS" cat
}

# wire_down: removes the test hosts and the wire: stops the kit's
# sshperf-wire (by the recorded pid, when it is still one), ends what runs
# in the kit's namespaces, deletes them and the kit's veth end (its
# address and route go with it). For cleanup.
wire_down () {
	local pid ns p i dev
	for pid in $(state_list wirepid); do
		wire_pid_is_ours "$pid" || continue
		kill -TERM "$pid" 2>/dev/null || true
		for i in $(seq 1 100); do
			wire_pid_is_ours "$pid" || break
			sleep 0.05
		done
		! wire_pid_is_ours "$pid" || kill -KILL "$pid" 2>/dev/null || true
		say "stopped the wire's helper (pid $pid)"
	done
	for ns in $(state_list netns); do
		[ -e "/run/netns/$ns" ] || continue
		# Only the kit's own processes run in the kit's namespaces.
		for p in $(ip netns pids "$ns" 2>/dev/null); do
			kill -KILL "$p" 2>/dev/null || true
		done
		ip netns del "$ns" && say "removed network namespace $ns"
	done
	for dev in $(state_list link); do
		# The peer's namespace is gone, so the pair is gone; a device
		# still held (a process kept the namespace) goes here.
		for i in $(seq 1 100); do
			ip link show "$dev" >/dev/null 2>&1 || break
			ip link del "$dev" 2>/dev/null && break
			sleep 0.05
		done
		ip link show "$dev" >/dev/null 2>&1 || say "removed $dev (the test server's end of the wire)"
	done
	# The test host's /etc/hosts and its folders (only when the kit made
	# them, newest first, only when empty).
	rm -f "/etc/netns/$TESTHOST_NS/hosts"
	for dev in $(state_list etcdir | tac); do
		rmdir "$dev" 2>/dev/null && say "removed $dev"
	done
	return 0
}

# wire_mark NAME: a mark in the packets' record of the wire in place
# (sshperf-wire writes it on SIGUSR1): what crosses the wire after it, up
# to the next mark, is the part NAME of the distance (wire_part). Waits
# until the mark is written (status 1 when it is not, within
# WIRE_STEP_SECONDS). WIRE_MARKS is its number, WIRE_MARK_OF[NAME] too.
declare -A WIRE_MARK_OF=()
wire_mark () {
	local i
	WIRE_MARKS=$((WIRE_MARKS + 1))
	WIRE_MARK_OF[$1]=$WIRE_MARKS
	[ -n "$WIRE_RECORD" ] && wire_pid_is_ours "$WIRE_PID" || return 1
	kill -USR1 "$WIRE_PID" 2>/dev/null || return 1
	for i in $(seq 1 $((WIRE_STEP_SECONDS * 20))); do
		grep -q "^[0-9.]*	mark	$WIRE_MARKS	" "$WIRE_RECORD" 2>/dev/null && return 0
		wire_nap
	done
	return 1
}

# wire_turns RECORD FROM TO RTT_MS [HOLD_MS]: the TCP connections to the test server
# that began (SYN from the test host) between marks FROM and TO of a
# packets' record (0: its start), one line each: "client legs round_trips
# client_bytes server_bytes flight_bytes wait_ms".
#
# A leg is a run of data-carrying segments (payload, or SYN) in one
# direction; a segment in the other direction starts the next leg only
# when it can be an answer: it reached the wire at least RTT/2 after the
# leg began (the wire releases a packet RTT/2 after it arrives, and the
# other end is next to the wire). A segment sent before its peer's leg
# could have arrived (both banners, say) is part of no turn. Data that
# leaves in the leg's own direction within 1 ms of the arrival of a pure
# ACK that answers the leg waited for that ACK (Nagle: TCP sends a small
# segment only when the earlier ones are acknowledged; the kernel sends
# it as the ACK arrives): a turn there and back. round_trips
# is half the legs up to the server's last data: what the client sends
# after it (its close) waits for nothing. flight_bytes: the most payload
# the test host sent within one RTT (an upload's data in flight). wait_ms:
# the time the data that left as an ACK arrived waited for that ACK beyond
# its round trip: from the leg's last data's arrival at the other end to
# that end's ACK, summed over the connection (a delayed ACK holds about
# 40 ms; one sent at once, well under 1). A login's time counts these
# waits, its turns do not (wire_wait_trips). HOLD_MS
# (default RTT_MS) is the round trip the wire held, RTT_MS less its trim
# (wire_trim): the release comes HOLD_MS/2 after the arrival.
wire_turns () {
	[ -s "$1" ] || return 0
	tsv_select "$1" ms src sport dst dport flags payload |
	wire_turns_of "$2" "$3" "$4" "${5:-$4}" "$(wire_server_addr)"
}

# wire_turns_of FROM TO RTT_MS HOLD_MS SERVER: wire_turns of the rows on
# stdin (ms src sport dst dport flags payload, no header), SERVER the test
# server's address in them.
wire_turns_of () {
	awk -F'\t' -v from="$1" -v to="$2" -v d="$3" -v h="$4" -v srv="$5" -v port="${SETTING[TEST_PORT]}" '
		$2 == "mark" { m = $3 + 0; next }
		m < from || m >= to { next }
		{
			if ($4 == srv && $5 == port) { dir = "c"; k = $2 ":" $3 }
			else if ($2 == srv && $3 == port) { dir = "s"; k = $4 ":" $5 }
			else next
			t = $1 + 0; b = $7 + 0
			if (k in skip) next
			if (b == 0 && $6 !~ /S/) {
				# A pure ACK that answers the leg: it may release data
				# that TCP held back (Nagle) on the other side.
				if ((k in leg) && dir != cur[k] && t >= t0[k] + h / 2 - 0.01) {
					ack[k] = t; held[k] = t - (ld[k] + h / 2)
					if (held[k] < 0) held[k] = 0
				}
				next
			}
			if (!(k in leg)) {
				if ($6 !~ /S/ || dir != "c") { skip[k] = 1; next }
				leg[k] = 1; cur[k] = dir; t0[k] = t; keys[++n] = k; last[k] = 0; ack[k] = ""
			} else if (dir != cur[k] && t >= t0[k] + h / 2 - 0.01) {
				leg[k]++; cur[k] = dir; t0[k] = t; ack[k] = ""
			} else if (dir == cur[k] && ack[k] != "" && t >= ack[k] + h / 2 - 0.01 && t <= ack[k] + h / 2 + 1) {
				# Data that left as that ACK arrived: it waited for it,
				# a turn there and back.
				leg[k] += 2; t0[k] = t; ack[k] = ""; wait[k] += held[k]
			}
			if (dir == cur[k]) ld[k] = t
			if (cur[k] == "s") last[k] = leg[k]
			bytes[k, dir] += b
			if (dir == "c" && b > 0) { np[k]++; pt[k, np[k]] = t; pb[k, np[k]] = b }
		}
		END {
			for (i = 1; i <= n; i++) {
				k = keys[i]; f = 0; sum = 0; lo = 1
				for (j = 1; j <= np[k]; j++) {
					sum += pb[k, j]
					while (lo <= j && pt[k, j] - pt[k, lo] >= d) { sum -= pb[k, lo]; lo++ }
					if (sum > f) f = sum
				}
				printf "%s %d %.1f %d %d %d %.1f\n", k, leg[k], last[k] / 2, bytes[k, "c"], bytes[k, "s"], f, wait[k]
			}
		}'
}

# The files of the sftp runs at a distance: SFTP_SMALL_FILES of
# SFTP_SMALL_FILE_KB, at most this many (each costs round trips).
WIRE_SFTP_FILES_MAX=50
# The transfer at a distance: TRANSFER_MB, at most this many MiB (1048576
# bytes, the unit of TRANSFER_MB): at 50 ms the window lets some 40 MB/s
# through, so 128 MiB take about 3 s, and the ramp of TCP's slow start is
# a small part of them.
WIRE_TRANSFER_MB_MAX=128
WIRE_SFTP_LOCAL=""
WIRE_SFTP_REMOTE=""

# wire_loopback_ssh ARGS...: ssh to the test server from this host over
# loopback (the checks and the tidying of the sftp runs, never timed).
wire_loopback_ssh () {
	timeout --kill-after=2 "${SETTING[LOGIN_TIMEOUT]}" "$SSH" -F "$CLIENT_CONFIG" -o BatchMode=yes "$HOST_ALIAS" "$@" </dev/null
}

# wire_files_up N BYTES: the small files of the sftp runs (N files of
# BYTES, here) and a folder of the test user's on the server for them.
# Status 1 with a line on stderr when they cannot be made.
wire_files_up () {
	local n=$1 bytes=$2 base r
	at_exit wire_files_down
	WIRE_SFTP_LOCAL=$(mktemp -d "${TMPDIR:-/tmp}/sshperf-wire.XXXXXX") || return 1
	mkdir "$WIRE_SFTP_LOCAL/small"
	head -c "$((n * bytes))" /dev/urandom | (cd "$WIRE_SFTP_LOCAL/small" && split -b "$bytes" -a 6 -d - f) ||
		{ echo "cannot write the small files in $WIRE_SFTP_LOCAL" >&2; return 1; }
	: >"$WIRE_SFTP_LOCAL/login.batch"
	# shellcheck disable=SC2016 # $HOME is the server's, expanded there
	base='$HOME'
	[ -z "$(server_get SFTP_DIR)" ] || base=$(server_get SFTP_DIR)
	r=$(wire_loopback_ssh "mktemp -d \"$base/sshperf-wire.XXXXXX\"" 2>&1) ||
		{ echo "cannot make a folder on the server over ssh: $r" >&2; return 1; }
	case $r in
	/*/sshperf-wire.*) WIRE_SFTP_REMOTE=$r ;;
	*) echo "the server made the folder \"$r\"" >&2; return 1 ;;
	esac
}

# wire_files_down: removes what wire_files_up made (safe to repeat).
wire_files_down () {
	if [ -n "$WIRE_SFTP_REMOTE" ]; then
		wire_loopback_ssh rm -rf -- "$WIRE_SFTP_REMOTE" >/dev/null 2>&1 || rm -rf -- "$WIRE_SFTP_REMOTE"
		WIRE_SFTP_REMOTE=""
	fi
	if [ -n "$WIRE_SFTP_LOCAL" ]; then
		rm -rf -- "$WIRE_SFTP_LOCAL"
		WIRE_SFTP_LOCAL=""
	fi
}

# wire_sftp WHERE BATCH TIMEOUT OUT: one timed 'sftp -b BATCH' from WHERE
# (sshperf-xfer run -o: from sftp's echo of its first command to its exit).
wire_sftp () {
	local where=$1 batch=$2 timeout=$3 out=$4
	local -a opts
	mapfile -t -d '' opts < <(wire_ssh_opts "$where")
	wire_run "$where" "$out" "$out.err" -- "$HELPER_DIR/sshperf-xfer" run -o -t "$timeout" -- \
		"$SFTP" -b "$batch" -F "$CLIENT_CONFIG" "${opts[@]}" "$HOST_ALIAS"
}

# wire_sftp_files WHERE TAG N BYTES OUT [MARK]: the N small files up in one
# sftp run from WHERE into a folder TAG of their own on the server, after
# an sftp run that only logs in (the base of the round trips per file;
# wire_mark sftp-login and sftp-files before each, when MARK is given); the files
# checked by count and size. OUT gets the run's key=value lines and
# check=ok or what was wrong; OUT without .env, -login.env, the login-only run's.
wire_sftp_files () {
	local where=$1 tag=$2 n=$3 bytes=$4 out=$5 mark=${6:-} dir got t
	dir="$WIRE_SFTP_REMOTE/$tag"
	t=$((60 + n * 2))
	wire_loopback_ssh mkdir -- "$dir" >"$out.mkdir" 2>&1 || { printf 'check=cannot make %s: %s\n' "$dir" "$(tail -n 1 "$out.mkdir")" >"$out"; return 1; }
	printf 'put "%s/"* "%s/"\n' "$WIRE_SFTP_LOCAL/small" "$dir" >"$out.batch"
	[ -z "$mark" ] || wire_mark sftp-login || true
	wire_sftp "$where" "$WIRE_SFTP_LOCAL/login.batch" "$t" "${out%.env}-login.env" || true
	[ -z "$mark" ] || wire_mark sftp-files || true
	wire_sftp "$where" "$out.batch" "$t" "$out" || true
	got=$(wire_loopback_ssh "find '$dir' -type f -printf '%s\n'" 2>/dev/null |
		awk -v s="$bytes" '{ n++; if ($1 != s) bad++ } END { print n + 0, bad + 0 }')
	if [ -z "$got" ]; then
		printf 'check=missing\n'
	elif [ "${got% *}" != "$n" ]; then
		printf 'check=%s of %s files arrived\n' "${got% *}" "$n"
	elif [ "${got#* }" != 0 ]; then
		printf 'check=%s files of the wrong size\n' "${got#* }"
	else
		printf 'check=ok\n'
	fi >>"$out"
	wire_loopback_ssh rm -rf -- "$dir" >/dev/null 2>&1 || true
	[ "$(kv_get "$out" check)" = ok ] && [ "$(kv_get "$out" status)" = ok ]
}

# wire_transfer WHERE BYTES RTT_MS OUT: one upload of BYTES through ssh with
# the default cipher from WHERE into 'wc -c' on the server, as the
# transfer test does (sshperf-xfer up, timed from the session's "ready"
# to the last byte counted); ssh at LogLevel DEBUG2, whose lines name the
# server's channel window (wire_window). Status 0 when every byte arrived.
wire_transfer () {
	local where=$1 bytes=$2 rtt=$3 out=$4 t
	local -a opts
	mapfile -t -d '' opts < <(wire_ssh_opts "$where")
	# A minute, plus the time at 5 MB/s, plus twice the time the default
	# window (2 MB) allows at this distance.
	t=$(awk -v b="$bytes" -v r="$rtt" 'BEGIN { printf "%d", 60 + b / 5e6 + 2 * b / 2097152 * r / 1000 }')
	wire_run "$where" "$out" "$out.err" -- "$HELPER_DIR/sshperf-xfer" up -n "$bytes" -k 8 -t "$t" -- \
		"$SSH" -F "$CLIENT_CONFIG" "${opts[@]}" -o Compression=no -o LogLevel=DEBUG2 "$HOST_ALIAS" 'echo ready; exec wc -c'
}

# wire_window FILE: the channel window the server gave the client before
# the first data (bytes), from ssh's DEBUG2 lines: the window of "open
# confirm rwindow W" plus the first "rcvd adjust A". sshd confirms a
# session with a window of 0 and grants the whole window in an adjust as
# the session starts (channel_set_fds, in 8.7p1 as in 9.9p1), before the
# remote command's first output, which the upload waits for.
wire_window () {
	awk '/open confirm rwindow / && w == "" { for (i = 1; i < NF; i++) if ($i == "rwindow") w = $(i + 1) }
		/rcvd adjust / && w != "" && a == "" { a = $NF }
		END { if (w != "") printf "%d\n", w + a }' "$1" 2>/dev/null
}

# wire_median: the median of the numbers on stdin (the kit's one
# definition, sshperf-rank's nearest rank), to 0.1; nothing without any.
wire_median () {
	local v
	v=$(grep .) || return 0
	printf '%s\n' "$v" | stats_median | awk '{ printf "%.1f\n", $1 }'
}

# wire_far WHERE RTT_MS ROW: the sftp files and the transfer from WHERE
# (loopback at 0, the test host at a distance) into the row (an
# associative array's name); wire_mark before each at a distance.
# shellcheck disable=SC2154 # far_row: the caller's associative array
wire_far () {
	local where=$1 d=$2 files kb out
	local -n far_row=$3
	files=${SETTING[SFTP_SMALL_FILES]}
	[ "$files" -le "$WIRE_SFTP_FILES_MAX" ] || files=$WIRE_SFTP_FILES_MAX
	kb=${SETTING[SFTP_SMALL_FILE_KB]}
	far_row[sftp_files]=$files
	far_row[sftp_file_kb]=$kb
	out="$RAW_DIR/wire-$d-sftp.env"
	if [ -z "$WIRE_SFTP_REMOTE" ]; then
		far_row[sftp_check]="not run: ${WIRE_FILES_WHY:-the files were not made}"
	else
		progress "distance $d ms: $files files of $kb KB up in one sftp run"
		wire_sftp_files "$where" "d$d" "$files" "$((kb * 1000))" "$out" "$([ "$where" = testhost ] && echo mark)" || true
		far_row[sftp_check]=$(kv_get "$out" check)
		[ "$(kv_get "$out" status)" = ok ] || far_row[sftp_check]="sftp $(kv_get "$out" status) (exit $(kv_get "$out" exit)): $(grep -v '^sftp> ' "$out.err" 2>/dev/null | tr -d '\r' | grep -v '^$' | tail -n 1)"
		[ "${far_row[sftp_check]}" != ok ] ||
			far_row[sftp_files_per_s]=$(awk -v n="$files" -v s="$(kv_get "$out" output_seconds)" 'BEGIN { if (s + 0 > 0) printf "%.1f", n / s }')
	fi
	# The wire's helper died: nothing more crosses it (failed closed).
	[ "$where" != testhost ] || wire_pid_is_ours "$WIRE_PID" || return 0
	far_row[xfer_mb]=${SETTING[TRANSFER_MB]}
	[ "${far_row[xfer_mb]}" -le "$WIRE_TRANSFER_MB_MAX" ] || far_row[xfer_mb]=$WIRE_TRANSFER_MB_MAX
	out="$RAW_DIR/wire-$d-transfer.env"
	progress "distance $d ms: ${far_row[xfer_mb]} MiB up through one ssh connection"
	[ "$where" != testhost ] || wire_mark transfer || true
	wire_transfer "$where" "$((far_row[xfer_mb] * 1048576))" "$d" "$out" || true
	[ "$where" != testhost ] || wire_mark transfer-end || true
	far_row[xfer_bytes]=$(kv_get "$out" bytes)
	# The median of its parts' rates: the speed once under way, without
	# TCP's ramp at the start and without a stall of a part.
	far_row[xfer_mbs_parts_p50]=$(kv_get "$out" chunk_mbs | tr ',' '\n' | grep . | wire_median)
	far_row[xfer_window_bytes]=$(wire_window "$out.err")
	if [ "$(kv_get "$out" status)" = ok ] && [ "${far_row[xfer_bytes]}" = "$((far_row[xfer_mb] * 1048576))" ]; then
		far_row[xfer_check]=ok
		far_row[xfer_mbs]=$(kv_get "$out" mbs)
	else
		far_row[xfer_check]="$(kv_get "$out" status): ${far_row[xfer_bytes]:-0} of $((far_row[xfer_mb] * 1048576)) bytes arrived (ssh exit $(kv_get "$out" exit)): $(grep -v '^debug' "$out.err" 2>/dev/null | tail -n 1)"
	fi
}

# wire_base_p50 TSV...: the median time of the logins that ended well
# (exit 0) in sshperf-repeat's tables (seq exit total_ms), together.
wire_base_p50 () {
	wire_ok_times "$@" | wire_median
}

# wire_round_trips LOGINS RTT_MS ROW: what the distance added to a login,
# in round trips: the shift of the logins across the wire (LOGINS,
# sshperf-repeat's table) against the base over loopback (LOGINS.base1
# and .base2), from the statistics engine (sshperf-rank compare: the
# Hodges-Lehmann shift, robust to a few slow logins, and its 95 %
# interval), divided by RTT_MS. Nothing when either side has no login.
# shellcheck disable=SC2034,SC2154 # rt_row: the caller's associative array, set here
wire_round_trips () {
	local logins=$1 d=$2 dir rt lo hi
	local -n rt_row=$3
	dir=$(mktemp -d "${TMPDIR:-/tmp}/sshperf-rt.XXXXXX") || return 0
	wire_ok_times "$logins" >"$dir/far"
	wire_ok_times "$logins.base1" "$logins.base2" >"$dir/base"
	if [ -s "$dir/far" ] && [ -s "$dir/base" ]; then
		read -r rt lo hi < <(stats_rank compare "$dir/base" "$dir/far" 2>/dev/null |
			awk -F= -v d="$d" '{ v[$1] = $2 }
				END { printf "%s %s %s\n", r("shift"), r("shift_lo"), r("shift_hi") }
				function r(k) { return (k in v && v[k] != "") ? sprintf("%.1f", v[k] / d) : "-" }')
		[ "${rt:--}" = - ] || rt_row[login_round_trips]=$rt
		[ "${lo:--}" = - ] || rt_row[login_round_trips_low]=$lo
		[ "${hi:--}" = - ] || rt_row[login_round_trips_high]=$hi
	fi
	rm -rf -- "$dir"
}

# wire_ok_times TSV...: the times of the logins that ended well (exit 0)
# in sshperf-repeat's tables (seq exit total_ms), one a line.
wire_ok_times () {
	local f
	for f in "$@"; do
		tsv_select "$f" exit total_ms 2>/dev/null | awk -F'\t' '$1 == 0 { print $2 }'
	done
}

# wire_lo_turns PACKETS: wire_turns of the logins over loopback that
# sshperf-capture recorded (t_ns client_port dir flags seq ack len): no
# wire, so no hold; for their TCP waits (wait_ms).
wire_lo_turns () {
	[ -s "$1" ] || return 0
	tsv_select "$1" t_ns client_port dir flags len |
		awk -F'\t' -v port="${SETTING[TEST_PORT]}" '{
			if ($3 == "c2s") printf "%.3f\tclient\t%s\tserver\t%s\t%s\t%s\n", $1 / 1e6, $2, port, $4, $5
			else printf "%.3f\tserver\t%s\tclient\t%s\t%s\t%s\n", $1 / 1e6, port, $2, $4, $5
		}' | wire_turns_of 0 1 0 0 server
}

# wire_base_wait_ms RTT_MS: the median TCP wait of the base logins over
# loopback (their capture, raw/wire-N-base-packets.tsv); nothing when
# the kernel dropped packets of that capture (its dropped=): it would
# miss waits.
wire_base_wait_ms () {
	local packets=$RAW_DIR/wire-$1-base-packets.tsv
	[ "$(kv_get "$RAW_DIR/wire-$1-base-capture.env" dropped)" -gt 0 ] 2>/dev/null && return 0
	# wire_turns' lines are words, not a table (wire_far_packets).
	wire_lo_turns "$packets" | awk '{ print $7 }' | wire_median
}

# wire_wait_trips ROW RTT_MS: the round trips per login from the time
# without the TCP waits (wait_ms of wire_turns): what a login across the
# wire waited for ACKs beyond their round trips, less what one over
# loopback waited (the medians per login, login_wait_ms and
# login_base_wait_ms), taken from login_round_trips. Delayed ACKs meet
# the logins where Nagle holds a small segment back; when they meet more
# of them across the wire than over loopback, the time counts about
# 40 ms a wait that is no turn of the wire.
# shellcheck disable=SC2154 # wt_row: the caller's associative array
wire_wait_trips () {
	local -n wt_row=$1
	[ -n "${wt_row[login_round_trips]:-}" ] && [ -n "${wt_row[login_wait_ms]:-}" ] && [ -n "${wt_row[login_base_wait_ms]:-}" ] || return 0
	wt_row[login_rt_less_waits]=$(awk -v r="${wt_row[login_round_trips]}" -v w="${wt_row[login_wait_ms]}" -v b="${wt_row[login_base_wait_ms]}" -v d="$2" \
		'BEGIN { printf "%.1f", r - (w - b) / d }')
}

# wire_part NAME RTT_MS: wire_turns of the part NAME of the distance in
# WIRE_RECORD (from its wire_mark to the next one); nothing when it had
# no mark.
wire_part () {
	local m=${WIRE_MARK_OF[$1]:-}
	[ -n "$m" ] || return 0
	wire_turns "$WIRE_RECORD" "$m" "$((m + 1))" "$2" "${WIRE_HOLD_MS:-$2}"
}

# wire_far_packets RTT_MS CIPHER_MBS ROW: what the packets of a distance
# show (wire_part: the logins, the sftp runs, the transfer), and the
# bounds that follow, into the row.
# shellcheck disable=SC2154 # pk_row: the caller's associative array
wire_far_packets () {
	local d=$1 cipher=$2 a b turns
	local -n pk_row=$3
	# wire_turns' lines are words, not a table; the logins' read once.
	turns=$(wire_part logins "$d")
	pk_row[login_rt_packets]=$(awk '{ print $3 }' <<<"$turns" | wire_median)
	pk_row[login_wait_ms]=$(awk '{ print $7 }' <<<"$turns" | wire_median)
	pk_row[login_base_wait_ms]=$(wire_base_wait_ms "$d")
	wire_wait_trips pk_row "$d"
	a=$(wire_part sftp-login "$d" | awk 'NR == 1 { print $3 }')
	b=$(wire_part sftp-files "$d" | awk 'NR == 1 { print $3 }')
	if [ -n "$a" ] && [ -n "$b" ] && [ "${pk_row[sftp_check]}" = ok ]; then
		pk_row[sftp_rt_per_file]=$(awk -v a="$a" -v b="$b" -v n="${pk_row[sftp_files]}" 'BEGIN { printf "%.2f", (b - a) / n }')
		pk_row[sftp_bound_files_per_s]=$(awk -v r="${pk_row[sftp_rt_per_file]}" -v d="$d" 'BEGIN { if (r > 0) printf "%.1f", 1000 / (r * d) }')
	fi
	pk_row[xfer_flight_bytes]=$(wire_part transfer "$d" | sort -k4,4n | awk 'END { print $6 }')
	[ -n "${pk_row[xfer_window_bytes]}" ] || return 0
	a=$(awk -v w="${pk_row[xfer_window_bytes]}" -v d="$d" 'BEGIN { printf "%.1f", w / (d / 1000) / 1e6 }')
	if [ -n "$cipher" ] && awk -v c="$cipher" -v w="$a" 'BEGIN { exit !(c + 0 < w + 0) }'; then
		pk_row[xfer_bound]=cipher
		pk_row[xfer_bound_mbs]=$cipher
	else
		pk_row[xfer_bound]=window
		pk_row[xfer_bound_mbs]=$a
	fi
}

# ---- A run at its distances (test-ssh.sh) ---------------------------------

# raw/wire.tsv: one row per distance above 0 (docs/data.md).
WIRE_COLUMNS="rtt_ms mbit loss_pct wire_trim_ms connect_n connect_ms_p50 connect_ms_p99 echo_n echo_ms_p50 echo_ms_p99 probe_failed helper packets lost helper_cpu_ms login_n login_ms_p50 login_ms_p95 login_base_ms_p50 login_round_trips login_round_trips_low login_round_trips_high login_rt_packets login_wait_ms login_base_wait_ms login_rt_less_waits keyecho_n keyecho_ms_p50 keyecho_ms_p99 sftp_files sftp_file_kb sftp_files_per_s sftp_rt_per_file sftp_bound_files_per_s sftp_check xfer_mb xfer_bytes xfer_mbs xfer_mbs_parts_p50 xfer_window_bytes xfer_flight_bytes xfer_bound_mbs xfer_bound xfer_check status warning"
# The logins at each distance: LOGIN_SAMPLES, at most this many; the
# keystroke echoes: ECHO_COUNT, at most this many.
WIRE_LOGINS_MAX=50
WIRE_ECHOES_MAX=200

# wire_precheck: for test-ssh.sh, before anything runs: the distances
# need the test hosts that start made, and a test server listening on
# the kit's end of the wire. One line and exit 2 otherwise.
wire_precheck () {
	local why
	why=$(wire_refuse_reason)
	[ -z "$why" ] || die "NETWORK_RTT_MS=\"${SETTING[NETWORK_RTT_MS]}\" asks for a distance, but $why; set NETWORK_RTT_MS=0"
	if ! wire_hosts_exist || ! grep -qx "ListenAddress $(wire_server_addr)" "$SSHD_CONFIG" 2>/dev/null; then
		die "NETWORK_RTT_MS=\"${SETTING[NETWORK_RTT_MS]}\" needs the test hosts on NETWORK_RANGE=${SETTING[NETWORK_RANGE]}; run NETWORK_RTT_MS=\"${SETTING[NETWORK_RTT_MS]}\" ./start-ssh.sh first (or set it in settings.conf)"
	fi
}

# The wire of the distance in progress, for wire_clear_current (at the
# run's exit and on a signal).
WIRE_PID=""
WIRE_OUT=""
WIRE_PROBES=""
wire_clear_current () {
	local p
	# The probes of an interrupted measurement (the kit's own pids).
	for p in $WIRE_PROBES; do
		kill -KILL "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	WIRE_PROBES=""
	[ -n "$WIRE_PID" ] || return 0
	WIRE_STATE=$(wire_clear "$WIRE_PID" "$WIRE_OUT")
	WIRE_PID=""
}

# wire_far_status ROW: the row's status FAIL with the reason, when its
# sftp files or its transfer did not all arrive (a short transfer is a
# failure, not a slower figure).
# shellcheck disable=SC2154 # st_row: the caller's associative array
wire_far_status () {
	local -n st_row=$1
	if [ -n "${st_row[sftp_check]}" ] && [ "${st_row[sftp_check]}" != ok ]; then
		case ${st_row[sftp_check]} in
		'not run:'*) [ "${st_row[status]}" = FAIL ] || st_row[status]=ERROR ;;
		*) st_row[status]=FAIL ;;
		esac
		st_row[warning]="${st_row[warning]:+${st_row[warning]}; }the sftp files: ${st_row[sftp_check]}"
	fi
	if [ -n "${st_row[xfer_check]}" ] && [ "${st_row[xfer_check]}" != ok ]; then
		st_row[status]=FAIL
		st_row[warning]="${st_row[warning]:+${st_row[warning]}; }the transfer: ${st_row[xfer_check]}"
	fi
}

# wire_run_distances: every distance above 0 in turn: the wire made, then
# measured (sshperf-wireprobe), the logins, keystrokes, sftp files and a
# transfer across it, with a record of its packets (marked per part),
# then taken down again; a row of raw/wire.tsv each, after one for 0 by
# the same method over loopback. A helper that died during its distance
# is said so (fail-closed: its packets were dropped, nothing crossed the
# wire at 0).
wire_run_distances () {
	local d cap table="$RAW_DIR/wire.tsv" probe n login0="" logins ne keyecho cipher0="" files
	local -A row
	n=${SETTING[LOGIN_SAMPLES]}
	[ "$n" -le "$WIRE_LOGINS_MAX" ] || n=$WIRE_LOGINS_MAX
	ne=${SETTING[ECHO_COUNT]}
	[ "$ne" -le "$WIRE_ECHOES_MAX" ] || ne=$WIRE_ECHOES_MAX
	files=${SETTING[SFTP_SMALL_FILES]}
	[ "$files" -le "$WIRE_SFTP_FILES_MAX" ] || files=$WIRE_SFTP_FILES_MAX
	tsv_header "$WIRE_COLUMNS" >"$table"
	WIRE_FILES_WHY=""
	if ! wire_files_up "$files" "$((SETTING[SFTP_SMALL_FILE_KB] * 1000))" 2>"$RAW_DIR/wire-files.err"; then
		WIRE_FILES_WHY=$(tail -n 1 "$RAW_DIR/wire-files.err")
		wire_files_down
	fi
	# Distance 0 by the same method: the logins' base.
	progress "distance 0 ms: $n logins from this host over loopback (the base of the round trips per login)"
	row=([rtt_ms]=0 [mbit]=none [loss_pct]=0 [helper]=none)
	logins="$RAW_DIR/wire-0-logins.tsv"
	if wire_logins loopback "$n" "$logins"; then
		login0=$(kv_get "$logins.env" p50)
		row[status]=ok
	else
		row[status]=ERROR
		row[warning]="the logins failed: $(tail -n 1 "$logins.err" 2>/dev/null)"
	fi
	row[login_n]=$(kv_get "$logins.env" n)
	row[login_ms_p50]=$login0
	row[login_ms_p95]=$(kv_get "$logins.env" p95)
	progress "distance 0 ms: $ne keystrokes through one ssh session over loopback"
	keyecho="$RAW_DIR/wire-0-keyecho.env"
	wire_keyecho loopback "$ne" "$keyecho" || row[warning]="${row[warning]:+${row[warning]}; }the keystroke echo failed: $(tail -n 1 "$keyecho.err" 2>/dev/null)"
	row[keyecho_n]=$(kv_get "$keyecho" n)
	row[keyecho_ms_p50]=$(kv_get "$keyecho" p50)
	row[keyecho_ms_p99]=$(kv_get "$keyecho" p99)
	wire_far loopback 0 row
	wire_far_status row
	# The cipher's speed: the upload at 0 once under way (its parts'
	# median; its first part carries the start, seconds on a busy host).
	cipher0=${row[xfer_mbs_parts_p50]:-${row[xfer_mbs]}}
	tsv_row row "$WIRE_COLUMNS" >>"$table"
	for d in $(wire_distances); do
		row=([rtt_ms]="$d" [mbit]="${SETTING[NETWORK_MBIT]:-none}" [loss_pct]="${SETTING[NETWORK_LOSS_PCT]}")
		probe="$RAW_DIR/wire-$d-probe.env"
		progress "distance $d ms: the wire made and measured (TCP connect and one-byte echo)"
		if ! wire_set "$d" "$RAW_DIR/wire-$d-helper.env" "$RAW_DIR/wire-$d-packets.tsv"; then
			row[status]=ERROR
			row[warning]="the wire's helper did not start: $(head -n 1 "$WIRE_OUT" 2>/dev/null)"
			wire_clear_current
			tsv_row row "$WIRE_COLUMNS" >>"$table"
			continue
		fi
		wire_measure "$d" "$probe" >"$probe.out" 2>&1 || true
		# The wire's own cost comes on top of its hold: hold that much
		# less and measure the wire again (once). The row keeps what was
		# taken off (wire_trim_ms) and the second measurement;
		# raw/wire-N-probe.untrimmed keeps the first.
		WIRE_TRIM_MS=$(wire_trim "$d" "$probe")
		if [ -n "$WIRE_TRIM_MS" ]; then
			row[wire_trim_ms]=$WIRE_TRIM_MS
			mv -f "$probe" "$probe.untrimmed"
			wire_clear_current
			if ! wire_set "$d" "$RAW_DIR/wire-$d-helper.env" "$RAW_DIR/wire-$d-packets.tsv"; then
				row[status]=ERROR
				row[warning]="the wire's helper did not start again after its trim: $(head -n 1 "$WIRE_OUT" 2>/dev/null)"
				wire_clear_current
				WIRE_TRIM_MS=""
				tsv_row row "$WIRE_COLUMNS" >>"$table"
				continue
			fi
			wire_measure "$d" "$probe" >"$probe.out" 2>&1 || true
		fi
		# What the wire holds: the round trip the packets' turns are read by.
		WIRE_HOLD_MS=$(awk -v d="$d" -v t="${WIRE_TRIM_MS:-0}" 'BEGIN { h = d - t; print (h < 0 ? 0 : h) }')
		WIRE_TRIM_MS=""
		row[connect_n]=$(kv_get "$probe" connect_ms_n)
		row[connect_ms_p50]=$(kv_get "$probe" connect_ms_p50)
		row[connect_ms_p99]=$(kv_get "$probe" connect_ms_p99)
		row[echo_n]=$(kv_get "$probe" echo_ms_n)
		row[echo_ms_p50]=$(kv_get "$probe" echo_ms_p50)
		row[echo_ms_p99]=$(kv_get "$probe" echo_ms_p99)
		row[probe_failed]=$(kv_get "$probe" failed)
		row[warning]=$(kv_get "$probe.out" wire_warning)
		if [ "${row[probe_failed]:-1}" = 0 ]; then
			progress "distance $d ms: $n logins from the test host across the wire"
			logins="$RAW_DIR/wire-$d-logins.tsv"
			# The base of the round trips: logins over loopback just
			# before and just after those across the wire, half each, so
			# that both see the same load (the row for 0 was taken
			# minutes earlier; on a busy machine a login's own time moved
			# by more than a round trip in between).
			# Their packets too, for the TCP waits (wire_wait_trips); the
			# logins go on without them when the capture cannot run.
			cap=""
			! capture_start "wire-$d-base" "$(( 2 * n * SETTING[LOGIN_TIMEOUT] + 60 ))" || cap=yes
			wire_logins loopback "$(( (n + 1) / 2 ))" "$logins.base1" ||
				row[warning]="${row[warning]:+${row[warning]}; }the base logins over loopback before those across the wire failed: $(tail -n 1 "$logins.base1.err" 2>/dev/null)"
			wire_mark logins || true
			wire_logins testhost "$n" "$logins" || row[warning]="${row[warning]:+${row[warning]}; }the logins across the wire failed: $(tail -n 1 "$logins.err" 2>/dev/null)"
			wire_logins loopback "$(( n / 2 > 0 ? n / 2 : 1 ))" "$logins.base2" ||
				row[warning]="${row[warning]:+${row[warning]}; }the base logins over loopback after those across the wire failed: $(tail -n 1 "$logins.base2.err" 2>/dev/null)"
			[ -z "$cap" ] || at_exit_pop
			row[login_n]=$(kv_get "$logins.env" n)
			row[login_ms_p50]=$(kv_get "$logins.env" p50)
			row[login_ms_p95]=$(kv_get "$logins.env" p95)
			row[login_base_ms_p50]=$(wire_base_p50 "$logins.base1" "$logins.base2")
			# Round trips per login: what the distance added, in round
			# trips, with its 95 % interval.
			wire_round_trips "$logins" "$d" row
		fi
		# Each part only while the wire holds (a helper that died makes
		# every connection wait out its deadline: the wire failed closed).
		if [ "${row[probe_failed]:-1}" = 0 ] && wire_pid_is_ours "$WIRE_PID"; then
			progress "distance $d ms: $ne keystrokes through one ssh session across the wire"
			keyecho="$RAW_DIR/wire-$d-keyecho.env"
			wire_mark keyecho || true
			wire_keyecho testhost "$ne" "$keyecho" || row[warning]="${row[warning]:+${row[warning]}; }the keystroke echo across the wire failed: $(tail -n 1 "$keyecho.err" 2>/dev/null)"
			row[keyecho_n]=$(kv_get "$keyecho" n)
			row[keyecho_ms_p50]=$(kv_get "$keyecho" p50)
			row[keyecho_ms_p99]=$(kv_get "$keyecho" p99)
			wire_load_run "$d" "${row[login_ms_p50]}"	# rate, burst and MaxStartups here (lib/wire-load.sh)
		fi
		if [ "${row[probe_failed]:-1}" = 0 ] && wire_pid_is_ours "$WIRE_PID"; then
			wire_far testhost "$d" row
		fi
		wire_clear_current
		row[helper]=$WIRE_STATE
		row[packets]=$(kv_get "$WIRE_OUT" packets)
		row[lost]=$(kv_get "$WIRE_OUT" lost)
		row[helper_cpu_ms]=$(kv_get "$WIRE_OUT" cpu_ms)
		if [ "$WIRE_STATE" = died ]; then
			row[status]=ERROR
			row[warning]="the wire's helper died during this distance: the wire failed closed (its packets were dropped), so what was measured across it failed and is not a figure at this distance"
			warn "distance $d ms: the wire's helper died; the wire failed closed and this distance's figures are marked ERROR"
		elif [ "${row[probe_failed]:-1}" != 0 ] || [ -z "${row[connect_ms_p50]}" ]; then
			row[status]=ERROR
			row[warning]="the probe through the wire failed (${row[probe_failed]:-no answer} failures)"
		else
			row[status]=ok
			wire_far_packets "$d" "$cipher0" row
			wire_far_status row
		fi
		tsv_row row "$WIRE_COLUMNS" >>"$table"
		progress "distance $d ms: TCP connect p50 ${row[connect_ms_p50]:--} ms, one-byte echo p50 ${row[echo_ms_p50]:--} ms (${row[connect_n]:-0} and ${row[echo_n]:-0} samples); login p50 ${row[login_ms_p50]:--} ms (${row[login_n]:-0} logins, ${row[login_base_ms_p50]:--} ms over loopback meanwhile): ${row[login_round_trips]:--} round trips per login (95 % ${row[login_round_trips_low]:--} to ${row[login_round_trips_high]:--}), ${row[login_rt_packets]:--} in the packets; keystroke echo p50 ${row[keyecho_ms_p50]:--} ms, p99 ${row[keyecho_ms_p99]:--} ms (${row[keyecho_n]:-0}); sftp ${row[sftp_files_per_s]:--} files/s, ${row[sftp_rt_per_file]:--} round trips a file, bound ${row[sftp_bound_files_per_s]:--} files/s; transfer ${row[xfer_mbs]:--} MB/s of ${row[xfer_mb]:--} MB, bound ${row[xfer_bound_mbs]:--} MB/s (${row[xfer_bound]:--}) -> ${row[status]}${row[warning]:+; ${row[warning]}}"
	done
	# The files' folders (wire_files_up's at_exit).
	at_exit_pop
}
