# shellcheck shell=bash
# Load from other machines (docs/load-hosts.md): the test server also
# listens on LISTEN_ADDRESS, an address of this host, and admits the test
# user there only from LOAD_HOSTS (AllowUsers by source, as the test hosts
# of a distance are admitted, lib/wire.sh). With firewalld running, a
# policy of the kit's own opens TEST_PORT to those sources and to
# LISTEN_ADDRESS only. Everything is recorded in MANIFEST and removed at
# cleanup; without the two settings nothing of this happens.

# The firewall-cmd the kit runs (a test puts a recording stand-in here;
# the kit never looks for another firewall program).
FIREWALL_CMD=${SSHPERF_FIREWALL_CMD:-firewall-cmd}
# How long one firewall-cmd or one name look-up may take (s).
LOAD_STEP_SECONDS=30

# The sources AllowUsers and the firewall admit: LOAD_HOSTS with every
# name resolved (load_check sets it).
LOAD_SOURCES=""

# True when either setting asks for load hosts.
load_wanted () {
	[ -n "${SETTING[LISTEN_ADDRESS]}" ] || [ -n "${SETTING[LOAD_HOSTS]}" ]
}

# load_is_v6 ADDR: true for an IPv6 address or network.
load_is_v6 () {
	case $1 in *:*) return 0 ;; esac
	return 1
}

# load_host_addresses: this host's addresses, one per line, as
# ip -o addr prints them (without the prefix length), lower case.
load_host_addresses () {
	ip -o addr show 2>/dev/null | awk '{ a = $4; sub(/\/.*/, "", a); print tolower(a) }' | sort -u
}

# load_resolve NAME FAMILY: the addresses of NAME of FAMILY (4 or 6), one
# per line; empty when it does not resolve (within LOAD_STEP_SECONDS).
load_resolve () {
	local db=ahostsv4
	[ "$2" = 4 ] || db=ahostsv6
	timeout "$LOAD_STEP_SECONDS" getent "$db" "$1" 2>/dev/null | awk '{ print tolower($1) }' |
		{ if [ "$2" = 6 ]; then grep -v '^::ffff:'; else cat; fi; } | sort -u || true
}

# load_check: refuses (exit 2, one line) what the settings cannot mean,
# before anything on the host changes; sets LOAD_SOURCES. The syntax
# (an address, no wildcard, no loopback, ranges of at most 256
# addresses) was checked by sshperf-settings already.
load_check () {
	local addr=${SETTING[LISTEN_ADDRESS]} hosts=${SETTING[LOAD_HOSTS]} fam=4 h got
	load_wanted || return 0
	[ -n "$hosts" ] ||
		die "LISTEN_ADDRESS=$addr names no load host: set LOAD_HOSTS too (the addresses, names or networks that may log in on it), or leave LISTEN_ADDRESS empty"
	[ -n "$addr" ] ||
		die "LOAD_HOSTS=\"$hosts\" needs an address to reach the test server on: set LISTEN_ADDRESS to an address of this host (ip -o addr), or leave LOAD_HOSTS empty"
	load_is_v6 "$addr" && fam=6
	case ${addr,,} in fe[89ab]?:*)
		die "LISTEN_ADDRESS=$addr is an IPv6 link-local address, which needs an interface to listen on: use a global address of this host (ip -o addr)" ;;
	esac
	command -v ip >/dev/null 2>&1 ||
		die "LISTEN_ADDRESS=$addr: ip is not installed (it tells this host's addresses); install iproute (Debian: iproute2), or leave LISTEN_ADDRESS empty"
	load_host_addresses | grep -qxF "${addr,,}" ||
		die "LISTEN_ADDRESS=$addr is not an address of this host (ip -o addr has $(load_host_addresses | grep -v -e '^127\.' -e '^::1$' | head -n 5 | paste -sd, - | sed 's/,/, /g')); set one of its addresses, written as ip -o addr shows it"
	LOAD_SOURCES=""
	for h in $hosts; do
		if [[ $h =~ ^[0-9.]+(/[0-9]+)?$ ]] || [[ $h == *:* ]]; then
			if { [ "$fam" = 4 ] && load_is_v6 "$h"; } || { [ "$fam" = 6 ] && ! load_is_v6 "$h"; }; then
				die "LOAD_HOSTS: $h is IPv$([ "$fam" = 4 ] && echo 6 || echo 4), but LISTEN_ADDRESS=$addr is IPv$fam: name the load hosts by addresses of LISTEN_ADDRESS's family"
			fi
			LOAD_SOURCES="$LOAD_SOURCES ${h,,}"
			continue
		fi
		# A name: resolved now, once. sshd matches AllowUsers against
		# the client's address (UseDNS no), and the firewall needs
		# addresses too.
		got=$(load_resolve "$h" "$fam")
		[ -n "$got" ] ||
			die "LOAD_HOSTS: the name $h does not resolve to an IPv$fam address (getent ahostsv$fam $h finds none); correct it, or give the load host's address"
		LOAD_SOURCES="$LOAD_SOURCES $(printf '%s\n' "$got" | paste -sd' ' -)"
	done
	# shellcheck disable=SC2086 # a list of addresses
	LOAD_SOURCES=$(printf '%s\n' $LOAD_SOURCES | awk '!seen[$0]++' | paste -sd' ' -)
	load_firewall_check
}

# load_listen CONFIG: the load hosts' lines in the candidate CONFIG.
load_listen () {
	# shellcheck disable=SC2086 # a list of addresses
	config_listen_also "$1" "${SETTING[LISTEN_ADDRESS]}" $LOAD_SOURCES
}

# ---- firewalld --------------------------------------------------------------
#
# A policy of the kit's own, sshperf-PORT (a port is one instance's,
# lib/names.sh), from any zone to this host (ingress ANY, egress HOST),
# with one rich rule per load host: that source, to LISTEN_ADDRESS,
# TEST_PORT/tcp, accept. The default priority of a policy (-1) puts it
# before the zones' own rules, so the host's zones are left as they are,
# and no source is bound to a zone (which would change what else those
# hosts may reach, the real sshd among it).
#
# firewalld makes a new policy in its permanent configuration only, and a
# reload applies it; a reload also drops runtime-only changes. So the kit
# refuses to start while the runtime configuration differs from the
# permanent one, and at cleanup reloads only when that is still so (else
# the rule is removed from the runtime and the empty policy stays there
# until firewalld's next reload, which the cleanup says).

# True when firewalld runs (firewall-cmd --state says running).
load_firewall_running () {
	command -v "$FIREWALL_CMD" >/dev/null 2>&1 || return 1
	[ "$(timeout "$LOAD_STEP_SECONDS" "$FIREWALL_CMD" --state 2>/dev/null)" = running ]
}

# The kit's policy for this instance's port.
load_policy_name () {
	printf 'sshperf-%s\n' "${SETTING[TEST_PORT]}"
}

# fw ARG...: firewall-cmd with a deadline.
fw () {
	timeout "$LOAD_STEP_SECONDS" "$FIREWALL_CMD" "$@"
}

# load_rule SOURCE: the rich rule that opens TEST_PORT on LISTEN_ADDRESS
# to SOURCE.
load_rule () {
	local family=ipv4
	load_is_v6 "$1" && family=ipv6
	printf 'rule family="%s" source address="%s" destination address="%s" port port="%s" protocol="tcp" accept\n' \
		"$family" "$1" "${SETTING[LISTEN_ADDRESS]}" "${SETTING[TEST_PORT]}"
}

# load_fw_config [--permanent] [SKIP_POLICY]: firewalld's zones and
# policies as firewall-cmd lists them, without what a reload keeps or
# what differs by its nature between runtime and permanent (the
# interfaces NetworkManager binds at run time, the "(active)" marks);
# without the policy SKIP_POLICY.
load_fw_config () {
	local perm=() skip=""
	[ "${1:-}" != --permanent ] || { perm=(--permanent); shift; }
	skip=${1:-}
	{ fw "${perm[@]}" --list-all-zones && fw "${perm[@]}" --list-all-policies; } 2>/dev/null |
		sed -E -e 's/ \((default|active|default, active)\)$//' -e '/^[[:space:]]+interfaces:/d' |
		awk -v skip="$skip" '/^[^[:space:]]/ { drop = ($1 == skip) } !drop'
}

# True when firewalld's runtime configuration is its permanent one
# (apart from the policy named, if any): a reload drops nothing.
load_fw_in_sync () {
	local a b
	a=$(load_fw_config "${1:-}") || return 1
	b=$(load_fw_config --permanent "${1:-}") || return 1
	[ "$a" = "$b" ]
}

# True when firewalld's permanent configuration has the policy NAME.
load_fw_has_policy () {
	local all
	all=$(fw --permanent --get-policies 2>/dev/null) || return 1
	[[ " $(printf '%s' "$all" | tr '\n' ' ') " == *" $1 "* ]]
}

# The recorded rules of POLICY, one per line.
load_fw_recorded () {
	state_list fwrule | awk -v p="$1" 'index($0, p " ") == 1 { print substr($0, length(p) + 2) }'
}

# load_firewall_check: refuses, before anything changes, what the kit
# could not do without touching others' firewall rules.
load_firewall_check () {
	local name want have s
	load_firewall_running || return 0
	name=$(load_policy_name)
	want=$(for s in $LOAD_SOURCES; do load_rule "$s"; done)
	if state_has fwpolicy "$name"; then
		have=$(load_fw_recorded "$name")
		[ "$have" = "$want" ] ||
			die "LISTEN_ADDRESS or LOAD_HOSTS changed since the firewall policy $name was made for them; run ./start-ssh.sh cleanup first, then start again"
		return 0
	fi
	if load_fw_has_policy "$name"; then
		die "firewalld has a policy $name that sshd-perf-kit did not make; remove it (firewall-cmd --permanent --delete-policy=$name; firewall-cmd --reload) or give this test server another TEST_PORT"
	fi
	load_fw_in_sync ||
		die "firewalld's runtime configuration differs from its permanent one, and the reload that adds the kit's policy would drop those runtime-only rules; make them permanent (firewall-cmd --runtime-to-permanent) or remove them, then start again"
}

# load_firewall_up: the kit's policy and its rules, recorded, applied by
# a reload (load_firewall_check found nothing a reload would drop).
load_firewall_up () {
	local name s rule
	if ! load_firewall_running; then
		say "firewalld is not running: no firewall rule added; a firewall of another kind must let LOAD_HOSTS reach ${SETTING[LISTEN_ADDRESS]} port ${SETTING[TEST_PORT]}/tcp"
		return 0
	fi
	name=$(load_policy_name)
	state_has fwpolicy "$name" && return 0
	record fwpolicy "$name"
	fw --permanent --new-policy="$name" >/dev/null || die "firewall-cmd --permanent --new-policy=$name failed"
	fw --permanent --policy="$name" --set-description="sshd-perf-kit: the load hosts of the test server on port ${SETTING[TEST_PORT]} (removed by start-ssh.sh cleanup)" >/dev/null || true
	fw --permanent --policy="$name" --add-ingress-zone=ANY >/dev/null || die "firewall-cmd: policy $name: --add-ingress-zone=ANY failed"
	fw --permanent --policy="$name" --add-egress-zone=HOST >/dev/null || die "firewall-cmd: policy $name: --add-egress-zone=HOST failed"
	for s in $LOAD_SOURCES; do
		rule=$(load_rule "$s")
		record fwrule "$name $rule"
		fw --permanent --policy="$name" --add-rich-rule="$rule" >/dev/null || die "firewall-cmd: policy $name: --add-rich-rule='$rule' failed"
	done
	fw --reload >/dev/null || die "firewall-cmd --reload failed after adding the policy $name"
	for s in $LOAD_SOURCES; do
		rule=$(load_rule "$s")
		fw --policy="$name" --query-rich-rule="$rule" >/dev/null 2>&1 ||
			die "firewalld does not show the kit's rule after its reload: $rule"
	done
	say "firewalld: policy $name opens TCP port ${SETTING[TEST_PORT]} on ${SETTING[LISTEN_ADDRESS]} to $(printf '%s' "$LOAD_SOURCES" | sed 's/ /, /g') only"
}

# load_firewall_down: removes the kit's policies and their rules (for
# cleanup): the rules from the runtime, the policy from the permanent
# configuration, and a reload when it drops nothing else.
load_firewall_down () {
	local name rule
	for name in $(state_list fwpolicy); do
		if ! load_firewall_running; then
			warn "firewalld is not running: its policy $name (made by the kit) could not be removed; when it runs: firewall-cmd --permanent --delete-policy=$name; firewall-cmd --reload"
			continue
		fi
		while IFS= read -r rule; do
			[ -n "$rule" ] || continue
			fw --policy="$name" --remove-rich-rule="$rule" >/dev/null 2>&1 || true
		done < <(load_fw_recorded "$name")
		if load_fw_has_policy "$name"; then
			fw --permanent --delete-policy="$name" >/dev/null || { warn "firewall-cmd --permanent --delete-policy=$name failed"; continue; }
		fi
		if load_fw_in_sync "$name"; then
			fw --reload >/dev/null && say "removed the firewalld policy $name"
		else
			say "removed the firewalld policy $name and its rules; the empty policy stays in firewalld's runtime until its next reload (a reload now would drop runtime-only rules the kit did not make)"
		fi
	done
	return 0
}
