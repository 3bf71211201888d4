# shellcheck shell=bash
# The host's network as a test of the test hosts takes it (t62, t63):
# what the kit must leave as it found it. Sourced after harness.sh.
#
# The other instances of tests running beside this one (run.sh's lanes,
# another run's TEST_OTHER_INSTANCES) have their own namespaces (named
# after the instance) and veths (spwN and a letter, N the instance's
# number, lib/names.sh; t36's load host splNh and splNc, t37's spmNh and
# spmNc, and its second load host's spmNh2 and spmNc2); they come and
# go, and are theirs to check.
# shellcheck disable=SC2086 # lists of instance names
NET_OTHERS=$(printf '%s\n' ${TEST_LANE_INSTANCES:-} ${TEST_OTHER_INSTANCES:-} | grep -vx "$TEST_INSTANCE" | sort -u |
	while read -r o; do [ -z "$o" ] || printf '%s\nspw%s[habc]\nspl%s[hc]\nspm%s[hc]\n' "$o" "$(instance_port_offset "$o")" "$(instance_port_offset "$o")" "$(instance_port_offset "$o")"; done | paste -sd'|')
NET_OTHERS=${NET_OTHERS:-^$}

# net_snapshot: namespaces, links, addresses, routes, rules, the kit's
# /etc/netns entries, iptables and nft; counters and address lifetimes
# (which change by themselves) left out, and the other instances' own.
net_snapshot () {
	local others=$NET_OTHERS
	ip netns list | grep -Ev "$others" || :
	ip -d link | sed 's/ link-netnsid [0-9]*//' | awk -v pat="$others" '/^[0-9]+: / { skip = ($2 ~ pat) } !skip'
	ip addr | grep -v 'valid_lft' | awk -v pat="$others" '/^[0-9]+: / { skip = ($2 ~ pat) } !skip'
	ip route show table all | grep -Ev "dev [^ ]*($others)" || :
	ip rule
	# /etc/netns itself is made by whichever instance needs it first and
	# removed by the one that made it: only what is in it is compared.
	find /etc/netns -mindepth 1 2>/dev/null | grep -Ev "$others" || :
	iptables-save | grep -v '^#' | sed 's/\[[0-9]*:[0-9]*\]//'
	if command -v nft >/dev/null; then nft list ruleset | sed 's/counter packets [0-9]* bytes [0-9]*/counter/'; fi
}
