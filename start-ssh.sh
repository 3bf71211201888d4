#!/usr/bin/env bash
# start-ssh.sh: set up, inspect, stop and remove the sshd-perf-kit test
# server, a second sshd on 127.0.0.1 next to the real one.
set -eu

PROG=${SSHPERF_PROG:-start-ssh.sh}
unset SSHPERF_PROG
KIT_DIR=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
# shellcheck source=lib/common.sh
. "$KIT_DIR/lib/common.sh"
# shellcheck source=lib/server.sh
. "$KIT_DIR/lib/server.sh"
# shellcheck source=lib/serverconfig.sh
. "$KIT_DIR/lib/serverconfig.sh"
# shellcheck source=lib/selinux.sh
. "$KIT_DIR/lib/selinux.sh"
# shellcheck source=lib/wire.sh
. "$KIT_DIR/lib/wire.sh"
# shellcheck source=lib/loadhosts.sh
. "$KIT_DIR/lib/loadhosts.sh"

usage () {
	cat <<EOF
usage: $PROG [-q] [start | status | stop | cleanup]

  start    (default) create the test user, host keys, the config
           $SSHD_CONFIG, the SELinux port label and the unit
           $UNIT_NAME (or start sshd directly without systemd), start
           the server on 127.0.0.1:TEST_PORT and check that a login works.
           With LISTEN_ADDRESS and LOAD_HOSTS also on that address, for
           those hosts only (and a firewalld policy of the kit's own).
           Running it again changes nothing, or restarts the server when a
           setting changed.
  status   whether the test server runs (exit 0) or not (exit 3).
  stop     stop the test server; everything else stays.
  cleanup  stop the server, end the test user's sessions and remove
           exactly what the kit created (listed in $STATE_DIR).

  -q       print only warnings and errors.

Settings: $SETTINGS_FILE_DEFAULT (an environment variable of the same name
overrides a setting for one run). The real sshd, its configuration and its
host keys are never touched.
EOF
}

# ---- start ----------------------------------------------------------------

# Refuses, before anything is changed, what the kit must not take over.
check_before_start () {
	local prev_user running_pid prev_port f other other_dir
	prev_user=$(state_list user | tail -n 1)
	if [ -n "$prev_user" ] && [ "$prev_user" != "${SETTING[TEST_USER]}" ]; then
		die "the test server was set up for TEST_USER=$prev_user; run ./start-ssh.sh cleanup before changing TEST_USER to ${SETTING[TEST_USER]}"
	fi
	prev_user=$(server_get USER)
	if [ -n "$prev_user" ] && [ "$prev_user" != "${SETTING[TEST_USER]}" ]; then
		die "the test server was set up for TEST_USER=$prev_user; run ./start-ssh.sh cleanup before changing TEST_USER to ${SETTING[TEST_USER]}"
	fi
	if [ -n "$(server_get EXISTING)" ] && [ "$(server_get EXISTING)" != "${SETTING[TEST_USER_EXISTING]}" ]; then
		die "the test server was set up with TEST_USER_EXISTING=$(server_get EXISTING); run ./start-ssh.sh cleanup before changing it"
	fi
	if [ "${SETTING[TEST_USER_EXISTING]}" = yes ]; then
		# An account of the host: used as it is, never changed.
		state_has user "${SETTING[TEST_USER]}" &&
			die "user ${SETTING[TEST_USER]} was created by sshd-perf-kit, it is not an existing account; run ./start-ssh.sh cleanup first, or set TEST_USER_EXISTING=no"
		getent passwd "${SETTING[TEST_USER]}" >/dev/null ||
			die "TEST_USER_EXISTING=yes, but getent passwd ${SETTING[TEST_USER]} finds no such account (check the name, /etc/nsswitch.conf and SSSD); or set TEST_USER_EXISTING=no to let the kit create it"
		[ "$(id -u "${SETTING[TEST_USER]}")" != 0 ] || die "TEST_USER=${SETTING[TEST_USER]} has uid 0; the kit never logs in as root: name another account"
	else
		if getent passwd "${SETTING[TEST_USER]}" >/dev/null && ! state_has user "${SETTING[TEST_USER]}"; then
			die "user ${SETTING[TEST_USER]} exists and was not created by sshd-perf-kit; it is never taken over: set TEST_USER to an unused name (settings.conf or TEST_USER=name $PROG), or TEST_USER_EXISTING=yes to test that account as it is"
		fi
		if getent group "${SETTING[TEST_USER]}" >/dev/null && ! state_has user "${SETTING[TEST_USER]}"; then
			die "group ${SETTING[TEST_USER]} exists and was not created by sshd-perf-kit; set TEST_USER to an unused name"
		fi
	fi
	check_password_file
	check_sshd_options
	check_server_config
	check_existing_account_usable
	# A distance needs test hosts: refused here, before anything changes,
	# where namespaces cannot be made or NETWORK_RANGE is in use.
	! wire_wanted || wire_check
	# Load hosts: the address is this host's, the names resolve, the
	# firewall can be opened to them alone (lib/loadhosts.sh).
	! load_wanted || load_check
	for f in "$SSHD_CONFIG" "$UNIT_FILE" "${HOSTKEY_PREFIX}ed25519_key" "${HOSTKEY_PREFIX}rsa_key" "${HOSTKEY_PREFIX}ecdsa_key"; do
		if [ -e "$f" ] && ! state_has file "$f"; then
			die "$f exists but sshd-perf-kit has no record of creating it; remove it by hand if it is left from an earlier run of the kit, then run $PROG again"
		fi
	done
	IFS=$'\t' read -r other other_dir < <(port_owner "${SETTING[TEST_PORT]}") || true
	if [ -n "${other_dir:-}" ]; then
		die "TEST_PORT=${SETTING[TEST_PORT]} is the port of the kit's ${other:+instance }${other:-default instance} (its state: $other_dir); two instances never share a port: give this one its own, TEST_PORT=port KIT_INSTANCE=${SETTING[KIT_INSTANCE]} $PROG"
	fi
	running_pid=$(server_pid)
	prev_port=$(server_get PORT)
	if { [ -z "$running_pid" ] || [ "$prev_port" != "${SETTING[TEST_PORT]}" ]; } && port_in_use "${SETTING[TEST_PORT]}"; then
		die "TEST_PORT=${SETTING[TEST_PORT]} is in use by another program; choose a free port (settings.conf or TEST_PORT=port $PROG)"
	fi
}

make_state_dir () {
	if [ ! -d "$STATE_PARENT" ]; then
		mkdir -p "$STATE_PARENT"
		chmod 0755 "$STATE_PARENT"
		created_parent=1
	fi
	if [ ! -d "$STATE_DIR" ]; then
		mkdir -m 0700 "$STATE_DIR"
		fresh=1
	fi
	mkdir -p "$CLIENT_DIR"
	chmod 0700 "$STATE_DIR" "$CLIENT_DIR"
	[ -z "${created_parent:-}" ] || record dir "$STATE_PARENT"
}

make_user () {
	local home
	if [ "${SETTING[TEST_USER_EXISTING]}" = yes ]; then
		make_existing_user
		return 0
	fi
	if ! getent passwd "${SETTING[TEST_USER]}" >/dev/null; then
		useradd --create-home --user-group --shell /bin/bash \
			--comment "sshd-perf-kit test user" "${SETTING[TEST_USER]}"
		record user "${SETTING[TEST_USER]}"
		say "created user ${SETTING[TEST_USER]} (uid $(id -u "${SETTING[TEST_USER]}"))"
	fi
	home=$(getent passwd "${SETTING[TEST_USER]}" | cut -d: -f6)
	[ -d "$home" ] || die "home $home of ${SETTING[TEST_USER]} is missing; run ./start-ssh.sh cleanup and start again"

	if [ ! -f "$DEFAULT_KEY" ]; then
		"$SSH_KEYGEN" -q -t "$DEFAULT_KEY_TYPE" -N '' -C "sshd-perf-kit ${SETTING[TEST_USER]}" -f "$DEFAULT_KEY"
	fi
	if [ ! -f "$CLIENT_DIR/id_rsa" ]; then
		"$SSH_KEYGEN" -q -t rsa -b 3072 -N '' -C "sshd-perf-kit ${SETTING[TEST_USER]}" -f "$CLIENT_DIR/id_rsa"
	fi
	install -d -m 0700 -o "${SETTING[TEST_USER]}" -g "$(id -g "${SETTING[TEST_USER]}")" "$home/.ssh"
	cat "$DEFAULT_KEY.pub" "$CLIENT_DIR/id_rsa.pub" >"$CLIENT_DIR/authorized_keys"
	install -m 0600 -o "${SETTING[TEST_USER]}" -g "$(id -g "${SETTING[TEST_USER]}")" "$CLIENT_DIR/authorized_keys" "$home/.ssh/authorized_keys"

	if [ ! -s "$PASSWORD_FILE" ]; then
		helper passgen >"$PASSWORD_FILE"
		chmod 0600 "$PASSWORD_FILE"
		say "made a random password for ${SETTING[TEST_USER]} (kept in $PASSWORD_FILE, root only; valid only during the auth test's password logins)"
	fi
	# Locked until the auth test sets it: also when an earlier kit (or a
	# test run killed with SIGKILL) left it valid.
	password_lock
	TEST_HOME=$home
}

make_host_keys () {
	local t key group=
	getent group ssh_keys >/dev/null && group=ssh_keys
	for t in $HOSTKEY_TYPES; do
		key="${HOSTKEY_PREFIX}${t}_key"
		[ -f "$key" ] && continue
		record file "$key"
		record file "$key.pub"
		case $t in
		rsa) "$SSH_KEYGEN" -q -t rsa -b 3072 -N '' -C "sshd-perf-kit test server" -f "$key" ;;
		*) "$SSH_KEYGEN" -q -t "$t" -N '' -C "sshd-perf-kit test server" -f "$key" ;;
		esac
		# As RHEL's sshd-keygen: private 0640 group ssh_keys where that
		# group exists, else 0600; public 0644.
		if [ -n "$group" ]; then
			chgrp "$group" "$key"
			chmod 0640 "$key"
		else
			chmod 0600 "$key"
		fi
		chmod 0644 "$key.pub"
		say "created host key $key"
	done
}

find_sftp_server () {
	[ -n "$SFTP_SERVER" ] || die "sftp-server not found; install it: dnf install openssh-server (Debian: apt-get install openssh-sftp-server)"
	printf '%s\n' "$SFTP_SERVER"
}

# config_rejects OUTPUT FILE: the line numbers of FILE that sshd -t
# (OUTPUT) names as options this build does not take: compiled out
# ("Unsupported option", e.g. GSSAPI without Kerberos), retired
# ("Deprecated option") or unknown to this version ("Bad configuration
# option", e.g. PerSourcePenalties before 9.8). Lines of included files
# (the crypto policy) are not the kit's and are not named.
config_rejects () {
	printf '%s\n' "$1" | tr -d '\r' | awk -v f="$2" '
		index($0, f " line ") || index($0, f ": line ") {
			if ($0 !~ /(Unsupported|Deprecated) option|Bad configuration option/) next
			s = $0; sub(/.* line /, "", s); sub(/[^0-9].*/, "", s)
			if (s != "") print s
		}' | sort -un
}

# render TEMPLATE NAME=value...: prints the template with every @NAME@
# replaced; a placeholder left over is the kit's own bug.
render () {
	local file=$1 line kv
	shift
	while IFS= read -r line || [ -n "$line" ]; do
		for kv in "$@"; do
			line=${line//@"${kv%%=*}"@/"${kv#*=}"}
		done
		case $line in *@[A-Z]*@*) die "template $file: no value for a placeholder in: $line" ;; esac
		printf '%s\n' "$line"
	done <"$file"
}

# probe_sshd_config FILE: asks this sshd which of the candidate's lines
# it takes (sshd -t on the candidate, no table of versions) and comments
# out the ones it does not, so that its log stays free of "Unsupported
# option" lines on every connection. A line it refuses is kept as a
# comment, saying so. Two passes: the first finds them all (sshd reports
# every bad option before it stops), the second proves the rest is clean.
probe_sshd_config () {
	local file=$1 out lines n pass
	for pass in 1 2; do
		out=$("$SSHD" -t -f "$file" 2>&1) || true
		lines=$(config_rejects "$out" "$file")
		[ -n "$lines" ] || return 0
		[ "$pass" = 1 ] || break
		for n in $lines; do
			sed -i "${n}s/^/# not taken by this sshd ($OPENSSH_BUILD): /" "$file"
		done
	done
	warn "sshd -t still rejects options of the test configuration after the probe: $(printf '%s' "$out" | tr '\n' ' ')"
	return 1
}

# Writes and checks the sshd config; sets config_changed=1 when it differs
# from the installed one.
make_sshd_config () {
	local new="$STATE_DIR/sshd_config.new" out dir rc
	local extra="" crypto sftp_server hostkeys="" t options
	for t in $HOSTKEY_TYPES; do
		hostkeys="${hostkeys:+$hostkeys
}HostKey ${HOSTKEY_PREFIX}${t}_key"
	done
	if [ "${SETTING[SERVER_CONFIG]}" = host ]; then
		# The burst test classifies refusals, and the tests count logins,
		# from sshd's VERBOSE lines (the kit's template has the line);
		# RHEL's own configuration logs at INFO.
		# The host's PerSourcePenalties and PerSourceMaxStartups stay:
		# the test clients come from addresses of their own
		# (lib/sources.sh).
		extra="LogLevel VERBOSE"
	fi
	# The administrator's SSHD_OPTIONS (checked by check_sshd_options),
	# after the kit's must-haves and before its defaults: they win.
	options=""
	if [ "${SETTING[TEST_USER_EXISTING]}" = yes ]; then
		options="# TEST_USER_EXISTING=yes: the kit's own keys file, never ~/.ssh
AuthorizedKeysFile $AUTHKEYS_DIR/%u"
	fi
	if [ -n "$(sshd_option_lines)" ]; then
		options="${options:+$options
}# SSHD_OPTIONS
$(sshd_option_lines)"
	fi
	if [ "${SETTING[SERVER_CONFIG]}" = host ]; then
		host_sshd_config "$new" "Port ${SETTING[TEST_PORT]}
ListenAddress 127.0.0.1
AddressFamily inet
PidFile $PID_FILE
$hostkeys
AllowUsers ${SETTING[TEST_USER]}${options:+
$options}${extra:+
$extra}"
		# A host line the kit did not take over is noted already.
		grep -q '^loglevel	' "$OVERRIDES_FILE.new" ||
			printf '%s\t%s\t%s\t%s\n' loglevel "the host's value or OpenSSH's default" "LogLevel VERBOSE" \
				"the kit classifies burst refusals and counts logins from sshd's VERBOSE log lines" >>"$OVERRIDES_FILE.new"
	else
		rm -f "$OVERRIDES_FILE"
		sftp_server=$(find_sftp_server)
		# The system's crypto policy; a build of its own with a policy
		# back-end of its own (a RHEL build's) has that one instead.
		if [ -n "$OPENSSH_BUILD_PREFIX" ] && [ -f "$OPENSSH_BUILD_PREFIX/etc/crypto-policies/back-ends/opensshserver.config" ]; then
			crypto="Include $OPENSSH_BUILD_PREFIX/etc/crypto-policies/back-ends/opensshserver.config"
		elif [ -f /etc/crypto-policies/back-ends/opensshserver.config ]; then
			crypto="Include /etc/crypto-policies/back-ends/opensshserver.config"
		else
			crypto="# No system crypto policy on this host: OpenSSH's defaults apply."
		fi
		render "$TEMPLATE_DIR/sshd_config_perf_test.in" PORT="${SETTING[TEST_PORT]}" \
			USER="${SETTING[TEST_USER]}" MAX_STARTUPS="${SETTING[MAX_STARTUPS]}" PID_FILE="$PID_FILE" \
			HOSTKEYS="$hostkeys" SFTP_SERVER="$sftp_server" SSHD_OPTIONS="$options" \
			BUILD="$OPENSSH_BUILD ${OPENSSH_BUILD_PREFIX:-(the system OpenSSH)}" \
			CRYPTO_POLICY="$crypto" >"$new"
	fi
	options_replace_subsystems "$new"
	! wire_wanted || wire_listen "$new"
	! load_wanted || load_listen "$new"
	chmod 0600 "$new"
	probe_sshd_config "$new" || return 1

	if ! out=$("$SSHD" -t -f "$new" 2>&1); then
		# Debian's sshd needs its privilege separation folder (/run/sshd),
		# which only its own service creates.
		dir=$(printf '%s\n' "$out" | tr -d '\r' | sed -n 's/^Missing privilege separation directory: //p' | head -n 1)
		if [ -n "$dir" ] && [ ! -e "$dir" ]; then
			mkdir -m 0755 "$dir"
			record dir "$dir"
		fi
		if ! out=$("$SSHD" -t -f "$new" 2>&1); then
			rm -f "$new"
			warn "sshd -t rejects the test configuration: $(printf '%s' "$out" | tr '\n' ' ')"
			return 1
		fi
	fi
	# What the administrator set must be what sshd runs (sshd -T), on the
	# candidate, before it is installed: exit 2 naming a line that is not.
	check_effective "$new" || {
		rc=$?
		rm -f "$new" "$OVERRIDES_FILE.new"
		[ "$rc" = 2 ] && exit 2
		return 1
	}
	[ "${SETTING[SERVER_CONFIG]}" != host ] || mv -f "$OVERRIDES_FILE.new" "$OVERRIDES_FILE"
	if [ -f "$SSHD_CONFIG" ] && cmp -s "$new" "$SSHD_CONFIG"; then
		rm -f "$new"
		return 0
	fi
	record file "$SSHD_CONFIG"
	mv -f "$new" "$SSHD_CONFIG"
	config_changed=1
	say "wrote $SSHD_CONFIG (sshd -t accepts it)"
}

make_client_config () {
	local t
	render "$TEMPLATE_DIR/ssh_config.in" ALIAS="$HOST_ALIAS" \
		PORT="${SETTING[TEST_PORT]}" USER="${SETTING[TEST_USER]}" CLIENT_DIR="$CLIENT_DIR" \
		CLIENT_CONFIG="$CLIENT_CONFIG" KNOWN_HOSTS="$CLIENT_DIR/known_hosts" \
		LOGIN_TIMEOUT="${SETTING[LOGIN_TIMEOUT]}" DEFAULT_KEY="$DEFAULT_KEY" CLIENT_SOURCE="$CLIENT_SOURCE" \
		CLIENT_INCLUDE="$(client_include)" >"$CLIENT_CONFIG"
	# Pin the test server's own host keys: no trust on first use.
	for t in $HOSTKEY_TYPES; do
		printf '[127.0.0.1]:%s %s\n' "${SETTING[TEST_PORT]}" "$(cut -d' ' -f1,2 "${HOSTKEY_PREFIX}${t}_key.pub")"
	done >"$CLIENT_DIR/known_hosts"
	# The load hosts' address too (a client there with the kit's files).
	if [ -n "${SETTING[LISTEN_ADDRESS]}" ]; then
		for t in $HOSTKEY_TYPES; do
			printf '[%s]:%s %s\n' "${SETTING[LISTEN_ADDRESS]}" "${SETTING[TEST_PORT]}" "$(cut -d' ' -f1,2 "${HOSTKEY_PREFIX}${t}_key.pub")"
		done >>"$CLIENT_DIR/known_hosts"
	fi
}

label_selinux () {
	local out
	SELINUX_MODE=$(helper selinux mode | sed -n 's/^mode=//p')
	if [ "$SELINUX_MODE" = disabled ]; then
		say "SELinux is disabled: port and file labelling skipped"
		return 0
	fi
	out=$(helper seport add "${SETTING[TEST_PORT]}") || die "labelling port ${SETTING[TEST_PORT]} ssh_port_t failed: $out"
	case $out in
	*added=yes*) record seport "${SETTING[TEST_PORT]}"; say "labelled TCP port ${SETTING[TEST_PORT]} ssh_port_t" ;;
	esac
	if [ "${SETTING[TEST_USER_EXISTING]}" = yes ]; then
		# The account's files are not the kit's to relabel.
		helper selinux restorecon "$SSHD_CONFIG" "${HOSTKEY_PREFIX}"*_key "${HOSTKEY_PREFIX}"*_key.pub "$AUTHKEYS_DIR" "$AUTHKEYS_DIR/${SETTING[TEST_USER]}" >/dev/null
	else
		helper selinux restorecon "$SSHD_CONFIG" "${HOSTKEY_PREFIX}"*_key "${HOSTKEY_PREFIX}"*_key.pub "$TEST_HOME/.ssh" >/dev/null
	fi
	[ ! -f "$UNIT_FILE" ] || helper selinux restorecon "$UNIT_FILE" >/dev/null
	# Every file the kit made has the type sshd needs (selinux/
	# expectations.tsv), or the start stops here with the fix, not later
	# with sshd's "Permission denied".
	if [ "${SETTING[TEST_USER_EXISTING]}" = yes ]; then
		selinux_check_labels "" "${SETTING[TEST_PORT]}" "$SSHD"
	else
		selinux_check_labels "$TEST_HOME" "${SETTING[TEST_PORT]}" "$SSHD"
	fi
	# An existing account's SELinux user: a confined one's sftp-server
	# may not write the kit's sftp folder (lib/metrics/sftp.sh says so).
	if [ "${SETTING[TEST_USER_EXISTING]}" = yes ]; then
		server_set SEUSER "$(helper selinux seuser "${SETTING[TEST_USER]}" 2>/dev/null | sed -n 's/^seuser=\([^ ]*\).*/\1/p')"
	fi
}

make_unit () {
	local new="$STATE_DIR/unit.new" unit_type
	# Type=notify only where this sshd tells systemd it is ready: RHEL's
	# and Debian's builds (linked with libsystemd) and OpenSSH >= 9.8.
	if version_ge 9.8 "$SSHD_VERSION" || { command -v ldd >/dev/null && ldd "$SSHD" 2>/dev/null | grep -q libsystemd; }; then
		unit_type=notify
	else
		unit_type="exec"
	fi
	render "$UNIT_TEMPLATE" PORT="${SETTING[TEST_PORT]}" SSHD="$SSHD" \
		SSHD_CONFIG="$SSHD_CONFIG" TYPE="$unit_type" >"$new"
	chmod 0644 "$new"
	if [ -f "$UNIT_FILE" ] && cmp -s "$new" "$UNIT_FILE"; then
		rm -f "$new"
		return 0
	fi
	record file "$UNIT_FILE"
	mv -f "$new" "$UNIT_FILE"
	helper unit daemon-reload >/dev/null || die "systemd daemon-reload failed after writing $UNIT_FILE"
	unit_changed=1
	say "installed $UNIT_FILE"
}

# Without systemd, a cgroup of the kit's own holds the test server, so its
# CPU includes every process it started (systemd does this for the unit).
make_cgroup () {
	local cg
	[ -z "$(server_get CGROUP)" ] && [ -z "$(server_get CGROUP_CHECKED)" ] || return 0
	server_set CGROUP_CHECKED yes
	cg=$(direct_cgroup)
	if [ -z "$cg" ]; then
		say "no writable cgroup: sshd's CPU is read from /proc (a lower bound)"
		return 0
	fi
	record dir "${cg#* }"
	server_set CGROUP "${cg%% *}"
	server_set CGROUP_DIR "${cg#* }"
}

# login_failure_cause STATUS OUTPUT MARK: why the start's login check
# failed, on one line: the client's last message (or its exit status when
# it printed none), and sshd's own line about it from its log since MARK
# (its first error or refusal, else how the session began, e.g. a
# ForceCommand, else its last line).
login_failure_cause () {
	local rc=$1 client log all
	client=$(printf '%s\n' "$2" | tr -d '\r' | grep -v '^[[:space:]]*$' | tail -n 1)
	# Not the greeting poll's own connection (kex_exchange_identification).
	all=$(server_log_since "$3" 2>/dev/null | tr -d '\r' | grep -v -e '^[[:space:]]*$' -e kex_exchange_identification) || true
	# The audit patch's own line first: before it, sshd logs the key as
	# "Failed publickey", which is not the cause.
	log=$(printf '%s\n' "$all" | grep -E 'linux_audit_write_entry failed|cannot (write into|open) audit' | head -n 1)
	[ -n "$log" ] || log=$(printf '%s\n' "$all" | grep -iE 'error|fatal|fail|refused|denied|invalid|not allowed|locked' | head -n 1)
	[ -n "$log" ] || log=$(printf '%s\n' "$all" | grep -E 'Starting session|Accepted' | tail -n 1)
	[ -n "$log" ] || log=$(printf '%s\n' "$all" | tail -n 1)
	case $rc in
	124 | 137) client="no answer within LOGIN_TIMEOUT=${SETTING[LOGIN_TIMEOUT]} s${client:+ ($client)}" ;;
	*) client=${client:-"ssh exited $rc and printed nothing"} ;;
	esac
	printf '%s; sshd logged: %s' "$client" "${log:-nothing about it}"
	# Red Hat's audit patch ends every login (in its own sshd process; the
	# listener stays) whose audit record the kernel refuses for another
	# reason than no audit support: as root without CAP_AUDIT_WRITE, EPERM.
	case $log in
	*"linux_audit_write_entry failed"* | *"cannot write into audit"* | *"cannot open audit"*)
		printf ' (this sshd ends every login whose Linux audit record it cannot write, as RHEL'"'"'s does: give it CAP_AUDIT_WRITE, e.g. a container started with --cap-add=AUDIT_WRITE (podman, docker), or run the kit where the kernel'"'"'s audit takes its records)' ;;
	esac
	printf '\n'
}

cmd_start () {
	local pid mode out msg mark rc real_conf real_from opt
	need_root start
	ensure_helpers
	load_settings
	find_tools
	SSHD_VERSION=$(openssh_version "$SSHD")
	[ -n "$SSHD_VERSION" ] || die "cannot tell the OpenSSH version of $SSHD"
	take_lock
	check_before_start

	fresh="" config_changed="" unit_changed=""
	at_exit start_failed
	at_exit_signals
	make_state_dir
	mode=$(host_mode)
	server_set MODE "$mode"
	# Before make_user: how the password is locked depends on it
	# (password_lock, lib/common.sh).
	server_set USE_PAM "$(planned_use_pam)"
	make_user
	make_host_keys
	! wire_wanted || wire_hosts_up
	make_sshd_config || exit 1
	# What sshd -T says of the written configuration, where the plan
	# could not ask it (the host's configuration before /run/sshd).
	case $(server_effective usepam | tr '[:upper:]' '[:lower:]') in
	"$(server_get USE_PAM)" | '') ;;
	*)
		server_set USE_PAM "$(server_effective usepam | tr '[:upper:]' '[:lower:]')"
		password_lock
		;;
	esac
	make_client_config
	if [ "$mode" = direct ]; then
		make_cgroup
	else
		make_unit
	fi
	label_selinux
	! load_wanted || load_firewall_up

	pid=$(server_pid)
	if [ -n "$pid" ] && { [ -n "$config_changed" ] || [ -n "$unit_changed" ]; }; then
		say "settings changed: restarting the test server"
		server_stop || exit 1
		pid=""
	fi
	if [ -z "$pid" ]; then
		[ "$mode" = systemd ] || record file "$PID_FILE"
		pid=$(server_start) || exit 1
		[ -n "$pid" ] || { warn "the test server did not stay up"; exit 1; }
	fi
	server_set PORT "${SETTING[TEST_PORT]}"
	server_set USER "${SETTING[TEST_USER]}"
	server_set VERSION "$SSHD_VERSION"
	server_set BUILD "$OPENSSH_BUILD"
	server_set OPENSSH_PREFIX "$OPENSSH_BUILD_PREFIX"
	server_set EXISTING "${SETTING[TEST_USER_EXISTING]}"
	server_set LISTEN_ADDRESS "${SETTING[LISTEN_ADDRESS]}"
	server_set LOAD_SOURCES "$LOAD_SOURCES"
	server_set SERVER_CONFIG "${SETTING[SERVER_CONFIG]}"
	server_set SSHD_OPTIONS "${SETTING[SSHD_OPTIONS]}"
	server_set PAM_STACK "$(pam_stack_text)"
	# The real server's configuration, with SERVER_CONFIG=kit too: the
	# report sets this host's real sshd -T values next to the test
	# server's (host_sshd_config has set it already with =host).
	if [ "${SETTING[SERVER_CONFIG]}" != host ]; then
		IFS=$'\t' read -r real_conf real_from < <(real_sshd_config)
		server_set REAL_CONFIG "$real_conf"
		server_set REAL_CONFIG_FROM "$real_from"
	fi
	[ "${SETTING[TEST_USER_EXISTING]}" = yes ] || server_set USER_SOURCE "files (created by the kit)"

	out=$(wait_greeting "${SETTING[SERVER_START_TIMEOUT]}") || die "the test server does not answer on 127.0.0.1:${SETTING[TEST_PORT]}"
	mark=$(server_log_mark)
	msg=$(try_login "$HOST_ALIAS" 2>&1) || {
		rc=$?
		msg=$(login_failure_cause "$rc" "$msg" "$mark")
		# sshd's line names an option of SSHD_OPTIONS: that setting
		# keeps the kit out, which is bad input (exit 2; the failed
		# start removes what it made).
		opt=$(option_named_in "${msg#*; sshd logged: }")
		[ -z "$opt" ] ||
			die "SSHD_OPTIONS: \"$opt\" keeps the kit's clients out: its login check as ${SETTING[TEST_USER]} failed and sshd logged: ${msg#*; sshd logged: }; remove that line from SSHD_OPTIONS"
		warn "the test server answers, but a login as ${SETTING[TEST_USER]} failed: $msg"
		exit 1
	}
	at_exit_drop
	say "test server running: pid $pid, 127.0.0.1:${SETTING[TEST_PORT]}, $(printf '%s\n' "$out" | sed -n 's/^banner=//p'), $( [ "$mode" = systemd ] && echo "unit $UNIT_NAME" || echo "started directly (no systemd)")"
	! load_wanted ||
		say "also on ${SETTING[LISTEN_ADDRESS]}:${SETTING[TEST_PORT]}, for ${SETTING[TEST_USER]} from the load hosts $(printf '%s' "$LOAD_SOURCES" | sed 's/ /, /g') only (AllowUsers)"
	say "try it: ssh -F $CLIENT_CONFIG $HOST_ALIAS true"
}

# A start that fails leaves the host as it was before it, when it was the
# first start; a failed restart keeps what an earlier start made. Runs at
# the exit of a start that did not get to its end (lib/atexit.sh), before
# the lock's release.
start_failed () {
	[ "$AT_EXIT_STATUS" -ne 0 ] || return 0
	if [ -n "${fresh:-}" ]; then
		warn "start failed: removing what it created"
		QUIET=1 do_cleanup >&2 || true
	fi
}

# ---- status ---------------------------------------------------------------

cmd_status () {
	local pid mode port label
	need_root status
	ensure_helpers
	load_settings
	if [ ! -d "$STATE_DIR" ]; then
		printf 'state=not-set-up\nstate_dir=%s (absent)\n' "$STATE_DIR"
		exit 3
	fi
	pid=$(server_pid)
	mode=$(server_get MODE)
	port=$(server_get PORT)
	if [ "$(helper selinux mode | sed -n 's/^mode=//p')" = disabled ]; then
		label="selinux-disabled"
	else
		label=$(helper seport query "${port:-${SETTING[TEST_PORT]}}" | sed -n 's/.*type=\([^ ]*\).*/\1/p')
		state_has seport "${port:-${SETTING[TEST_PORT]}}" && label="$label (added by the kit)"
	fi
	printf 'state=%s\n' "$([ -n "$pid" ] && echo running || echo stopped)"
	printf 'instance=%s\n' "${SETTING[KIT_INSTANCE]:-(default)}"
	printf 'pid=%s\n' "${pid:--}"
	printf 'address=127.0.0.1:%s\n' "${port:-${SETTING[TEST_PORT]}}"
	if [ -n "$(server_get LISTEN_ADDRESS)" ]; then
		printf 'load_address=%s:%s\n' "$(server_get LISTEN_ADDRESS)" "${port:-${SETTING[TEST_PORT]}}"
		printf 'load_hosts=%s\n' "$(server_get LOAD_SOURCES)"
	fi
	printf 'user=%s\n' "$(server_get USER)"
	printf 'openssh=%s\n' "$(server_get VERSION)"
	printf 'openssh_build=%s\n' "$(server_get BUILD)"
	printf 'openssh_prefix=%s\n' "$(server_get OPENSSH_PREFIX)"
	printf 'mode=%s\n' "$([ "$mode" = systemd ] && echo "systemd ($UNIT_NAME)" || echo "direct (no systemd)")"
	printf 'selinux_port_label=%s\n' "$label"
	printf 'config=%s\n' "$SSHD_CONFIG"
	printf 'state_dir=%s\n' "$STATE_DIR"
	printf 'client_config=%s\n' "$CLIENT_CONFIG"
	[ -n "$pid" ] || exit 3
}

# ---- stop -----------------------------------------------------------------

cmd_stop () {
	need_root stop
	ensure_helpers
	load_settings
	find_server_tools
	take_lock
	# A signal does not stop this half-way: it ends what it began (each
	# step has a deadline), then exits 130.
	defer_signals
	if [ -z "$(server_pid)" ]; then
		say "the test server is not running"
	else
		server_stop || exit 1
		say "stopped the test server (open sessions, if any, keep running until cleanup)"
	fi
	end_deferred_signals
}

# ---- cleanup --------------------------------------------------------------

# Ends every process of the kit's test user, and what the listener
# started, within a deadline.
end_sessions () {
	local user=$1 uid pids pid f
	uid=$(id -u "$user" 2>/dev/null) || return 0
	if [ "$(server_get MODE)" = systemd ]; then
		helper unit -t 10 terminate-user "$uid" >/dev/null 2>&1 || true
	fi
	pids=""
	for f in /proc/[0-9]*/status; do
		pid=${f#/proc/}
		pid=${pid%/status}
		proc_uid_is "$f" "$uid" && pids="$pids $pid"
	done
	# shellcheck disable=SC2086 # a list of pids
	[ -z "$pids" ] || { end_pids 5 $pids; say "ended $(echo $pids | wc -w) processes of $user"; }
}

do_cleanup () {
	local pid sessions user f d port uid
	if [ ! -d "$STATE_DIR" ]; then
		say "nothing to clean up ($STATE_DIR does not exist)"
		rm -f "$LOCK_FILE.pid" "$LOCK_FILE"
		return 0
	fi
	pid=$(server_pid)
	if [ -z "$pid" ] && [ "$(server_get MODE)" = direct ]; then
		# A start interrupted after sshd was run, before its pid was kept.
		pid=$(orphan_listener)
		[ -z "$pid" ] || { server_set PID "$pid"; pid=$(server_pid); }
	fi
	sessions=""
	[ -z "$pid" ] || sessions=$(descendants "$pid")
	if [ -n "$pid" ]; then
		server_stop && say "stopped the test server (pid $pid)"
	fi
	# What the listener started (per-connection sshd processes).
	# shellcheck disable=SC2086 # a list of pids
	[ -z "$sessions" ] || end_pids 5 $sessions
	# The test hosts and the wire (lib/wire.sh), with what runs in them.
	wire_down
	# The firewalld policy for the load hosts (lib/loadhosts.sh).
	load_firewall_down
	for user in $(state_list user); do
		end_sessions "$user"
		if getent passwd "$user" >/dev/null; then
			uid=$(id -u "$user")
			userdel --remove "$user" 2>/dev/null || userdel "$user"
			say "removed user $user (uid $uid) and its home"
		fi
		if getent group "$user" >/dev/null; then
			groupdel "$user" && say "removed group $user"
		fi
	done
	# The kit's own folders with what the tests left in them.
	for d in $(state_list tree); do
		[ -d "$d" ] || continue
		rm -rf --one-file-system -- "$d"
		say "removed $d"
	done
	for f in $(state_list file); do
		[ -e "$f" ] || continue
		rm -f "$f"
		say "removed $f"
		if [ "$f" = "$UNIT_FILE" ]; then
			helper unit daemon-reload >/dev/null 2>&1 && say "systemd daemon-reload"
		fi
	done
	for port in $(state_list seport); do
		helper seport delete "$port" >/dev/null && say "removed the SELinux label ssh_port_t of TCP port $port"
	done
	# Folders, newest first, only when empty.
	for d in $(state_list dir | tac); do
		[ "$d" = "$STATE_PARENT" ] && continue
		if [ -f "$d/cgroup.procs" ]; then
			# The kit's cgroup holds only what its sshd started.
			# shellcheck disable=SC2046 # a list of pids
			end_pids 5 $(cat "$d/cgroup.procs")
		fi
		# A folder outside the kit's own that every sshd on the host
		# needs (Debian's /run/sshd) stays while another instance's test
		# server runs.
		if [ ! -f "$d/cgroup.procs" ] && [ "${d#"$STATE_PARENT"/}" = "$d" ] && pid=$(other_kit_server); then
			say "kept $d: the test server of another instance (pid $pid) needs it"
			continue
		fi
		rmdir "$d" 2>/dev/null && say "removed $d"
	done
	d=$(state_list dir | grep -xF "$STATE_PARENT" || true)
	rm -rf "$STATE_DIR"
	say "removed $STATE_DIR"
	if [ -n "$d" ]; then
		rmdir "$STATE_PARENT" 2>/dev/null && say "removed $STATE_PARENT"
	fi
	rm -f "$LOCK_FILE.pid" "$LOCK_FILE"
	return 0
}

# What a cleanup that could not finish left on the host (from the state
# folder), each with the command that removes it by hand, on stderr. Also
# what the package's %preun prints when it cannot clean up: the package
# goes anyway, the administrator finishes the job.
print_leftovers () {
	local kind value pid mode
	[ -f "$MANIFEST" ] || return 0
	mode=$(server_get MODE)
	{
		printf '%s: cleanup did not finish; left on this host (recorded in %s), and how to remove it:\n' "$PROG" "$MANIFEST"
		pid=$(server_pid)
		if [ -n "$pid" ]; then
			if [ "$mode" = systemd ]; then
				printf '  systemctl stop %s\n' "$UNIT_NAME"
			else
				printf '  kill %s    # the test server (sshd -f %s)\n' "$pid" "$SSHD_CONFIG"
			fi
		fi
		while read -r kind value; do
			case $kind in
			user)
				getent passwd "$value" >/dev/null &&
					printf '  loginctl terminate-user %s; userdel --remove %s\n' "$value" "$value"
				getent group "$value" >/dev/null &&
					printf '  groupdel %s    # if userdel left it\n' "$value"
				;;
			file)
				[ -e "$value" ] || continue
				printf '  rm -f %s\n' "$value"
				[ "$value" != "$UNIT_FILE" ] || printf '  systemctl daemon-reload\n'
				;;
			seport) printf '  semanage port -d -t ssh_port_t -p tcp %s\n' "$value" ;;
			netns) [ ! -e "/run/netns/$value" ] || printf '  ip netns pids %s | xargs -r kill; ip netns del %s\n' "$value" "$value" ;;
			link) ! ip link show "$value" >/dev/null 2>&1 || printf '  ip link del %s\n' "$value" ;;
			etcdir) [ ! -d "$value" ] || printf '  rmdir %s    # after the files in it\n' "$value" ;;
			wirepid) ! wire_pid_is_ours "$value" || printf '  kill %s    # the wire'"'"'s helper (sshperf-wire)\n' "$value" ;;
			fwpolicy) printf '  firewall-cmd --permanent --delete-policy=%s; firewall-cmd --reload    # the load hosts'"'"' policy\n' "$value" ;;
			esac
		done <"$MANIFEST"
		# Folders last, newest first, as the cleanup does.
		state_list dir | tac | while read -r value; do
			[ -d "$value" ] && [ "$value" != "$STATE_PARENT" ] && printf '  rmdir %s\n' "$value"
		done
		printf '  rm -rf %s\n' "$STATE_DIR"
		printf '  rm -f %s %s\n' "$LOCK_FILE" "$LOCK_FILE.pid"
		printf '%s: or run the cleanup again once the cause is fixed: sshd-perf-kit cleanup\n' "$PROG"
	} >&2
	return 0
}

# The exit of cleanup (lib/atexit.sh, before the lock's release): what is
# left when it failed; status 1 for any failure of a step (2 and 130 keep
# their meaning).
cleanup_exit () {
	[ "$AT_EXIT_STATUS" -ne 0 ] || return 0
	print_leftovers || true
	case $AT_EXIT_STATUS in 2 | 130 | 143) ;; *) AT_EXIT_STATUS=1 ;; esac
}

cmd_cleanup () {
	need_root cleanup
	ensure_helpers
	# Cleanup needs no OpenSSH program: it works after the build under
	# test (OPENSSH_PREFIX) was removed.
	# Cleanup works even when settings.conf is broken: it loads only
	# KIT_INSTANCE (which test server), and the deadline of a systemd
	# stop is needed (server_stop).
	load_instance
	SETTING[SERVER_START_TIMEOUT]=30
	take_lock
	at_exit cleanup_exit
	# A signal does not stop the cleanup half-way: it removes everything
	# (each step has a deadline), then exits 130.
	defer_signals
	do_cleanup
	end_deferred_signals
}

# ---- main -----------------------------------------------------------------

while [ "$#" -gt 0 ]; do
	case $1 in
	-q) QUIET=1 ;;
	-h | --help) usage; exit 0 ;;
	--version) print_version; exit 0 ;;
	-*) die "unknown option $1; see $PROG --help" ;;
	*) break ;;
	esac
	shift
done
[ "$#" -le 1 ] || die "one command at a time: start, status, stop or cleanup"
at_exit_owner
case ${1:-start} in
start) cmd_start ;;
status) cmd_status ;;
stop) cmd_stop ;;
cleanup) cmd_cleanup ;;
*) die "unknown command '$1'; valid commands: start, status, stop, cleanup" ;;
esac
