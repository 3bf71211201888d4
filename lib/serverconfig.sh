# shellcheck shell=bash
# What start-ssh.sh needs beyond the kit's template: the administrator's
# own sshd options (SSHD_OPTIONS), the test server's configuration built
# from this host's real one (SERVER_CONFIG=host), and an account that
# already exists (TEST_USER_EXISTING=yes). Sourced after lib/common.sh.

# shellcheck source=lib/pam.sh
. "$KIT_DIR/lib/pam.sh"

# The kit-owned, root-owned keys file for an existing account. sshd reads
# an AuthorizedKeysFile as the user, so it cannot live in the root-only
# state folder; this folder and its files are 0755 / 0644, owned by root
# (what StrictModes asks for), and hold only public keys. Its name is
# .ssh because RHEL 9's policy labels /var/lib/NAME/.ssh ssh_home_t, which
# sshd_t may read; a folder of another name in /var/lib is var_lib_t,
# which it may not (selinux/expectations.tsv, docs/selinux.md).
AUTHKEYS_DIR="$STATE_PARENT/.ssh"
# A folder of the kit's for the sftp test when the account's home is
# missing or not writable.
SFTP_PARENT="$STATE_PARENT/sftp"
# What SERVER_CONFIG=host overrode, one line each: option TAB what the
# host had (file) TAB what the test server has TAB why.
OVERRIDES_FILE="$STATE_DIR/overrides.tsv"

# ---- SSHD_OPTIONS -----------------------------------------------------------

# The administrator's lines, one per line, trimmed, without empty ones.
sshd_option_lines () {
	printf '%s\n' "${SETTING[SSHD_OPTIONS]:-}" | tr ';' '\n' |
		sed 's/^[[:space:]]*//; s/[[:space:]]*$//' | grep -v '^$' || true
}

# option_keyword LINE: its keyword in lower case ("Port=22" -> port).
option_keyword () {
	local kw=${1#"${1%%[![:space:]]*}"}
	kw=${kw%%[[:space:]=]*}
	printf '%s' "${kw,,}"
}

# kit_owned_reason KEYWORD: why the test server keeps its own value of
# this option; nothing when the administrator may set it.
kit_owned_reason () {
	case $1 in
	port | listenaddress | addressfamily)
		printf 'the test server listens on 127.0.0.1:%s only, apart from the real sshd (TEST_PORT sets the port)' "${SETTING[TEST_PORT]}" ;;
	hostkey | hostcertificate | hostkeyagent)
		printf 'the test server has its own host keys (%s*), never the real server'"'"'s' "$HOSTKEY_PREFIX" ;;
	pidfile) printf 'the test server writes its pid to %s, apart from the real sshd' "$PID_FILE" ;;
	allowusers | allowgroups | denyusers | denygroups)
		printf 'only the test user %s may log in to the test server (TEST_USER sets the user)' "${SETTING[TEST_USER]}" ;;
	authorizedkeysfile)
		[ "${SETTING[TEST_USER_EXISTING]}" = yes ] &&
			printf 'with TEST_USER_EXISTING=yes the keys are in the kit'"'"'s own file %s/%%u, so the account'"'"'s ~/.ssh is never touched' "$AUTHKEYS_DIR" ;;
	esac
	return 0
}

# sshd_t_message OUTPUT: sshd's error lines, on one line.
sshd_t_message () {
	printf '%s\n' "$1" | tr -d '\r' | grep -v '^Missing privilege separation directory' |
		grep -v '^[[:space:]]*$' | head -n 3 | paste -sd' ' -
}

# Checks SSHD_OPTIONS before anything on the host changes: every line has
# a keyword the kit does not keep for itself, and the server's own sshd -t
# accepts it. A bad line is named; exit 2.
check_sshd_options () {
	local line kw why tmp out n msg
	local -a lines=()
	[ -n "${SETTING[SSHD_OPTIONS]:-}" ] || return 0
	while IFS= read -r line; do
		lines+=("$line")
		kw=$(option_keyword "$line")
		case $kw in
		'' | *[!a-z0-9]*) die "SSHD_OPTIONS: \"$line\" is not an sshd_config line (Keyword value); separate options with ;" ;;
		match) die "SSHD_OPTIONS: \"$line\" cannot be used: a Match block would take in the kit's own lines after it; SSHD_OPTIONS holds global options only" ;;
		include) die "SSHD_OPTIONS: \"$line\" cannot be used: an included file could change Port, HostKey or AllowUsers; write its options into SSHD_OPTIONS" ;;
		esac
		why=$(kit_owned_reason "$kw")
		[ -z "$why" ] || die "SSHD_OPTIONS: \"$line\" cannot be used: $why; remove it from SSHD_OPTIONS"
	done < <(sshd_option_lines)
	[ "${#lines[@]}" -gt 0 ] || return 0
	# The options alone, with a throw-away host key, in a private folder.
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/sshperf-options.XXXXXX") || die "cannot create a temporary folder in ${TMPDIR:-/tmp}"
	"$SSH_KEYGEN" -q -t ecdsa -N '' -f "$tmp/key" || { rm -rf "$tmp"; die "ssh-keygen failed in $tmp"; }
	{
		printf '%s\n' "${lines[@]}"
		printf 'Port %s\nListenAddress 127.0.0.1\nHostKey %s\nPidFile %s\n' "${SETTING[TEST_PORT]}" "$tmp/key" "$tmp/pid"
	} >"$tmp/config"
	if out=$("$SSHD" -t -f "$tmp/config" 2>&1) || [ -z "$(sshd_t_message "$out")" ]; then
		rm -rf "$tmp"
		check_options_let_keys_in
		return 0
	fi
	rm -rf "$tmp"
	msg=$(sshd_t_message "$out")
	# sshd names the line: the first lines of the file are the options.
	n=$(printf '%s\n' "$out" | sed -n 's/.* line \([0-9][0-9]*\):.*/\1/p' | head -n 1)
	if [ -n "$n" ] && [ "$n" -ge 1 ] && [ "$n" -le "${#lines[@]}" ]; then
		die "SSHD_OPTIONS: sshd -t rejects \"${lines[$((n - 1))]}\": $msg; fix or remove that line"
	fi
	die "SSHD_OPTIONS: sshd -t rejects \"${SETTING[SSHD_OPTIONS]}\": $msg; fix or remove the line it names"
}

# key_login_blocker AUTHENTICATIONMETHODS PUBKEYAUTHENTICATION: why sshd
# with these values lets no login in with a key alone, as every client of
# the kit logs in, as "KEYWORD<TAB>why" (nothing when it does).
# AuthenticationMethods is "any" or lists of methods, each to be passed in
# full; a key alone passes only a list that is just "publickey".
key_login_blocker () {
	local list
	case ${2,,} in no) printf 'PubkeyAuthentication\tsshd takes no key at all\n'; return 0 ;; esac
	case ${1,,} in '' | any) return 0 ;; esac
	for list in $1; do
		[ "$list" != publickey ] || return 0
	done
	printf 'AuthenticationMethods\tno list of it is "publickey" alone, so a key by itself never completes a login\n'
}

# option_value KEYWORD: the value of the first SSHD_OPTIONS line of
# KEYWORD (sshd keeps the first for both options read here, and the
# administrator's lines come before the kit's own).
option_value () {
	sshd_option_lines | awk -v kw="$1" '{ k = $1; sub(/=.*/, "", k) } tolower(k) == kw {
		v = $0; sub(/^[^[:space:]=]+[[:space:]=]+/, "", v); print v; exit }'
}

# check_options_let_keys_in: SSHD_OPTIONS that keep the kit's own key
# logins out (the start's login check and every test log in with a key)
# are bad input: exit 2, naming the line, before anything is changed.
# Read from the lines themselves: sshd -T cannot run yet on a host whose
# sshd lacks its privilege separation folder (Debian's /run/sshd, made by
# the start). check_effective asks sshd -T of the whole candidate again.
check_options_let_keys_in () {
	local kw why line
	IFS=$'\t' read -r kw why < <(key_login_blocker "$(option_value authenticationmethods)" "$(option_value pubkeyauthentication)") || return 0
	line=$(sshd_option_lines | grep -iE "^${kw}([[:space:]=]|$)" | head -n 1)
	die "SSHD_OPTIONS: \"$line\" keeps the kit's clients out: $why; the kit logs in with a key alone (the start's check and every test), so remove it from SSHD_OPTIONS"
}

# option_named_in TEXT: the first SSHD_OPTIONS line whose keyword TEXT
# (a line of sshd's log) names, in any case ("... not in
# PubkeyAcceptedAlgorithms" names a PubkeyAcceptedAlgorithms line).
option_named_in () {
	local line kw
	while IFS= read -r line; do
		kw=$(option_keyword "$line")
		case ${1,,} in *"$kw"*) printf '%s\n' "$line"; return 0 ;; esac
	done < <(sshd_option_lines)
}

# ---- SERVER_CONFIG=host -----------------------------------------------------

# The real sshd's configuration file: -f of the running real sshd, else of
# its unit's ExecStart, else the default. Prints "FILE<TAB>where from".
# With OPENSSH_PREFIX "the host" is that build's own installation: the
# sshd_config in its sysconfdir (PREFIX/etc/ssh, as RHEL's layout, or
# PREFIX/etc, upstream's), not the system sshd's.
real_sshd_config () {
	local f pid cmd exe u
	if [ -n "${OPENSSH_BUILD_PREFIX:-}" ]; then
		for f in "$OPENSSH_BUILD_PREFIX/etc/ssh/sshd_config" "$OPENSSH_BUILD_PREFIX/etc/sshd_config"; do
			[ -f "$f" ] || continue
			printf '%s\tthe build of OPENSSH_PREFIX (its sysconfdir)\n' "$f"
			return 0
		done
		printf '%s\tthe build of OPENSSH_PREFIX, which has no sshd_config in etc/ssh or etc\n' "$OPENSSH_BUILD_PREFIX/etc/ssh/sshd_config"
		return 0
	fi
	for f in /proc/[0-9]*/exe; do
		pid=${f#/proc/}
		pid=${pid%/exe}
		proc_named "$pid" sshd || continue
		exe=$(readlink "$f" 2>/dev/null) || continue
		case $exe in */sshd) ;; *) continue ;; esac
		cmd=$(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline") || continue
		case $cmd in *"$KIT_CONFIG_PREFIX"* | *sshd-session* | *"sshd: "*) continue ;; esac
		# The listener: its parent is not an sshd.
		case $(readlink "/proc/$(helper sampler ps "$pid" 2>/dev/null | tsv_select - ppid)/exe" 2>/dev/null) in */sshd) continue ;; esac
		f=$(printf '%s\n' "$cmd" | sed -n 's/.* -f *\([^ ]*\).*/\1/p')
		printf '%s\tthe running sshd (pid %s)\n' "${f:-/etc/ssh/sshd_config}" "$pid"
		return 0
	done
	if command -v systemctl >/dev/null 2>&1; then
		for u in sshd.service ssh.service; do
			cmd=$(systemctl show -p ExecStart --value "$u" 2>/dev/null | head -n 1)
			case $cmd in *argv*) ;; *) continue ;; esac
			f=$(printf '%s\n' "$cmd" | sed -n 's/.*argv\[\]=[^;]* -f *\([^ ;]*\).*/\1/p')
			printf '%s\tthe unit %s\n' "${f:-/etc/ssh/sshd_config}" "$u"
			return 0
		done
	fi
	printf '%s\tthe default (no running sshd, no unit)\n' /etc/ssh/sshd_config
}

# override LINE FILE NEW WHY: note an option the test server does not take
# over from the host.
override () {
	printf '%s\t%s (%s)\t%s\t%s\n' "$(option_keyword "$1")" "$(printf '%s' "$1" | sed 's/^[[:space:]]*//')" "$2" "$3" "$4" >>"$OVERRIDES_FILE.new"
}

# flatten_config FILE DEPTH: FILE with its Includes read in place, as sshd
# reads them (relative names in FLAT_SSHDIR, sshd's sysconfdir: /etc/ssh,
# or the folder of an OPENSSH_PREFIX build's sshd_config; globs in name order, a Match in
# an included file ends with that file). Lines a second server must not
# take over are commented out and noted with override(). FLAT_MATCH is
# the Match line in force. Global lines go to the file FLAT_TOP, Match
# blocks in their order to FLAT_MATCHES: a single file has no way to end
# a Match block ("Match all" is still a Match block, where many global
# options are not allowed), so the blocks go after every global line,
# which is where sshd reads them anyway.
FLAT_MATCH=""
FLAT_SSHDIR=/etc/ssh
flat_emit () {
	if [ -n "$FLAT_MATCH" ]; then
		printf '%s\n' "$1" >>"$FLAT_MATCHES"
	else
		printf '%s\n' "$1" >>"$FLAT_TOP"
	fi
}

flatten_config () {
	local file=$1 depth=$2 line kw arg outer f why new name
	[ "$depth" -le 16 ] || die "SERVER_CONFIG=host: $file: Includes nested more than 16 deep"
	name=$file
	flat_emit "# ---- from $name"
	while IFS= read -r line || [ -n "$line" ]; do
		kw=$(option_keyword "$line")
		case $kw in
		'' | '#'*) flat_emit "$line"; continue ;;
		include)
			flat_emit "# $line (read in place below)"
			outer=$FLAT_MATCH
			for arg in $(printf '%s\n' "$line" | sed 's/^[[:space:]]*[^[:space:]=]*[[:space:]=]*//'); do
				case $arg in /*) ;; *) arg="$FLAT_SSHDIR/$arg" ;; esac
				while IFS= read -r f; do
					if [ ! -f "$f" ] || [ ! -r "$f" ]; then continue; fi
					flatten_config "$f" $((depth + 1))
					# sshd ends a Match of an included file with
					# that file.
					if [ "$FLAT_MATCH" != "$outer" ]; then
						FLAT_MATCH=$outer
						[ -z "$outer" ] || flat_emit "$outer"
					fi
				done < <(compgen -G "$arg" | sort)
			done
			continue ;;
		match) FLAT_MATCH=$line; flat_emit "$line"; continue ;;
		esac
		why=$(kit_owned_reason "$kw")
		new="the kit's value"
		case $kw in
		loglevel)
			why="the kit classifies burst refusals and counts logins from sshd's VERBOSE log lines"
			new="LogLevel VERBOSE" ;;
		esac
		if [ -z "$why" ]; then
			flat_emit "$line"
			continue
		fi
		case $kw in
		port) new="Port ${SETTING[TEST_PORT]}" ;;
		listenaddress) new="ListenAddress 127.0.0.1" ;;
		addressfamily) new="AddressFamily inet" ;;
		hostkey) new="HostKey ${HOSTKEY_PREFIX}*_key" ;;
		hostcertificate | hostkeyagent) new="none" ;;
		pidfile) new="PidFile $PID_FILE" ;;
		allowusers | allowgroups | denyusers | denygroups) new="AllowUsers ${SETTING[TEST_USER]}" ;;
		authorizedkeysfile) new="AuthorizedKeysFile $AUTHKEYS_DIR/%u" ;;
		esac
		flat_emit "# sshd-perf-kit: not taken over: $line"
		override "$line" "$name" "$new" "$why"
	done <"$file"
}

# Before anything changes: the real configuration must be readable.
check_server_config () {
	local real from
	[ "${SETTING[SERVER_CONFIG]}" = host ] || return 0
	IFS=$'\t' read -r real from < <(real_sshd_config)
	if [ ! -f "$real" ] || [ ! -r "$real" ]; then
		die "SERVER_CONFIG=host: the real sshd's configuration $real (from $from) cannot be read; use SERVER_CONFIG=kit"
	fi
}

# host_sshd_config OUT KIT_LINES: writes the test server's configuration
# built from the host's real one to OUT: the kit's must-haves and
# SSHD_OPTIONS first (first value wins), then the real configuration with
# its Includes read in place. The real files are only read.
host_sshd_config () {
	local out=$1 kit_lines=$2 real from
	IFS=$'\t' read -r real from < <(real_sshd_config)
	if [ ! -f "$real" ] || [ ! -r "$real" ]; then
		die "SERVER_CONFIG=host: the real sshd's configuration $real (from $from) cannot be read; use SERVER_CONFIG=kit"
	fi
	: >"$OVERRIDES_FILE.new"
	{
		printf '# sshd-perf-kit test server, SERVER_CONFIG=host: built by start-ssh.sh\n'
		printf '# from %s (found through %s) and the files it includes,\n' "$real" "$from"
		printf '# which were read, never written. Removed by "./start-ssh.sh cleanup".\n'
		printf '# sshd takes the first value it reads: the kit'"'"'s lines come first.\n\n'
		printf '%s\n' "$kit_lines"
		printf '\n'
	} >"$out"
	FLAT_MATCH=""
	FLAT_SSHDIR=/etc/ssh
	[ -z "${OPENSSH_BUILD_PREFIX:-}" ] || FLAT_SSHDIR=$(dirname "$real")
	FLAT_TOP="$out.top"
	FLAT_MATCHES="$out.match"
	: >"$FLAT_TOP"
	: >"$FLAT_MATCHES"
	flatten_config "$real" 0
	cat "$FLAT_TOP" >>"$out"
	if [ -s "$FLAT_MATCHES" ]; then
		printf '\n# ---- the Match blocks of the files above, in their order\n' >>"$out"
		cat "$FLAT_MATCHES" >>"$out"
	fi
	rm -f "$FLAT_TOP" "$FLAT_MATCHES"
	server_set REAL_CONFIG "$real"
	server_set REAL_CONFIG_FROM "$from"
}

# ---- TEST_USER_EXISTING=yes ------------------------------------------------

# Refuses a password file that is not root's alone.
check_password_file () {
	local f=${SETTING[TEST_PASSWORD_FILE]} st
	[ -n "$f" ] || return 0
	[ "${SETTING[TEST_USER_EXISTING]}" = yes ] ||
		die "TEST_PASSWORD_FILE is only for TEST_USER_EXISTING=yes (the kit makes its own password for a user it creates); leave it empty"
	case $f in /*) ;; *) die "TEST_PASSWORD_FILE=$f is not an absolute path; name the file as /path/to/file" ;; esac
	[ -f "$f" ] || die "TEST_PASSWORD_FILE=$f is not a regular file; create it (one line, the password of ${SETTING[TEST_USER]}), owner root, mode 0600"
	st=$(stat -L -c '%u %a' "$f")
	[ "${st%% *}" = 0 ] || die "TEST_PASSWORD_FILE=$f is not owned by root; chown root $f"
	case ${st#* } in
	[0-7]00 | 00) ;;
	*) die "TEST_PASSWORD_FILE=$f has mode ${st#* }: other users could read it; chmod 0600 $f" ;;
	esac
	[ -s "$f" ] || die "TEST_PASSWORD_FILE=$f is empty; write the password of ${SETTING[TEST_USER]} into it"
}

# planned_use_pam: whether the test server will check accounts through
# PAM (yes or no), before its configuration is written: the first UsePAM
# line of SSHD_OPTIONS (sshd keeps a flag's first value, and those lines
# come before the kit's own), else with SERVER_CONFIG=host what sshd -T
# says of the real server's configuration, else the template's yes.
planned_use_pam () {
	local value real
	value=$(sshd_option_lines | awk '{ k = $1; sub(/=.*/, "", k) } tolower(k) == "usepam" {
		v = $0; sub(/^[^[:space:]=]+[[:space:]=]+/, "", v); sub(/[[:space:]].*/, "", v); print tolower(v); exit }')
	if [ -z "$value" ] && [ "${SETTING[SERVER_CONFIG]}" = host ]; then
		IFS=$'\t' read -r real _ < <(real_sshd_config)
		value=$(server_sshd_T "$real" 2>/dev/null | server_effective_read usepam | tr '[:upper:]' '[:lower:]')
	fi
	case $value in no) echo no ;; *) echo yes ;; esac
}

# check_existing_account_usable: an existing account (TEST_USER_EXISTING=
# yes) whose password field starts with '!' is, for an sshd without PAM,
# a locked account, refused for every method, keys too (OpenSSH's
# allowed_user and platform_locked_account; with PAM the lock is PAM's to
# judge, and it does not refuse key logins for it). The kit never changes
# such an account, so it is bad input: one line, exit 2, before anything
# is changed. An entry the kit may not read (a directory user) is left to
# the start's login check.
check_existing_account_usable () {
	local field
	[ "${SETTING[TEST_USER_EXISTING]}" = yes ] || return 0
	[ "$(planned_use_pam)" = no ] || return 0
	field=$(getent shadow "${SETTING[TEST_USER]}" 2>/dev/null | cut -d: -f2)
	case $field in
	'!'*) die "TEST_USER_EXISTING=yes: the account ${SETTING[TEST_USER]} is locked ('!' in front of its password field in the shadow database), and the test server runs with UsePAM no, where sshd refuses a locked account for every method, keys too; the kit never changes that account: unlock it (usermod -U ${SETTING[TEST_USER]}, or usermod -p '*' ${SETTING[TEST_USER]} for no password at all), remove UsePAM no from SSHD_OPTIONS, or test another account" ;;
	esac
}

# user_nss_source USER: the NSS source that has the account (files, sss,
# ldap, systemd, ...), in the order of /etc/nsswitch.conf.
user_nss_source () {
	local src list
	list=$(sed -n 's/^passwd:[[:space:]]*//p' /etc/nsswitch.conf 2>/dev/null | sed 's/\[[^]]*\]//g')
	for src in $list; do
		getent -s "$src" passwd "$1" >/dev/null 2>&1 && { printf '%s\n' "$src"; return 0; }
	done
	printf 'unknown\n'
}

# pam_stack_text: which PAM stack the test server uses ("sshd: auth
# pam_unix pam_sss; account ..."), or that PAM is off.
pam_stack_text () {
	local usepam
	usepam=$(server_effective usepam)
	if [ "$usepam" != yes ]; then
		printf 'none (UsePAM %s)\n' "${usepam:-unknown}"
		return 0
	fi
	# sshd's PAM service is its program name.
	# The session stack too: pam_motd, pam_systemd, pam_lastlog and the
	# like run there, once per login, after authentication.
	printf 'service %s (/etc/pam.d/%s): auth %s; account %s; session %s\n' "$(basename "$SSHD")" "$(basename "$SSHD")" \
		"$(pam_modules "$(basename "$SSHD")" auth | paste -sd' ' -)" "$(pam_modules "$(basename "$SSHD")" account | paste -sd' ' -)" \
		"$(pam_modules "$(basename "$SSHD")" session | paste -sd' ' -)"
}

# can_write_as USER DIR: true when USER may create files in DIR.
can_write_as () {
	[ -d "$2" ] || return 1
	setpriv --reuid="$(id -u "$1")" --regid="$(id -g "$1")" --init-groups -- test -w "$2" -a -x "$2" 2>/dev/null
}

# make_existing_user: the kit's part for an account that exists: client
# keys, the kit's own AuthorizedKeysFile, the password file named by the
# administrator (a link to it in the state), a folder for sftp when the
# home cannot take files. The account, its home and ~/.ssh are not touched.
make_existing_user () {
	local home uid gid
	home=$(getent passwd "${SETTING[TEST_USER]}" | cut -d: -f6)
	uid=$(id -u "${SETTING[TEST_USER]}")
	gid=$(id -g "${SETTING[TEST_USER]}")
	if [ ! -f "$DEFAULT_KEY" ]; then
		"$SSH_KEYGEN" -q -t "$DEFAULT_KEY_TYPE" -N '' -C "sshd-perf-kit ${SETTING[TEST_USER]}" -f "$DEFAULT_KEY"
	fi
	if [ ! -f "$CLIENT_DIR/id_rsa" ]; then
		"$SSH_KEYGEN" -q -t rsa -b 3072 -N '' -C "sshd-perf-kit ${SETTING[TEST_USER]}" -f "$CLIENT_DIR/id_rsa"
	fi
	if [ ! -d "$AUTHKEYS_DIR" ]; then
		record dir "$AUTHKEYS_DIR"
		install -d -m 0755 -o root -g root "$AUTHKEYS_DIR"
	fi
	record file "$AUTHKEYS_DIR/${SETTING[TEST_USER]}"
	cat "$DEFAULT_KEY.pub" "$CLIENT_DIR/id_rsa.pub" >"$AUTHKEYS_DIR/.${SETTING[TEST_USER]}.new"
	chmod 0644 "$AUTHKEYS_DIR/.${SETTING[TEST_USER]}.new"
	mv -f "$AUTHKEYS_DIR/.${SETTING[TEST_USER]}.new" "$AUTHKEYS_DIR/${SETTING[TEST_USER]}"

	# The password stays in the administrator's file; askpass.sh reads it
	# through this link, which cleanup removes with the state.
	if [ -n "${SETTING[TEST_PASSWORD_FILE]}" ]; then
		ln -sfn "${SETTING[TEST_PASSWORD_FILE]}" "$PASSWORD_FILE"
		server_set PASSWORD "file ${SETTING[TEST_PASSWORD_FILE]}"
	else
		rm -f "$PASSWORD_FILE"
		server_set PASSWORD none
	fi

	if can_write_as "${SETTING[TEST_USER]}" "$home"; then
		server_set SFTP_DIR ""
		server_set SFTP_DIR_WHY ""
	else
		if [ ! -d "$SFTP_PARENT" ]; then
			record dir "$SFTP_PARENT"
			install -d -m 0755 -o root -g root "$SFTP_PARENT"
		fi
		if [ ! -d "$SFTP_PARENT/${SETTING[TEST_USER]}" ]; then
			record tree "$SFTP_PARENT/${SETTING[TEST_USER]}"
			install -d -m 0700 -o "$uid" -g "$gid" "$SFTP_PARENT/${SETTING[TEST_USER]}"
		fi
		server_set SFTP_DIR "$SFTP_PARENT/${SETTING[TEST_USER]}"
		server_set SFTP_DIR_WHY "the home $home of ${SETTING[TEST_USER]} $([ -d "$home" ] && echo "is not writable by it" || echo "does not exist")"
	fi
	server_set USER_SOURCE "$(user_nss_source "${SETTING[TEST_USER]}")"
	# shellcheck disable=SC2034 # read by start-ssh.sh
	TEST_HOME=$home
	say "using the existing account ${SETTING[TEST_USER]} (uid $uid, from NSS source $(server_get USER_SOURCE)); its keys for the test server are in $AUTHKEYS_DIR/${SETTING[TEST_USER]}, its home and ~/.ssh are not touched"
}

# ---- What the administrator sets is what sshd runs --------------------------
#
# sshd -t accepts a line that sshd then ignores: sshd keeps the first value
# of most options, but the last of some (tried: OpenSSH 8.7p1, 9.2 and
# 9.9p1 MaxStartups, PerSourceNetBlockSize, IPQoS, StreamLocalBindMask;
# 10.5p1 only StreamLocalBindMask of these), and adds up others (AcceptEnv,
# Subsystem). So each line is asked of sshd
# itself, with no table: what sshd -T says for the line alone (in a config
# of only the listener's lines) must be in what it says for the candidate
# configuration, before that is installed. A line that a later line of the
# same option overrides is made to win (the later one is commented out,
# saying so); one that still does not take effect is refused.

# effect_config DIR OUT [LINE...]: a configuration of the listener's lines
# (a throw-away host key in DIR) and LINE...
effect_config () {
	local dir=$1 out=$2
	shift 2
	{
		printf 'Port %s\nListenAddress 127.0.0.1\nHostKey %s\nPidFile %s\n' "${SETTING[TEST_PORT]}" "$dir/key" "$dir/pid"
		[ "$#" -eq 0 ] || printf '%s\n' "$@"
	} >"$out"
}

# effect_keys BASE_T LINE_T KEYWORD: the keys (lower case) that a line
# sets, from sshd -T of the base and of the base with the line: those
# whose lines differ, and the line's own keyword when sshd -T prints it
# (a line may set the default value, which a later line could override).
effect_keys () {
	server_effective_lines <"$1" | sort -u >"$1.lines"
	server_effective_lines <"$2" | awk -v kw="$3" 'NR == FNR { base[$0] = 1; next }
		(!($0 in base) || $1 == kw) && !($1 in seen) { seen[$1] = 1; print $1 }' "$1.lines" -
}

# effect_lines T KEY: KEY's lines in an sshd -T output, as
# server_effective_lines prints them.
effect_lines () {
	server_effective_read "$2" <"$1" | sed "s/^/$2 /"
}

# effect_missing WANT_T HAVE_T KEY: KEY's lines of WANT_T that HAVE_T does
# not have (nothing when all are there), on one line.
effect_missing () {
	effect_lines "$2" "$3" >"$2.$3"
	effect_lines "$1" "$3" | grep -vxF -f "$2.$3" | paste -sd';' - || true
}

# effect_make_win CANDIDATE KEYWORD N [NAME [WHY]]: comments out the lines
# of KEYWORD (with NAME: those whose first argument is NAME) that follow
# the N lines of the "# SSHD_OPTIONS" block (global lines only: before the
# first Match), saying why; prints each as "FILE<TAB>LINE" (FILE: the
# host's file it came from, or the template).
effect_make_win () {
	awk -v kw="$2" -v n="$3" -v name="${4:-}" -v why="${5:-sshd keeps its last value}" -v out="$1.win" '
		left > 0 { left--; print > out; next }
		$0 == "# SSHD_OPTIONS" { left = n; after = 1; print > out; next }
		/^# ---- from / { from = substr($0, 13) }
		{ k = $1; sub(/=.*/, "", k); k = tolower(k)
		  a = $0; sub(/^[[:space:]]*[^[:space:]=]+[[:space:]=]+/, "", a); split(a, w, /[[:space:]]+/) }
		k == "match" { inmatch = 1 }
		after && !inmatch && k == kw && (name == "" || w[1] == name) {
			print "# sshd-perf-kit: SSHD_OPTIONS sets " kw (name == "" ? "" : " " name) " and " why ": " $0 > out
			print (from == "" ? "the kit'"'"'s template" : from) "\t" $0
			next
		}
		{ print > out }' "$1"
	mv -f "$1.win" "$1"
}

# options_replace_subsystems CANDIDATE: a Subsystem of SSHD_OPTIONS
# replaces the candidate's own Subsystem of the same name (the template's
# sftp, or the host's with SERVER_CONFIG=host): OpenSSH before 9.5 refuses
# a second Subsystem of a name ("already defined", sshd -t fails), later
# ones keep the first. Says so, and notes it as an override with
# SERVER_CONFIG=host.
options_replace_subsystems () {
	local cand=$1 opt name from line n
	local -a lines=()
	mapfile -t lines < <(sshd_option_lines)
	n=${#lines[@]}
	for opt in "${lines[@]}"; do
		[ "$(option_keyword "$opt")" = subsystem ] || continue
		name=$(printf '%s\n' "$opt" | sed 's/^[[:space:]]*[^[:space:]=]*[[:space:]=]*//; s/[[:space:]].*//')
		[ -n "$name" ] || continue
		while IFS=$'\t' read -r from line; do
			say "SSHD_OPTIONS \"$opt\" replaces \"$(printf '%s' "$line" | sed 's/^[[:space:]]*//')\" of $from (sshd takes one Subsystem $name)"
			if [ "${SETTING[SERVER_CONFIG]}" = host ]; then
				override "$line" "$from" "$opt" "set by SSHD_OPTIONS; sshd takes one Subsystem of a name"
			fi
		done < <(effect_make_win "$cand" subsystem "$n" "$name" "sshd takes one Subsystem of a name")
	done
}

# host_kept_lines CANDIDATE: the host's lines that the test server keeps,
# as "FILE<TAB>KEY<TAB>LINE" (SERVER_CONFIG=host).
host_kept_lines () {
	awk '/^# ---- from / { from = substr($0, 13); next }
		from == "" || /^[[:space:]]*(#|$)/ { next }
		{ k = $1; sub(/=.*/, "", k); k = tolower(k) }
		k != "match" && k != "include" { print from "\t" k "\t" $0 }' "$1"
}

# check_effective CANDIDATE: the check above for every SSHD_OPTIONS line,
# and with SERVER_CONFIG=host for every host line the kit keeps (the test
# server must run what the real server runs). Status 2 with one line on
# stderr naming the line and what sshd runs instead; 1 when sshd -T itself
# fails.
check_effective () {
	local cand=$1 tmp i kw k miss pass from line opt msg="" real skip=" " why
	local -a lines=() bad=() pair=()
	mapfile -t lines < <(sshd_option_lines)
	[ "${#lines[@]}" -gt 0 ] || [ "${SETTING[SERVER_CONFIG]}" = host ] || return 0
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/sshperf-effect.XXXXXX") || die "cannot create a temporary folder in ${TMPDIR:-/tmp}"
	"$SSH_KEYGEN" -q -t ecdsa -N '' -f "$tmp/key" || { rm -rf "$tmp"; die "ssh-keygen failed in $tmp"; }
	effect_config "$tmp" "$tmp/base"
	if ! server_sshd_T "$tmp/base" >"$tmp/base.T" 2>"$tmp/err"; then
		warn "sshd -T fails on a configuration of only the listener's lines: $(sshd_t_message "$(cat "$tmp/err")")"
		rm -rf "$tmp"
		return 1
	fi
	for i in "${!lines[@]}"; do
		# sshd drops an AuthorizedKeysCommand (AuthorizedPrincipalsCommand)
		# that has no ...CommandUser: the line alone goes with its user's line.
		kw=$(option_keyword "${lines[i]}")
		case $kw in
		authorizedkeyscommand | authorizedprincipalscommand)
			mapfile -t pair < <(printf '%s\n' "${lines[@]}" | grep -i "^[[:space:]]*${kw}user[[:space:]=]" || true) ;;
		*) pair=() ;;
		esac
		effect_config "$tmp" "$tmp/line$i" "${lines[i]}" "${pair[@]}"
		server_sshd_T "$tmp/line$i" >"$tmp/line$i.T" 2>/dev/null || cp "$tmp/base.T" "$tmp/line$i.T"
		effect_keys "$tmp/base.T" "$tmp/line$i.T" "$(option_keyword "${lines[i]}")" >"$tmp/line$i.keys"
		skip="$skip$(option_keyword "${lines[i]}") $(tr '\n' ' ' <"$tmp/line$i.keys")"
	done
	: >"$tmp/moved"
	for pass in 1 2; do
		if ! server_sshd_T "$cand" >"$tmp/cand.T" 2>"$tmp/err"; then
			warn "sshd -T fails on the test configuration: $(sshd_t_message "$(cat "$tmp/err")")"
			rm -rf "$tmp"
			return 1
		fi
		bad=()
		for i in "${!lines[@]}"; do
			while read -r k; do
				miss=$(effect_missing "$tmp/line$i.T" "$tmp/cand.T" "$k")
				[ -z "$miss" ] || { bad+=("$i"); printf '%s\t%s\n' "$k" "$miss" >"$tmp/bad$i"; break; }
			done <"$tmp/line$i.keys"
		done
		if [ "${#bad[@]}" -eq 0 ] || [ "$pass" = 2 ]; then break; fi
		# Make them win: a later line of the same option goes.
		: >"$tmp/moved"
		for i in "${bad[@]}"; do
			kw=$(option_keyword "${lines[i]}")
			effect_make_win "$cand" "$kw" "${#lines[@]}" | while IFS=$'\t' read -r from line; do
				printf '%s\t%s\t%s\n' "${lines[i]}" "$from" "$line" >>"$tmp/moved"
			done
		done
		[ -s "$tmp/moved" ] || break
	done
	if [ "${#bad[@]}" -eq 0 ] && [ -s "$tmp/moved" ]; then
		while IFS=$'\t' read -r opt from line; do
			say "SSHD_OPTIONS \"$opt\" replaces \"$(printf '%s' "$line" | sed 's/^[[:space:]]*//')\" of $from (sshd keeps the last value of this option)"
			if [ "${SETTING[SERVER_CONFIG]}" = host ]; then
				override "$line" "$from" "$opt" "set by SSHD_OPTIONS; sshd keeps the last value of this option"
			fi
		done <"$tmp/moved"
	fi
	if [ "${#bad[@]}" -gt 0 ]; then
		i=${bad[0]}
		IFS=$'\t' read -r k miss <"$tmp/bad$i"
		msg="SSHD_OPTIONS: \"${lines[i]}\" does not take effect: sshd -T of the test server says \"$(effect_lines "$tmp/cand.T" "$k" | paste -sd';' -)\" where the line alone gives \"$miss\" (another line of the configuration wins over it); remove it, or the line it names"
	elif [ "${SETTING[SERVER_CONFIG]}" = host ]; then
		real=$(server_get REAL_CONFIG)
		if server_sshd_T "$real" >"$tmp/real.T" 2>/dev/null; then
			# Not compared: what the kit overrides, and what SSHD_OPTIONS sets.
			skip="$skip $(cut -f1 "$OVERRIDES_FILE.new" 2>/dev/null | tr '\n' ' ') "
			while IFS=$'\t' read -r from k line; do
				case $skip in *" $k "*) continue ;; esac
				[ -n "$(server_effective_read "$k" <"$tmp/real.T")" ] || continue
				effect_lines "$tmp/real.T" "$k" >"$tmp/want"
				effect_lines "$tmp/cand.T" "$k" >"$tmp/have"
				cmp -s "$tmp/want" "$tmp/have" && continue
				msg="SERVER_CONFIG=host: \"$(printf '%s' "$line" | sed 's/^[[:space:]]*//')\" ($from) does not take effect in the test server: its sshd -T says \"$(paste -sd';' - <"$tmp/have")\" where the real server's says \"$(paste -sd';' - <"$tmp/want")\"; use SERVER_CONFIG=kit, or set the option in SSHD_OPTIONS"
				break
			done < <(host_kept_lines "$cand" | sort -t "$(printf '\t')" -k2,2 -u)
		else
			warn "SERVER_CONFIG=host: sshd -T -f $real fails, so the test server's options are not compared with the real server's"
		fi
	fi
	# The whole candidate, Match blocks and the host's lines included,
	# must let the kit's key logins in (check_options_let_keys_in read
	# the SSHD_OPTIONS lines alone).
	if [ -z "$msg" ]; then
		IFS=$'\t' read -r kw why < <(key_login_blocker "$(server_effective_read authenticationmethods <"$tmp/cand.T")" \
			"$(server_effective_read pubkeyauthentication <"$tmp/cand.T")") &&
			msg="the test server's configuration keeps the kit's clients out: sshd -T says \"$kw $(server_effective_read "$kw" <"$tmp/cand.T")\" for ${SETTING[TEST_USER]}: $why; the kit logs in with a key alone$([ "${SETTING[SERVER_CONFIG]}" = host ] && echo "; set $kw in SSHD_OPTIONS or use SERVER_CONFIG=kit")"
	fi
	rm -rf "$tmp"
	[ -z "$msg" ] || { warn "$msg"; return 2; }
}

# config_listen_also CONFIG ADDRESS SOURCE...: the test server of
# CONFIG also listens on ADDRESS, and its AllowUsers admits the test user
# from loopback (the kit's own clients, lib/sources.sh) and from each
# SOURCE only. Used by the test hosts of a distance (wire_listen) and for
# the load hosts; two calls add up.
config_listen_also () {
	local file=$1 addr=$2 tmp
	shift 2
	tmp="$file.listen"
	awk -v addr="$addr" -v srcs="$*" '
		/^ListenAddress 127\.0\.0\.1$/ { print; print "ListenAddress " addr; next }
		/^AddressFamily inet$/ && addr ~ /:/ { print "AddressFamily any"; next }
		!done && /^AllowUsers [a-z_][a-z0-9_-]*(@[^ ]*)?( |$)/ {
			done = 1
			line = $0
			if (NF == 2 && $2 !~ /@/) line = "AllowUsers " $2 "@127.0.0.0/8"
			user = $2; sub(/@.*/, "", user)
			n = split(srcs, s, " ")
			for (i = 1; i <= n; i++) line = line " " user "@" s[i]
			print line; next
		}
		{ print }' "$file" >"$tmp" && mv -f "$tmp" "$file"
}
