# shellcheck shell=bash
# The load host's side of a load run (lib/bin/load.sh, docs/load-hosts.md):
# the target's address as given, the ssh client configuration the drivers
# log in with, and the clock offset from the target. What the target does
# for its load hosts is lib/loadhosts.sh; nothing here reads or changes a
# test server of this host.

# The host alias of the target in the load run's client configuration.
LOAD_ALIAS=sshperf-load-target
# The clock offset: exchanges over one session (sshperf-offset), the best
# of them counts.
LOAD_CLOCK_SAMPLES=10
# The target's clock, read by the test user's shell there on each line
# that sshperf-offset sends; the loop ends when the load host closes it.
# bash (the kit's test user's shell) has the clock in EPOCHREALTIME, read
# without starting a process: the round trip, and so the uncertainty, is
# then the network's and ssh's (tens of microseconds on one host, against
# 2 to 6 ms with date, most of it the start of date after the clock's
# bracket opened). Another shell has no EPOCHREALTIME and runs date; C
# numbers keep the decimal point a point.
# shellcheck disable=SC2016 # expanded by the target's shell, not here
LOAD_CLOCK_COMMAND='LC_ALL=C; while read -r _; do if [ -n "${EPOCHREALTIME:-}" ]; then echo "$EPOCHREALTIME"; else date +%s.%N; fi; done'

# load_parse_target SPEC DEFAULT_PORT: SPEC is HOST, HOST:PORT, an IPv6
# address alone, or [IPV6]:PORT; sets LOAD_HOST and LOAD_PORT. False (and
# why in LOAD_TARGET_PROBLEM) when it is none of these: the host is passed
# to ssh as HostName, so it may hold no space, quote or option.
# shellcheck disable=SC2034 # LOAD_TARGET_PROBLEM: read by lib/bin/load.sh
load_parse_target () {
	local spec=$1 re_host='^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$' re_v6='^[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*$'
	LOAD_HOST="" LOAD_PORT=$2 LOAD_TARGET_PROBLEM=""
	case $spec in
	\[*\]:*) LOAD_HOST=${spec%%]:*}; LOAD_HOST=${LOAD_HOST#[}; LOAD_PORT=${spec##*]:} ;;
	\[*\]) LOAD_HOST=${spec#[}; LOAD_HOST=${LOAD_HOST%]} ;;
	*:*:*) LOAD_HOST=$spec ;;
	*:*) LOAD_HOST=${spec%:*}; LOAD_PORT=${spec##*:} ;;
	*) LOAD_HOST=$spec ;;
	esac
	if [[ ! $LOAD_HOST =~ $re_host ]] && [[ ! $LOAD_HOST =~ $re_v6 ]]; then
		LOAD_TARGET_PROBLEM="the host \"$LOAD_HOST\" is neither a host name nor an IP address"
		return 1
	fi
	if [[ ! $LOAD_PORT =~ ^[1-9][0-9]{0,4}$ ]] || [ "$LOAD_PORT" -gt 65535 ]; then
		LOAD_TARGET_PROBLEM="the port \"$LOAD_PORT\" is not a port number from 1 to 65535"
		return 1
	fi
}

# load_client_config FILE KNOWN_HOSTS KEY USER: the client configuration
# of the load run, the kit's own (templates/ssh_config.in) but for the
# target and the key handed over: the key alone, no password, no prompt,
# the target's host key checked against KNOWN_HOSTS (learned at the first
# contact, load_clock_offset). The system's client configuration is
# included at the end, as for the kit's own clients (client_include):
# the client is measured as this host configures it.
load_client_config () {
	# Quoted, and % doubled: ssh expands %-tokens in both file names.
	local known=${2//%/%%} key=${3//%/%%}
	cat >"$1" <<EOF
# sshd-perf-kit load run: the client configuration of its drivers.
Host $LOAD_ALIAS
    HostName $LOAD_HOST
    Port $LOAD_PORT
    User $4
    IdentityFile "$key"
    IdentitiesOnly yes
    PubkeyAuthentication yes
    PasswordAuthentication no
    KbdInteractiveAuthentication no
    BatchMode yes
    UserKnownHostsFile "$known"
    GlobalKnownHostsFile /dev/null
    StrictHostKeyChecking yes
    UpdateHostKeys no
    CheckHostIP no
    ControlMaster no
    ControlPath none
    ConnectTimeout ${SETTING[LOGIN_TIMEOUT]}

Match all
$(client_include)
EOF
}

# load_clock_offset CONFIG TSV: the target's clock against this host's,
# over one ssh session (sshperf-offset; its samples to TSV, ssh's
# messages to TSV's .err). The first contact: the target's host key is
# learned here (accept-new) and checked by every later login. Prints
# the helper's key=value lines; false when the target did not answer.
load_clock_offset () {
	helper offset -n "$LOAD_CLOCK_SAMPLES" -t "${SETTING[LOGIN_TIMEOUT]}" -o "$2" \
		-- "$SSH" -F "$1" -o StrictHostKeyChecking=accept-new "$LOAD_ALIAS" "$LOAD_CLOCK_COMMAND" 2>"${2%.tsv}-errors.txt"
}

# load_key_problem KEY: why ssh could not log in with the private key
# file KEY without asking (unreadable, not a key, a passphrase, too
# open), or nothing. ssh-keygen -y loads it as ssh would.
load_key_problem () {
	local out
	if [ ! -f "$1" ] || [ ! -r "$1" ]; then
		printf 'it is not a readable file\n'
		return 0
	fi
	out=$("$SSH_KEYGEN" -y -P '' -f "$1" 2>&1 >/dev/null </dev/null) && return 0
	# ssh-keygen ends its lines with a carriage return, as ssh does.
	printf 'ssh cannot use it (ssh-keygen -y: %s)\n' "$(printf '%s\n' "$out" | tr -d '\r' | grep . | tail -n 1)"
}
