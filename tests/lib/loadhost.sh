# shellcheck shell=bash
# A load host for the tests of load from other machines (t36: the
# target's side, t37: the load mode): a network namespace of the test's
# own with a veth pair to the host, the host's end SERVER_ADDR (the
# target's LISTEN_ADDRESS), the namespace's end the load host's
# addresses, all in one /24 (or the network SERVER_ADDR/LEN names). A
# second load host is a second namespace and veth on another part of
# the network, which reaches the target's address through the host
# (load_host_route). Sourced after harness.sh (test_atexit),
# procs.sh (waits_for) and host_kit_test (TEST_INSTANCE is the file's instance).
# Sourcing it skips the whole file, and exits, where namespaces cannot be
# made; it takes the host's network as it was (net.before, netsnap.sh).

if ! command -v ip >/dev/null || ! unshare --net true 2>/dev/null; then
	test_skip "${LOAD_HOST_WHAT:-a load host}" 'needs ip and network namespaces (unshare --net)'
	test_done
	exit 0
fi
. "$TEST_DIR/lib/netsnap.sh"
net_snapshot >"$TEST_TMP/net.before"

# load_host_clear NS DEV [NS DEV ...]: removes namespaces NS and veths DEV
# that a run of this file killed before its cleanup left (the names are
# the instance's own, and an instance runs one file at a time), says so,
# and takes the host's network again as the file now finds it. Without
# it such a run's leftovers made the next start bail out ("File exists").
load_host_clear () {
	local left=""
	while [ "$#" -ge 2 ]; do
		if ip netns list | grep -qx -e "$1" -e "$1 (id: [0-9]*)"; then
			ip netns del "$1" && left="$left $1"
		fi
		if ip link show "$2" >/dev/null 2>&1; then
			ip link del "$2" && left="$left $2"
		fi
		shift 2
	done
	[ -n "$left" ] || return 0
	printf '# removed what an earlier, killed run of this instance left:%s\n' "$left"
	waits_for 20 load_host_cleared_ "$left" >/dev/null
	net_snapshot >"$TEST_TMP/net.before"
}
# load_host_cleared_ "NAME...": none of the namespaces or links is there.
load_host_cleared_ () {
	local n
	for n in $1; do
		! ip netns list | grep -qx -e "$n" -e "$n (id: [0-9]*)" || return 1
		! ip link show "$n" >/dev/null 2>&1 || return 1
	done
}

# load_host_make NS DEV PEER SERVER_ADDR[/LEN] LOAD_ADDR...: the
# namespace NS, the veth DEV (the host's end, SERVER_ADDR) to PEER in NS
# (each LOAD_ADDR), all in the network of length LEN (24 when left out),
# up and with their carrier; removed when the file ends. Bails out of the
# file when it cannot be made.
load_host_make () {
	local ns=$1 dev=$2 peer=$3 server=$4 len=24 a
	shift 4
	case $server in */*) len=${server#*/} server=${server%/*} ;; esac
	test_atexit "ip netns del '$ns' 2>/dev/null; ip link del '$dev' 2>/dev/null; :"
	{ ip netns add "$ns" &&
		ip link add "$dev" type veth peer name "$peer" netns "$ns" &&
		ip addr add "$server/$len" dev "$dev" && ip link set "$dev" up; } ||
		{ echo "Bail out! cannot make the load host's namespace $ns"; exit 1; }
	for a in "$@"; do
		ip -n "$ns" addr add "$a/$len" dev "$peer" || { echo "Bail out! cannot give $ns the address $a"; exit 1; }
	done
	{ ip -n "$ns" link set "$peer" up && ip -n "$ns" link set lo up; } ||
		{ echo "Bail out! cannot bring $ns's link up"; exit 1; }
	# The veth's carrier on both ends (IPv4 addresses need no duplicate
	# address detection).
	waits_for 20 load_host_link_up "$ns" "$dev" "$peer" >/dev/null ||
		{ echo "Bail out! the veth $dev to $ns has no carrier"; exit 1; }
}

# load_host_route NS ADDR GATEWAY: the load host NS reaches ADDR, an
# address of the host outside its own network, through GATEWAY (the
# host's end of its veth). Bails out of the file when it cannot.
load_host_route () {
	ip -n "$1" route add "$2/32" via "$3" ||
		{ echo "Bail out! cannot route $1 to $2 through $3"; exit 1; }
}

# load_host_link_up NS DEV PEER: both ends of the veth have a carrier.
load_host_link_up () {
	case $(ip -o link show "$2") in *LOWER_UP*) ;; *) return 1 ;; esac
	case $(ip -n "$1" -o link show "$3") in *LOWER_UP*) ;; *) return 1 ;; esac
}

# load_host_gone NS DEV: removes the namespace and its veth, and the
# host's network is as the file found it; else the difference.
load_host_gone () {
	ip netns del "$1" && { ip link del "$2" 2>/dev/null || :; } &&
	waits_for 20 sh -c "! ip link show $2 >/dev/null 2>&1" &&
	net_snapshot >"$TEST_TMP/net.now" && test_cmp "$TEST_TMP/net.before" "$TEST_TMP/net.now"
}

# load_hosts_two TAG NAME: the two load hosts of the load mode's tests
# (t37, t39) in the /24 of this instance in 198.19.0.0/16 (one instance
# runs one file at a time), with namespaces sshperf-NAME-INSTANCE and
# sshperf-NAME2-INSTANCE and veths TAG<N>h/c and TAG<N>h2/c2 (netsnap.sh
# knows the tags and leaves other instances' out). The first host in the
# lower half of the /24, the second in its upper half, which reaches the
# target's address through the host. Sets N P NS DEV PEER SERVER_ADDR
# LOAD_ADDR NS2 DEV2 PEER2 GATEWAY2 LOAD_ADDR2.
load_hosts_two () {
	N=$(instance_port_offset "$TEST_INSTANCE")
	P=198.19.$((N % 200 + 20))
	NS=sshperf-$2-$TEST_INSTANCE DEV=$1${N}h PEER=$1${N}c
	SERVER_ADDR=$P.1 LOAD_ADDR=$P.2
	NS2=sshperf-${2}2-$TEST_INSTANCE DEV2=$1${N}h2 PEER2=$1${N}c2
	GATEWAY2=$P.129 LOAD_ADDR2=$P.130
	load_host_clear "$NS" "$DEV" "$NS2" "$DEV2"
	load_host_make "$NS" "$DEV" "$PEER" "$SERVER_ADDR/25" "$LOAD_ADDR"
	load_host_make "$NS2" "$DEV2" "$PEER2" "$GATEWAY2/25" "$LOAD_ADDR2"
	load_host_route "$NS2" "$SERVER_ADDR" "$GATEWAY2"
}
