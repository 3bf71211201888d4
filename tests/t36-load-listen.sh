#!/usr/bin/env bash
# Load from other machines, the target's part (docs/load-hosts.md,
# lib/loadhosts.sh): with LISTEN_ADDRESS and LOAD_HOSTS the test server
# also listens on that address of this host, and sshd admits the test
# user there from the load hosts only. A load host is played by a network
# namespace of this test with a veth to the host (198.18.0.0/15, set
# aside for benchmarks): a login from its address works, one from a
# second address of the same namespace, not in LOAD_HOSTS, is refused by
# sshd (AllowUsers); 127.0.0.1 still works, and the server listens on
# exactly 127.0.0.1 and LISTEN_ADDRESS. With firewalld running (a
# recording stand-in for firewall-cmd, SSHPERF_FIREWALL_CMD) the kit adds
# its own policy with one rule per load host and removes exactly that at
# cleanup; without it, it says so. Bad settings are refused with exit 2
# and one line before anything changes. Cleanup leaves the host as it was.
. "$(dirname "$0")/lib/harness.sh"
. "$TEST_DIR/lib/snapshot.sh"
. "$TEST_DIR/lib/procs.sh"

host_kit_test 'load hosts'
LOAD_HOST_WHAT='load hosts'
. "$TEST_DIR/lib/loadhost.sh"

# This instance's own /24 in 198.18.0.0/15, apart from the ones t62 and
# t63 take (their + 20); its own namespace and veth names (spl: load).
N=$(instance_port_offset "$TEST_INSTANCE")
P=198.18.$((N % 100 + 140))
NS=sshperf-load-$TEST_INSTANCE
DEV=spl${N}h
PEER=spl${N}c
SERVER_ADDR=$P.1
LOAD_ADDR=$P.2
OTHER_ADDR=$P.3
export SSHPERF_FIREWALL_CMD="$TEST_TMP/fw/firewall-cmd"
test_atexit '"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null 2>&1'

# A recording stand-in for firewall-cmd: each call's arguments on a line
# of fw/log; --state answers what fw/state holds; policies made and
# deleted in its permanent configuration (fw/permanent), applied by
# --reload (fw/runtime); zones listed alike in both, apart from a
# runtime-only line when fw/runtime-only exists.
mkdir -p "$TEST_TMP/fw"
cat >"$SSHPERF_FIREWALL_CMD" <<'EOF'
#!/bin/bash
d=$(dirname "$0")
printf '%s\n' "$*" >>"$d/log"
touch "$d/permanent" "$d/runtime"
list () {
	while read -r p; do [ -z "$p" ] || printf '%s%s\n  priority: -1\n' "$p" "$2"; done <"$d/$1"
}
case $* in
--state) if [ "$(cat "$d/state")" = running ]; then echo running; else echo "not running"; exit 252; fi ;;
"--permanent --get-policies") list permanent "" | grep -v priority | paste -sd' ' - ;;
--list-all-zones) printf 'public (default, active)\n  target: default\n  interfaces: eth0\n'; [ ! -e "$d/runtime-only" ] || echo "  ports: 8080/tcp" ;;
"--permanent --list-all-zones") printf 'public (default)\n  target: default\n' ;;
--list-all-policies) list runtime " (active)" ;;
"--permanent --list-all-policies") list permanent "" ;;
"--permanent --new-policy="*) echo "${2#*=}" >>"$d/permanent" ;;
"--permanent --delete-policy="*) grep -vxF "${2#*=}" "$d/permanent" >"$d/p.new"; mv "$d/p.new" "$d/permanent" ;;
--reload) cp "$d/permanent" "$d/runtime" ;;
esac
exit 0
EOF
chmod 0755 "$SSHPERF_FIREWALL_CMD"
echo "not running" >"$TEST_TMP/fw/state"
# fw_changes: the calls that change firewalld (not the questions).
fw_changes () {
	grep -v -e '^--state$' -e '--list-all' -e '--get-policies' -e '--query-rich-rule' "$TEST_TMP/fw/log" 2>/dev/null || :
}

# The load host: a namespace with a veth to the host; the host's end
# has SERVER_ADDR, the namespace's end LOAD_ADDR and OTHER_ADDR.
load_host_clear "$NS" "$DEV"
load_host_make "$NS" "$DEV" "$PEER" "$SERVER_ADDR" "$LOAD_ADDR" "$OTHER_ADDR"

host_snapshot_save

# refused TEXT SETTING=VALUE...: start-ssh.sh with these settings exits 2
# with one line holding TEXT, and nothing on the host changed.
refused () {
	local text=$1 rc=0
	shift
	env "$@" "$KIT_DIR/start-ssh.sh" >"$TEST_TMP/o" 2>"$TEST_TMP/e" || rc=$?
	[ "$rc" -eq 2 ] || { echo "exit $rc from: $*"; cat "$TEST_TMP/o" "$TEST_TMP/e"; return 1; }
	[ "$(wc -l <"$TEST_TMP/e")" -eq 1 ] || { echo "not one line:"; cat "$TEST_TMP/e"; return 1; }
	cat "$TEST_TMP/e"
	test_grep -F -- "$text" "$TEST_TMP/e" &&
	host_unchanged && [ ! -d "$STATE_DIR" ] &&
	test_eq "$(fw_changes)" ""
}

test_expect 'a wildcard listening address is refused' '
	refused "LISTEN_ADDRESS=\"0.0.0.0\"" LISTEN_ADDRESS=0.0.0.0 LOAD_HOSTS="$LOAD_ADDR" &&
	refused "LISTEN_ADDRESS=\"::\"" LISTEN_ADDRESS=:: LOAD_HOSTS="$LOAD_ADDR" &&
	refused "LISTEN_ADDRESS=\"*\"" LISTEN_ADDRESS="*" LOAD_HOSTS="$LOAD_ADDR" &&
	test_grep -F "neither a wildcard (0.0.0.0, ::, *)" "$TEST_TMP/e"
'
test_expect 'a loopback listening address is refused (127.0.0.1 is there already)' '
	refused "LISTEN_ADDRESS=\"127.0.0.1\"" LISTEN_ADDRESS=127.0.0.1 LOAD_HOSTS="$LOAD_ADDR" &&
	refused "LISTEN_ADDRESS=\"::1\"" LISTEN_ADDRESS=::1 LOAD_HOSTS="$LOAD_ADDR"
'
test_expect 'an address this host does not have is refused' '
	refused "LISTEN_ADDRESS=$P.99 is not an address of this host" LISTEN_ADDRESS="$P.99" LOAD_HOSTS="$LOAD_ADDR"
'
test_expect 'an address without load hosts, and load hosts without an address, are refused' '
	refused "LISTEN_ADDRESS=$SERVER_ADDR names no load host: set LOAD_HOSTS" LISTEN_ADDRESS="$SERVER_ADDR" &&
	refused "needs an address to reach the test server on: set LISTEN_ADDRESS" LOAD_HOSTS="$LOAD_ADDR"
'
test_expect 'a load host whose name does not resolve is refused' '
	refused "LOAD_HOSTS: the name no-such-load-host.invalid does not resolve" \
		LISTEN_ADDRESS="$SERVER_ADDR" LOAD_HOSTS="$LOAD_ADDR no-such-load-host.invalid"
'
test_expect 'a range wider than 256 addresses is refused (IPv4 /24, IPv6 /120)' '
	refused "LOAD_HOSTS=\"198.18.0.0/23\"" LISTEN_ADDRESS="$SERVER_ADDR" LOAD_HOSTS=198.18.0.0/23 &&
	refused "LOAD_HOSTS=\"2001:db8::/119\"" LISTEN_ADDRESS="$SERVER_ADDR" LOAD_HOSTS=2001:db8::/119 &&
	refused "LOAD_HOSTS=\"10.0.0.1/24\"" LISTEN_ADDRESS="$SERVER_ADDR" LOAD_HOSTS=10.0.0.1/24 &&
	test_grep -F "IPv4 /24 to /32, IPv6 /120 to /128" "$TEST_TMP/e"
'
test_expect 'a load host of the other address family is refused' '
	refused "LOAD_HOSTS: 2001:db8::7 is IPv6, but LISTEN_ADDRESS=$SERVER_ADDR is IPv4" \
		LISTEN_ADDRESS="$SERVER_ADDR" LOAD_HOSTS="2001:db8::7"
'
test_expect 'with firewalld running: runtime-only rules (a reload would drop them) are refused' '
	echo running >"$TEST_TMP/fw/state" && touch "$TEST_TMP/fw/runtime-only" &&
	test_when_finished "echo not running >\"$TEST_TMP/fw/state\"; rm -f \"$TEST_TMP/fw/runtime-only\" \"$TEST_TMP/fw/log\"" &&
	refused "firewalld'"'"'s runtime configuration differs from its permanent one" \
		LISTEN_ADDRESS="$SERVER_ADDR" LOAD_HOSTS="$LOAD_ADDR"
'
test_expect 'with firewalld running: a policy of the kit'"'"'s name it did not make is refused' '
	echo running >"$TEST_TMP/fw/state" && echo "sshperf-$TEST_PORT" >"$TEST_TMP/fw/permanent" &&
	test_when_finished "echo not running >\"$TEST_TMP/fw/state\"; rm -f \"$TEST_TMP/fw/permanent\" \"$TEST_TMP/fw/log\"" &&
	refused "firewalld has a policy sshperf-$TEST_PORT that sshd-perf-kit did not make" \
		LISTEN_ADDRESS="$SERVER_ADDR" LOAD_HOSTS="$LOAD_ADDR"
'

test_expect 'a name is resolved to its addresses (lib/loadhosts.sh)' '
	(
		. "$KIT_DIR/lib/common.sh" && . "$KIT_DIR/lib/loadhosts.sh" &&
		load_resolve localhost 4
	) >"$TEST_TMP/resolved" &&
	test_grep -x "127.0.0.1" "$TEST_TMP/resolved"
'

# in_ns CMD...: CMD in the load host's namespace, with a deadline.
in_ns () {
	timeout 60 ip netns exec "$NS" "$@"
}
# ssh_from SOURCE: a login from the load host's SOURCE address to
# LISTEN_ADDRESS with the real ssh client, the kit's key and its pinned
# host keys (the kit's client config binds to loopback: not used here).
ssh_from () {
	in_ns ssh -F /dev/null -i "$CLIENT_DIR/id_rsa" -b "$1" -p "$TEST_PORT" \
		-o BatchMode=yes -o StrictHostKeyChecking=yes -o UserKnownHostsFile="$CLIENT_DIR/known_hosts" \
		-o GSSAPIAuthentication=no -o ConnectTimeout=20 -l "$TEST_USER" "$SERVER_ADDR" echo load-ok
}
# server_log: the test server's log (direct mode's file, or the unit's
# journal).
server_log () {
	if [ -f "$STATE_DIR/sshd.log" ]; then cat "$STATE_DIR/sshd.log"; else journalctl -u "$UNIT_NAME" --no-pager -q -o cat 2>/dev/null; fi
}
# listeners: the test port's listening sockets, local address:port.
listeners () {
	ss -ltnH "sport = :$TEST_PORT" | awk '{ print $4 }' | sort
}

export LISTEN_ADDRESS="$SERVER_ADDR" LOAD_HOSTS="$LOAD_ADDR"

test_expect 'start without firewalld: says so, listens on 127.0.0.1 and LISTEN_ADDRESS, AllowUsers by source' '
	"$KIT_DIR/start-ssh.sh" >"$TEST_TMP/start.out" 2>&1 || { cat "$TEST_TMP/start.out"; false; } &&
	cat "$TEST_TMP/start.out" &&
	test_grep "firewalld is not running: no firewall rule added" "$TEST_TMP/start.out" &&
	test_grep -F "also on $SERVER_ADDR:$TEST_PORT, for $TEST_USER from the load hosts $LOAD_ADDR only" "$TEST_TMP/start.out" &&
	test_eq "$(fw_changes)" "" &&
	grep -E "^(ListenAddress|AllowUsers|AddressFamily)" "$SSHD_CONFIG" >"$TEST_TMP/lines" &&
	printf "%s\n" "ListenAddress 127.0.0.1" "ListenAddress $SERVER_ADDR" "AddressFamily inet" \
		"AllowUsers $TEST_USER@127.0.0.0/8 $TEST_USER@$LOAD_ADDR" >"$TEST_TMP/want" &&
	test_cmp "$TEST_TMP/want" "$TEST_TMP/lines" &&
	printf "%s\n" "127.0.0.1:$TEST_PORT" "$SERVER_ADDR:$TEST_PORT" | sort >"$TEST_TMP/want" &&
	listeners >"$TEST_TMP/got" && test_cmp "$TEST_TMP/want" "$TEST_TMP/got" &&
	"$KIT_DIR/start-ssh.sh" status >"$TEST_TMP/status" &&
	test_grep -x "load_address=$SERVER_ADDR:$TEST_PORT" "$TEST_TMP/status" &&
	test_grep -x "load_hosts=$LOAD_ADDR" "$TEST_TMP/status"
'
test_expect 'a login from the load host works' '
	ssh_from "$LOAD_ADDR" >"$TEST_TMP/out" 2>&1 || { cat "$TEST_TMP/out"; false; } &&
	test_grep -x "load-ok" "$TEST_TMP/out"
'
test_expect 'a login from another address is refused by sshd (AllowUsers)' '
	rc=0 && ssh_from "$OTHER_ADDR" >"$TEST_TMP/out" 2>&1 || rc=$? &&
	cat "$TEST_TMP/out" &&
	test_eq "$rc" 255 &&
	test_grep ! -x "load-ok" "$TEST_TMP/out" &&
	waits_for 20 grep -q "User $TEST_USER from $OTHER_ADDR not allowed because not listed in AllowUsers" <(server_log) ||
	{ server_log | tail -n 5; false; }
'
test_expect '127.0.0.1 still works, through the kit'"'"'s client config' '
	timeout 60 ssh -F "$CLIENT_CONFIG" "$HOST_ALIAS" echo local-ok >"$TEST_TMP/out" 2>&1 || { cat "$TEST_TMP/out"; false; } &&
	test_grep -x "local-ok" "$TEST_TMP/out"
'
test_expect 'cleanup leaves the host as before' '
	"$KIT_DIR/start-ssh.sh" -q cleanup &&
	host_unchanged && no_kit_processes && [ ! -d "$STATE_DIR" ] &&
	test_eq "$(listeners)" ""
'

test_expect 'with firewalld running: a policy of the kit'"'"'s own, one rule per load host, recorded' '
	echo running >"$TEST_TMP/fw/state" && rm -f "$TEST_TMP/fw/log" &&
	"$KIT_DIR/start-ssh.sh" >"$TEST_TMP/start.out" 2>&1 || { cat "$TEST_TMP/start.out"; false; } &&
	test_grep -F "firewalld: policy sshperf-$TEST_PORT opens TCP port $TEST_PORT on $SERVER_ADDR to $LOAD_ADDR only" "$TEST_TMP/start.out" &&
	rule="rule family=\"ipv4\" source address=\"$LOAD_ADDR\" destination address=\"$SERVER_ADDR\" port port=\"$TEST_PORT\" protocol=\"tcp\" accept" &&
	printf "%s\n" "--permanent --new-policy=sshperf-$TEST_PORT" \
		"--permanent --policy=sshperf-$TEST_PORT --set-description=sshd-perf-kit: the load hosts of the test server on port $TEST_PORT (removed by start-ssh.sh cleanup)" \
		"--permanent --policy=sshperf-$TEST_PORT --add-ingress-zone=ANY" \
		"--permanent --policy=sshperf-$TEST_PORT --add-egress-zone=HOST" \
		"--permanent --policy=sshperf-$TEST_PORT --add-rich-rule=$rule" \
		"--reload" >"$TEST_TMP/want" &&
	fw_changes >"$TEST_TMP/got" && test_cmp "$TEST_TMP/want" "$TEST_TMP/got" &&
	test_grep -x "fwpolicy sshperf-$TEST_PORT" "$STATE_DIR/created" &&
	test_grep -xF "fwrule sshperf-$TEST_PORT $rule" "$STATE_DIR/created" &&
	ssh_from "$LOAD_ADDR" >"$TEST_TMP/out" 2>&1 && test_grep -x "load-ok" "$TEST_TMP/out"
'
test_expect 'a restart with other load hosts is refused while the policy is in place' '
	rc=0 && LOAD_HOSTS="$OTHER_ADDR" "$KIT_DIR/start-ssh.sh" >"$TEST_TMP/o" 2>"$TEST_TMP/e" || rc=$? &&
	cat "$TEST_TMP/e" && test_eq "$rc" 2 && test_eq "$(wc -l <"$TEST_TMP/e")" 1 &&
	test_grep "LISTEN_ADDRESS or LOAD_HOSTS changed since the firewall policy sshperf-$TEST_PORT was made" "$TEST_TMP/e"
'
test_expect 'cleanup removes exactly that policy and its rule, then reloads' '
	rm -f "$TEST_TMP/fw/log" &&
	"$KIT_DIR/start-ssh.sh" cleanup >"$TEST_TMP/out" 2>&1 || { cat "$TEST_TMP/out"; false; } &&
	test_grep "removed the firewalld policy sshperf-$TEST_PORT" "$TEST_TMP/out" &&
	rule="rule family=\"ipv4\" source address=\"$LOAD_ADDR\" destination address=\"$SERVER_ADDR\" port port=\"$TEST_PORT\" protocol=\"tcp\" accept" &&
	printf "%s\n" "--policy=sshperf-$TEST_PORT --remove-rich-rule=$rule" \
		"--permanent --delete-policy=sshperf-$TEST_PORT" "--reload" >"$TEST_TMP/want" &&
	fw_changes >"$TEST_TMP/got" && test_cmp "$TEST_TMP/want" "$TEST_TMP/got" &&
	test_eq "$(cat "$TEST_TMP/fw/permanent" "$TEST_TMP/fw/runtime")" "" &&
	host_unchanged && no_kit_processes && [ ! -d "$STATE_DIR" ]
'

test_expect 'the test removes its namespace: the host'"'"'s network as before the test' '
	load_host_gone "$NS" "$DEV"
'

test_done
