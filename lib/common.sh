# shellcheck shell=bash disable=SC2034
# (SC2034: the paths below are used by the scripts that source this file.)
# Shared by start-ssh.sh and test-ssh.sh: paths, settings, messages, the
# kit's state (what it created on this host) and the lock.
#
# The calling script sets KIT_DIR (the folder it lives in) and PROG, then
# sources this file. Called by the command sshd-perf-kit, a script names
# itself as the command does (SSHPERF_PROG, e.g. "sshd-perf-kit start").

# ---- Paths ----------------------------------------------------------------

# Where the kit's files are. A package install writes lib/paths.sh with the
# installed locations (programs and lib/ in /usr/libexec/sshd-perf-kit,
# templates, units and schemas in /usr/share/sshd-perf-kit); a source
# checkout uses its own folders.
: "${KIT_DIR:?the calling script sets KIT_DIR}"
HELPER_DIR="$KIT_DIR/build"
SETTINGS_FILE_DEFAULT="$KIT_DIR/settings.conf"
RESULTS_DIR_DEFAULT="$KIT_DIR/results"
STATE_PARENT=/var/lib/sshd-perf-kit
SCHEMA_FILE="$KIT_DIR/lib/settings.schema"
TEMPLATE_DIR="$KIT_DIR/templates"
UNIT_DIR="$KIT_DIR/units"
# The kit's SELinux expectations (selinux/expectations.tsv).
SELINUX_DIR="$KIT_DIR/selinux"
# The docs a report carries in its run folder (glossary.md, metrics.md).
REPORT_DOCS_DIR="$KIT_DIR/docs"
# The version is kept in one place, Version: of the spec, and the
# release in its Release: (in a checkout without the dist tag, which only
# rpmbuild knows); a package install writes both, the package's own, into
# lib/paths.sh.
KIT_VERSION=$(sed -n 's/^Version:[[:space:]]*//p' "$KIT_DIR/sshd-perf-kit.spec" 2>/dev/null | head -n 1)
KIT_VERSION=${KIT_VERSION:-unknown}
KIT_RELEASE=$(sed -n 's/^Release:[[:space:]]*//p' "$KIT_DIR/sshd-perf-kit.spec" 2>/dev/null | head -n 1 | sed 's/%{?dist}//')
KIT_RELEASE=${KIT_RELEASE:-unknown}
# shellcheck source=lib/data.sh
. "$KIT_DIR/lib/data.sh"
# shellcheck source=lib/atexit.sh
. "$KIT_DIR/lib/atexit.sh"
# shellcheck source=lib/units.sh
. "$KIT_DIR/lib/units.sh"
if [ -f "$KIT_DIR/lib/paths.sh" ]; then
	# shellcheck source=/dev/null
	. "$KIT_DIR/lib/paths.sh"
fi

# shellcheck source=lib/names.sh
. "$KIT_DIR/lib/names.sh"
# shellcheck source=lib/sources.sh
. "$KIT_DIR/lib/sources.sh"

# RHEL's FIPS mode refuses Ed25519 keys: there the kit's own keys are
# ECDSA P-256 (host) and ECDSA (the default client key) instead.
# FIPS_FLAG_FILE exists so the tests can take that path on any host.
if [ "$(cat "${FIPS_FLAG_FILE:-/proc/sys/crypto/fips_enabled}" 2>/dev/null)" = 1 ]; then
	FIPS_MODE=yes
	HOSTKEY_TYPES="rsa ecdsa"
	DEFAULT_KEY_TYPE=ecdsa
else
	FIPS_MODE=no
	HOSTKEY_TYPES="ed25519 rsa ecdsa"
	DEFAULT_KEY_TYPE=ed25519
fi
# The settings file: SETTINGS_FILE, else the kit's, else the installed one.
settings_file () {
	local f=${SETTINGS_FILE:-$SETTINGS_FILE_DEFAULT}
	if [ ! -f "$f" ] && [ -f /etc/sshd-perf-kit/settings.conf ]; then
		f=/etc/sshd-perf-kit/settings.conf
	fi
	printf '%s\n' "$f"
}

# The checked value of KIT_INSTANCE alone (sshperf-settings -k reads only
# its line of the settings file), or status 2 and the helper's message.
instance_setting () {
	local out
	[ -x "$HELPER_DIR/sshperf-settings" ] || return 1
	out=$("$HELPER_DIR/sshperf-settings" -s "$SCHEMA_FILE" -f "$(settings_file)" -k KIT_INSTANCE 2>&1) || {
		printf '%s\n' "${out#sshperf-settings: }" >&2
		return 2
	}
	out=${out#KIT_INSTANCE=\'}
	printf '%s\n' "${out%\'}"
}

# The unit's template (the unit of every instance is made from it).
UNIT_TEMPLATE="$UNIT_DIR/sshd-perf-test.service.in"

# The kit runs with a predictable environment, whatever the caller has.
PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH LC_ALL=C
umask 077

# What the kit owns on the host: the names of the instance in use
# (KIT_INSTANCE; lib/names.sh), fixed for each instance, so that every
# copy of the kit (checkout or package) finds the same state and cleans up
# the same things. They are needed before the settings are loaded (the
# help text, a cleanup that loads none), so the instance is read here,
# through the settings helper, when it is built; load_settings and
# load_instance check it again.
STATE_BASE=$STATE_PARENT
kit_names "$(instance_setting 2>/dev/null || true)"
# The key of the host alias (the RSA key has ALIAS-rsa).
DEFAULT_KEY="$CLIENT_DIR/id_$DEFAULT_KEY_TYPE"

# ---- Messages -------------------------------------------------------------

# One line on stderr, prefixed with the program's name.
warn () {
	printf '%s: %s\n' "$PROG" "$*" >&2
}

# Bad input or a setup problem: one line, exit 2.
die () {
	warn "$*"
	exit 2
}

# --version of a script: "NAME (sshd-perf-kit) VERSION", as the helpers.
print_version () {
	printf '%s (sshd-perf-kit) %s\n' "$PROG" "$KIT_VERSION"
}

# Progress for the administrator, on stdout.
say () {
	[ -n "${QUIET:-}" ] || printf '%s: %s\n' "$PROG" "$*"
}

need_root () {
	[ "$(id -u)" -eq 0 ] ||
		die "must run as root (it creates a user, host keys and a service); run: sudo $0 $*"
}

# ---- Helpers and tools ----------------------------------------------------

# The C helpers; in a checkout they are built on first use.
HELPERS="settings connect login passgen summary selinux seport unit sampler rate burst gate echo repeat hold clock xfer ceiling capture hashcost rank wire wireprobe startups offset"

helpers_ready () {
	local h
	for h in $HELPERS; do
		[ -x "$HELPER_DIR/sshperf-$h" ] || return 1
	done
	# In a checkout, a helper older than its source is rebuilt.
	if [ -f "$KIT_DIR/Makefile" ] && command -v make >/dev/null 2>&1; then
		make -q -s -C "$KIT_DIR" all >/dev/null 2>&1 || return 1
	fi
	return 0
}

ensure_helpers () {
	helpers_ready && return 0
	if [ ! -f "$KIT_DIR/Makefile" ]; then
		die "helpers missing or not executable in $HELPER_DIR; reinstall the package: dnf reinstall sshd-perf-kit"
	fi
	if ! command -v cc >/dev/null 2>&1 || ! command -v make >/dev/null 2>&1 || ! command -v pkg-config >/dev/null 2>&1; then
		die "the C helpers are not built and there is no compiler; install: dnf install gcc make pkgconf-pkg-config libssh-devel openssl-devel libselinux-devel libsemanage-devel systemd-devel libxcrypt-devel (Debian: apt-get install gcc make pkg-config libssh-dev libssl-dev libselinux1-dev libsemanage-dev libsystemd-dev libcrypt-dev), or run ./install-deps.sh"
	fi
	# The output is kept in memory: a fixed name in /tmp, written as
	# root, is a symlink attack waiting to happen.
	local out
	if ! out=$(make -s -C "$KIT_DIR" all 2>&1); then
		printf '%s\n' "$out" | tail -n 5 >&2
		die "building the C helpers failed (above); the libraries are: dnf install libssh-devel openssl-devel libselinux-devel libsemanage-devel systemd-devel libxcrypt-devel (Debian: libssh-dev libssl-dev libselinux1-dev libsemanage-dev libsystemd-dev libcrypt-dev), or run ./install-deps.sh"
	fi
	helpers_ready || die "helpers still missing in $HELPER_DIR after make; run make in $KIT_DIR and read its errors"
}

helper () {
	local name=$1
	shift
	"$HELPER_DIR/sshperf-$name" "$@"
}

# The OpenSSH programs, by absolute path.
# program NAME: the first executable regular file NAME in PATH, or nothing
# (bash's command -v falls back to a file that cannot be run).
program () {
	local dir
	local IFS=:
	for dir in $PATH; do
		if [ -f "$dir/$1" ] && [ -x "$dir/$1" ]; then
			printf '%s\n' "$dir/$1"
			return 0
		fi
	done
	return 0
}

# The OpenSSH build under test: the system's (prefix empty: sshd, ssh,
# sftp and ssh-keygen from the pinned PATH) or the installation below a
# prefix (OPENSSH_PREFIX). Server and clients always come from the same
# build; the rest of PATH stays pinned. Sets SSHD SSH SFTP SSH_KEYGEN
# SFTP_SERVER, OPENSSH_BUILD ("OpenSSH_9.9p1") and OPENSSH_BUILD_PREFIX
# (empty for the system's). find_tools [PREFIX]; without an argument the
# setting OPENSSH_PREFIX.
find_tools () {
	local prefix=${1-${SETTING[OPENSSH_PREFIX]:-}}
	OPENSSH_BUILD_PREFIX=$prefix
	if [ -n "$prefix" ]; then
		openssh_prefix_tools "$prefix"
		return 0
	fi
	SSHD=$(program sshd)
	SSH=$(program ssh)
	SSH_KEYGEN=$(program ssh-keygen)
	SFTP=$(program sftp)
	[ -n "$SSHD" ] || die "sshd not found; install it: dnf install openssh-server (Debian: apt-get install openssh-server)"
	if [ -z "$SSH" ] || [ -z "$SFTP" ] || [ -z "$SSH_KEYGEN" ]; then
		die "ssh, sftp or ssh-keygen not found; install them: dnf install openssh-clients (Debian: apt-get install openssh-client)"
	fi
	SFTP_SERVER=""
	local p
	for p in /usr/libexec/openssh/sftp-server /usr/lib/openssh/sftp-server /usr/lib/ssh/sftp-server /usr/libexec/sftp-server; do
		[ -x "$p" ] && { SFTP_SERVER=$p; break; }
	done
	OPENSSH_BUILD=$(openssh_build "$SSH")
}

# The system part of the client configuration (the kit's own clients',
# start-ssh.sh, and the load mode's, lib/load-client.sh): all of
# /etc/ssh/ssh_config for the system's ssh; for a build of its own only
# the crypto policy.
client_include () {
	local policy=/etc/crypto-policies/back-ends/openssh.config
	[ -z "$OPENSSH_BUILD_PREFIX" ] || [ ! -f "$OPENSSH_BUILD_PREFIX/etc/crypto-policies/back-ends/openssh.config" ] ||
		policy=$OPENSSH_BUILD_PREFIX/etc/crypto-policies/back-ends/openssh.config
	if [ -z "$OPENSSH_BUILD_PREFIX" ]; then
		printf 'Include /etc/ssh/ssh_config\n'
	elif [ -f "$OPENSSH_BUILD_PREFIX/etc/ssh/ssh_config" ]; then
		# A build in RHEL's layout has a client configuration of its
		# own (RHEL's, with its 50-redhat.conf: the build's crypto
		# policy and GSSAPIAuthentication yes): the client as shipped.
		printf 'Include %s\n' "$OPENSSH_BUILD_PREFIX/etc/ssh/ssh_config"
	elif [ -f "$policy" ]; then
		printf 'Include %s\n' "$policy"
	else
		printf '# No system crypto policy on this host: OpenSSH defaults apply.\n'
	fi
}

# runs FILE: true when FILE can be executed at all (its loader finds its
# libraries); it is called with an unknown option, which every OpenSSH
# program answers with its usage text.
runs () {
	local out rc=0
	out=$("$1" -\? 2>&1 </dev/null) || rc=$?
	case $rc in 126 | 127) return 1 ;; esac
	case $out in *"error while loading shared libraries"* | *"cannot execute"*) return 1 ;; esac
	return 0
}

# openssh_prefix_tools PREFIX: the programs of the build below PREFIX,
# checked before anything on the host changes: each file exists and
# runs, ssh -V names a version, sshd is the same version, and the
# per-connection programs of that version (sshd-session from 9.8,
# sshd-auth from 10.0) are there. Otherwise one line and exit 2.
openssh_prefix_tools () {
	local prefix=${1%/} f missing="" broken="" version sshd_version libexec
	[ -d "$prefix" ] || die "OPENSSH_PREFIX=$1: no such folder; set it to the prefix of an OpenSSH installation (the folder that holds sbin/sshd and bin/ssh), or empty for the system's OpenSSH"
	# The helpers: in libexec (upstream's make install) or in
	# libexec/openssh (RHEL's and Fedora's layout, --libexecdir).
	libexec=libexec
	[ -f "$prefix/libexec/sftp-server" ] || [ ! -f "$prefix/libexec/openssh/sftp-server" ] || libexec=libexec/openssh
	for f in sbin/sshd bin/ssh bin/sftp bin/ssh-keygen "$libexec/sftp-server"; do
		if [ ! -f "$prefix/$f" ] || [ ! -x "$prefix/$f" ]; then
			missing="$missing $f"
		elif ! runs "$prefix/$f"; then
			broken="$broken $f"
		fi
	done
	[ -z "$missing" ] || die "OPENSSH_PREFIX=$1 is not a complete OpenSSH installation: missing${missing/libexec\/sftp-server/libexec/sftp-server (or libexec/openssh/sftp-server)} (run make install there, or set OPENSSH_PREFIX to the right prefix)"
	[ -z "$broken" ] || die "OPENSSH_PREFIX=$1: cannot run${broken} (a library it needs is missing?); check with: ldd $prefix/${broken# }"
	version=$(openssh_version "$prefix/bin/ssh")
	[ -n "$version" ] || die "OPENSSH_PREFIX=$1: $prefix/bin/ssh -V names no OpenSSH version ($("$prefix/bin/ssh" -V 2>&1 | head -n 1)); set OPENSSH_PREFIX to an OpenSSH installation"
	sshd_version=$(openssh_version "$prefix/sbin/sshd")
	[ "$sshd_version" = "$version" ] || die "OPENSSH_PREFIX=$1: sbin/sshd is OpenSSH ${sshd_version:-(unknown)} but bin/ssh is $version; server and clients must come from one build: reinstall it"
	missing=""
	if version_ge 9.8 "$version"; then
		for f in "$libexec/sshd-session" $(version_ge 10.0 "$version" && echo "$libexec/sshd-auth"); do
			if [ ! -f "$prefix/$f" ] || [ ! -x "$prefix/$f" ]; then
				missing="$missing $f"
			elif ! runs "$prefix/$f"; then
				broken="$broken $f"
			fi
		done
	fi
	[ -z "$missing" ] || die "OPENSSH_PREFIX=$1 holds OpenSSH $version but not${missing}, which sshd $version runs for every connection: run make install there again"
	[ -z "$broken" ] || die "OPENSSH_PREFIX=$1: cannot run${broken}; check with: ldd $prefix/${broken# }"
	# Its privilege separation user is compiled in (configure
	# --with-privsep-user); sshd names it when it is missing. The kit
	# does not create system users: the administrator does, once.
	f=$("$prefix/sbin/sshd" -t -f /dev/null 2>&1 | tr -d '\r' | sed -n 's/.*Privilege separation user \([^ ]*\) does not exist.*/\1/p' | head -n 1)
	[ -z "$f" ] || die "OPENSSH_PREFIX=$1: its sshd runs unprivileged parts as user $f, which does not exist here; create it once: useradd --system --no-create-home --home-dir /var/empty --shell /sbin/nologin $f"
	SSHD=$prefix/sbin/sshd
	SSH=$prefix/bin/ssh
	SFTP=$prefix/bin/sftp
	SSH_KEYGEN=$prefix/bin/ssh-keygen
	SFTP_SERVER=$prefix/$libexec/sftp-server
	OPENSSH_BUILD=$(openssh_build "$SSH")
	OPENSSH_BUILD_PREFIX=$prefix
}

# The tools of the build the test server was set up with (server.env),
# for the commands that use a running server (test-ssh.sh, status, stop).
# An OPENSSH_PREFIX that names another build is refused: the server and
# the clients must come from one build, and only start-ssh.sh switches it.
find_server_tools () {
	local recorded
	if [ -z "$(server_get MODE)" ]; then
		find_tools
		return 0
	fi
	recorded=$(server_get OPENSSH_PREFIX)
	if [ -n "${SETTING[OPENSSH_PREFIX]:-}" ] && [ "${SETTING[OPENSSH_PREFIX]%/}" != "$recorded" ]; then
		die "the test server runs OpenSSH from ${recorded:-the system}, not from OPENSSH_PREFIX=${SETTING[OPENSSH_PREFIX]}; switch it first: OPENSSH_PREFIX=${SETTING[OPENSSH_PREFIX]} ./start-ssh.sh"
	fi
	find_tools "$recorded"
}

# kit_commit: the commit of a source checkout of the kit (git describe
# --always --dirty: "-dirty" when it has changes not committed), so that
# two runs of one version made from different trees can be told apart;
# nothing for an installed package or without git. The checkout may
# belong to another user than the one running the kit (root): git is
# told this one folder is safe, for this command only.
kit_commit () {
	[ -e "$KIT_DIR/.git" ] && command -v git >/dev/null 2>&1 || return 0
	git -c safe.directory="$KIT_DIR" -C "$KIT_DIR" describe --always --dirty 2>/dev/null || true
}

# openssh_package FILE: the package that installed FILE, with its
# release ("openssh-server-8.7p1-34.el9_3.3.x86_64", "openssh-server
# 1:9.2p1-2+deb12u3"), from rpm or dpkg; nothing when no package owns it
# (a build of one's own, as in OPENSSH_PREFIX).
openssh_package () {
	local f pkg
	f=$(readlink -f "$1") || return 0
	if command -v rpm >/dev/null 2>&1 && pkg=$(rpm -qf --qf '%{NAME}-%{VERSION}-%{RELEASE}.%{ARCH}\n' "$f" 2>/dev/null); then
		printf '%s\n' "$pkg" | head -n 1
		return 0
	fi
	command -v dpkg >/dev/null 2>&1 || return 0
	# dpkg knows the path it unpacked (/usr/sbin/sshd), not always the
	# one the link or the merged /usr leads to.
	pkg=$(dpkg -S "$1" 2>/dev/null || dpkg -S "$f" 2>/dev/null) || return 0
	pkg=${pkg%%:*}
	dpkg-query -W -f='${Package} ${Version}\n' "$pkg" 2>/dev/null | head -n 1
}

# "OpenSSH_9.9p1" from ssh -V (its first word, without the comma).
openssh_build () {
	"$1" -V 2>&1 | grep -o 'OpenSSH_[^ ,]*' | head -n 1
}

# "9.2" from "OpenSSH_9.2p1 ..." or "OpenSSH_9.2, OpenSSL ...".
openssh_version () {
	"$@" -V 2>&1 | sed -n 's/.*OpenSSH_\([0-9][0-9]*\.[0-9][0-9]*\).*/\1/p' | head -n 1
}

# version_ge 9.8 9.10 -> true when $2 >= $1.
version_ge () {
	[ "$(printf '%s\n%s\n' "$1" "$2" | sort -t. -k1,1n -k2,2n | head -n 1)" = "$1" ]
}

# ---- Settings -------------------------------------------------------------

# The settings come through one door: SETTING[NAME], for every NAME of
# lib/settings.schema, e.g. "${SETTING[LOGIN_SAMPLES]}" (in arithmetic
# SETTING[LOGIN_SAMPLES]). No part of the kit reads a setting as a
# variable of its own name: an environment variable LOGIN_SAMPLES is the
# user's input, which sshperf-settings reads and checks; the checked
# value is in SETTING. Empty until load_settings; a read of a setting
# before it fails under set -u (only cmd_cleanup, which loads none, sets
# the one it needs).
declare -gA SETTING=()

# load_settings: reads and checks every setting (settings.conf or the
# installed one, each overridden by an environment variable of its name)
# with sshperf-settings into SETTING, the one door above; it creates no
# variable of a setting's name. A bad value ends the script with one
# line and exit 2. RESULTS_DIR is made absolute.
load_settings () {
	local out line from_env="" n re="^([A-Z][A-Z0-9_]*)='([^']*)'\$"
	SETTINGS_FILE=$(settings_file)
	if ! out=$(helper settings -s "$SCHEMA_FILE" -f "$SETTINGS_FILE" 2>&1 >/dev/null); then
		printf '%s: %s\n' "$PROG" "${out#sshperf-settings: }" >&2
		exit 2
	fi
	out=$(helper settings -s "$SCHEMA_FILE" -f "$SETTINGS_FILE")
	# The helper prints NAME='value' lines whose values it has checked
	# (no quote and no newline in a value), then SETTINGS_FROM_ENV, which
	# is not a setting (data/settings.env of a run keeps it).
	SETTING=()
	while IFS= read -r line; do
		[[ $line =~ $re ]] || die "sshperf-settings printed a line the kit cannot read: $line"
		if [ "${BASH_REMATCH[1]}" = SETTINGS_FROM_ENV ]; then
			from_env=" ${BASH_REMATCH[2]} "
			continue
		fi
		SETTING[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
	done <<<"$out"
	instance_known
	# Instance NAME: the port and the user of the settings file are the
	# default instance's; NAME's own are TEST_PORT + N and TEST_USER-NAME
	# (an existing account is used as named), unless the environment
	# gives them. They are passed on as resolved, as RESULTS_DIR below,
	# so that a run's data/settings.env records the ones in use.
	if [ -n "${SETTING[KIT_INSTANCE]}" ]; then
		case $from_env in *" TEST_PORT "*) ;; *)
			n=$((SETTING[TEST_PORT] + $(instance_port_offset "${SETTING[KIT_INSTANCE]}")))
			[ "$n" -le 65535 ] || die "KIT_INSTANCE=${SETTING[KIT_INSTANCE]} would listen on port $n (TEST_PORT=${SETTING[TEST_PORT]} + its offset), above 65535; give it a port: TEST_PORT=port"
			SETTING[TEST_PORT]=$n
			export TEST_PORT=$n
			;;
		esac
		case $from_env in *" TEST_USER "*) ;; *)
			if [ "${SETTING[TEST_USER_EXISTING]}" != yes ]; then
				n=${SETTING[TEST_USER]}-${SETTING[KIT_INSTANCE]}
				[ "${#n}" -le 32 ] || die "KIT_INSTANCE=${SETTING[KIT_INSTANCE]} would make the user $n, longer than 32 characters; give it a user: TEST_USER=name"
				SETTING[TEST_USER]=$n
				export TEST_USER=$n
			fi
			;;
		esac
	fi
	case ${SETTING[RESULTS_DIR]} in
	'') SETTING[RESULTS_DIR]=$RESULTS_DIR_DEFAULT ;;
	/*) ;;
	# Relative: next to the default results folder (the checkout, or
	# /var/lib/sshd-perf-kit when installed; never /usr/share).
	*) SETTING[RESULTS_DIR]="$(dirname "$RESULTS_DIR_DEFAULT")/${SETTING[RESULTS_DIR]}" ;;
	esac
	# A RESULTS_DIR from the environment is passed on as resolved, as it
	# always was: the programs the kit runs (sshperf-settings writing a
	# run's data/settings.env) see the folder in use, not the input.
	if [ -n "${RESULTS_DIR+set}" ]; then
		RESULTS_DIR=${SETTING[RESULTS_DIR]}
	fi
}

# instance_known: the KIT_INSTANCE just loaded is the one whose names are
# in use (lib/names.sh, set when this file was sourced). They differ only
# when the settings helper was not built yet at that point.
instance_known () {
	[ "${SETTING[KIT_INSTANCE]}" = "$INSTANCE_NAME" ] ||
		die "KIT_INSTANCE=${SETTING[KIT_INSTANCE]} could not be read before the helpers were built; run the command again"
}

# load_instance: KIT_INSTANCE alone into SETTING, checked (for a command
# that loads no other setting: cleanup works with a broken settings file).
# A bad value ends the script with one line and exit 2.
load_instance () {
	local out
	out=$(instance_setting 2>&1) || {
		printf '%s: %s\n' "$PROG" "$out" >&2
		exit 2
	}
	SETTING[KIT_INSTANCE]=$out
	instance_known
}

# ---- State: what the kit created ------------------------------------------

# record KIND VALUE: remember that the kit created this (once).
record () {
	state_has "$1" "$2" || printf '%s %s\n' "$1" "$2" >>"$MANIFEST"
}

state_has () {
	[ -f "$MANIFEST" ] && grep -qxF "$1 $2" "$MANIFEST"
}

# Values of one kind, one per line, newest last.
state_list () {
	[ -f "$MANIFEST" ] || return 0
	sed -n "s/^$1 //p" "$MANIFEST"
}

# server.env holds facts about the running server: MODE, PID, PORT, ...
server_get () {
	kv_get "$SERVER_ENV" "$1"
}

server_set () {
	kv_set "$SERVER_ENV" "$1" "$2"
}

# True when the test user is the kit's own; false for an existing account
# (TEST_USER_EXISTING=yes), whose password, home and ~/.ssh the kit never
# changes (no locking or unlocking either).
test_user_is_kits () {
	[ "$(server_get EXISTING)" != yes ]
}

# ---- Signals during a step that must not be cut short ---------------------

# defer_signals: from now on SIGINT and SIGTERM are only noted; the work
# goes on to its end (each of its steps has a deadline).
# end_deferred_signals: the work is done; exit 130 if a signal was noted.
# A signal that comes after this point, while the script is on its way
# out, also ends it with 130 at once: without that, it would be noted by
# a trap that nobody reads any more, and the script would exit 0 as if it
# had never been signalled (t33 saw "signalled=yes rc=0" that way).
defer_signals () {
	signals_due=""
	at_exit_signal_status 130
	trap 'signalled=1; [ -z "${signals_due:-}" ] || exit 130' INT TERM
}

end_deferred_signals () {
	signals_due=1
	[ -z "${signalled:-}" ] || exit 130
}

# ---- The test user's password ---------------------------------------------

# The account's password is locked except while the auth test's password
# logins run: the host's real sshd accepts passwords too, and must not
# find one valid there the rest of the time. Key logins must still work,
# and how the lock looks decides that:
# - with PAM (UsePAM yes, the kit's template): '!' in front of the hash
#   (usermod -L). sshd leaves the account check to PAM, which does not
#   look at the '!'; pam_unix refuses every password against it.
# - without PAM (UsePAM no): '*', a field that holds no hash. OpenSSH on
#   Linux counts a field that starts with '!' as a locked account and
#   refuses it for every method, keys too (auth.c allowed_user,
#   platform.c platform_locked_account: LOCKED_PASSWD_PREFIX "!" in
#   configure.ac); '*' is not locked for it, and no password's hash is
#   '*', so no password is accepted either.
# Which sshd runs is recorded at the start (server_get USE_PAM: yes, no).

# True when no password is valid for the test user: its shadow entry is
# locked ('!'), holds no hash ('*'), or the user is gone.
password_locked () {
	local hash
	hash=$(getent shadow "${SETTING[TEST_USER]}" | cut -d: -f2)
	case $hash in '' | '!'* | '*'*) return 0 ;; esac
	return 1
}

# Locks the password in the form the test server allows key logins with
# (above); only when it is not in that form already.
# An account the kit did not create (TEST_USER_EXISTING=yes) is never
# touched: both are no-ops for it.
password_lock () {
	local hash
	test_user_is_kits || return 0
	if [ "$(server_get USE_PAM)" = no ]; then
		hash=$(getent shadow "${SETTING[TEST_USER]}" | cut -d: -f2)
		[ "$hash" = '*' ] || usermod -p '*' "${SETTING[TEST_USER]}" >/dev/null
	else
		password_locked || usermod -L "${SETTING[TEST_USER]}" >/dev/null
	fi
}

# The command that locks it by hand, for a message.
password_lock_command () {
	if [ "$(server_get USE_PAM)" = no ]; then
		printf "usermod -p '*' %s" "${SETTING[TEST_USER]}"
	else
		printf 'usermod -L %s' "${SETTING[TEST_USER]}"
	fi
}

# Sets the password from the root-only state file: chpasswd reads it on
# standard input, never from an argument list or the environment.
password_unlock () {
	test_user_is_kits || return 0
	[ -s "$PASSWORD_FILE" ] || return 1
	printf '%s:%s\n' "${SETTING[TEST_USER]}" "$(cat "$PASSWORD_FILE")" | chpasswd
}

# ---- Lock -----------------------------------------------------------------

# One kit command at a time changes or measures the test server. The lock
# is an flock on an open descriptor, so a crashed run cannot leave it held.
take_lock () {
	exec 9>>"$LOCK_FILE"
	flock -n 9 || die "another sshd-perf-kit command is running (lock $LOCK_FILE held by pid $(cat "$LOCK_FILE.pid" 2>/dev/null || echo '?')); wait for it to finish"
	printf '%s\n' "$$" >"$LOCK_FILE.pid"
	# Without a test server there is nothing to guard: leave no lock file.
	at_exit release_lock
}

release_lock () {
	[ -d "$STATE_DIR" ] || rm -f "$LOCK_FILE" "$LOCK_FILE.pid"
}

# ---- The running test server ----------------------------------------------

# True when pid is a live sshd started with this instance's config file:
# the whole word, since the default instance's path is the start of every
# other instance's (sshd rewrites its command line to one string with
# spaces, so the words are split on spaces, not NULs).
is_kit_sshd () {
	local cmd
	cmd=$(sshd_words "$1") || return 1
	case $cmd in *" $SSHD_CONFIG "*) return 0 ;; esac
	return 1
}

# proc_named PID NAME: true when the live process PID is called NAME (its
# /proc/PID/comm, the executable's name cut to 15 characters). Read by the
# shell itself: the loops over every process of the host ask this first,
# where a readlink or tr for each of some 500 processes cost seconds.
proc_named () {
	local comm
	IFS= read -r comm 2>/dev/null <"/proc/$1/comm" || return 1
	[ "$comm" = "$2" ]
}

# proc_uid_is STATUS UID: true when the process of STATUS (a
# /proc/PID/status file) runs with UID as its real or effective user id.
proc_uid_is () {
	local key real eff rest
	while read -r key real eff rest; do
		[ "$key" = Uid: ] || continue
		[ "$real" = "$2" ] || [ "$eff" = "$2" ]
		return
	done 2>/dev/null <"$1"
	return 1
}

# same_pid_ns PID: true when PID is in this shell's PID namespace (a
# container's processes are not this host's).
same_pid_ns () {
	[ "/proc/$1/ns/pid" -ef /proc/self/ns/pid ]
}

# sshd_words PID: the command line of a live sshd as " word word ... ",
# or status 1 when PID is no sshd.
sshd_words () {
	local pid=$1 exe
	[ -n "$pid" ] && proc_named "$pid" sshd || return 1
	exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || return 1
	case $exe in */sshd | */sshd\ \(deleted\)) ;; *) return 1 ;; esac
	printf ' %s \n' "$(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline")"
}

# other_kit_server: the pid of a running test server of another instance
# on this host (an sshd started with a config of the kit's,
# KIT_CONFIG_PREFIX, not this instance's, docs/instances.md; a
# container's sshd is not this host's); 1 when none runs.
other_kit_server () {
	local p cmd
	for p in /proc/[0-9]*; do
		proc_named "${p#/proc/}" sshd || continue
		cmd=$(sshd_words "${p#/proc/}") || continue
		same_pid_ns "${p#/proc/}" || continue
		case $cmd in
		*" $SSHD_CONFIG "*) ;;
		*" $KIT_CONFIG_PREFIX"*) echo "${p#/proc/}"; return 0 ;;
		esac
	done
	return 1
}

# The listener's pid, or nothing when the test server is not running.
server_pid () {
	local mode pid
	mode=$(server_get MODE)
	case $mode in
	systemd)
		pid=$(helper unit show "$UNIT_NAME" 2>/dev/null | sed -n 's/^main_pid=//p')
		[ "${pid:-0}" != 0 ] && is_kit_sshd "$pid" && printf '%s\n' "$pid"
		;;
	direct)
		pid=$(server_get PID)
		is_kit_sshd "$pid" && printf '%s\n' "$pid"
		;;
	esac
	return 0
}

# Is something listening on TCP port $1 (any address)? From /proc, so it
# needs no extra tool.
# port_owner PORT: the other instance of the kit on this host whose
# recorded server (STATE/server.env) has PORT, as "NAME<TAB>STATE": two
# instances must never share a port, and two names can map to the same
# port offset (lib/names.sh). Nothing when none has it.
port_owner () {
	local env dir name
	for env in "$STATE_BASE/state/server.env" "$STATE_BASE"-*/state/server.env; do
		[ -f "$env" ] || continue
		dir=${env%/server.env}
		[ "$dir" != "$STATE_DIR" ] || continue
		[ "$(kv_get "$env" PORT)" = "$1" ] || continue
		name=${dir%/state}
		name=${name#"$STATE_BASE"}
		printf '%s\t%s\n' "${name#-}" "$dir"
		return 0
	done
}

port_in_use () {
	local hex
	hex=$(printf '%04X' "$1")
	cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
		awk -v p=":$hex" '$4 == "0A" && substr($2, length($2) - 4) == p { found = 1 } END { exit !found }'
}

# Waits (with a deadline) until the greeting arrives on the test port.
wait_greeting () {
	helper connect -t "$(($1 * 1000))" 127.0.0.1 "${SETTING[TEST_PORT]}"
}

# One real login with the kit's client config; prints ssh's last message on failure.
try_login () {
	local alias=${1:-$HOST_ALIAS}
	timeout --kill-after=2 "${SETTING[LOGIN_TIMEOUT]}" "$SSH" -F "$CLIENT_CONFIG" "$alias" true </dev/null
}
