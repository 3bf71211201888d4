#!/usr/bin/env bash
# The kit's security and interrupt promises (docs/promises.md) under a real
# systemd, inside a booted Debian 12 container: the test server listens on
# 127.0.0.1:11022 only; neither root nor another account of the machine can
# log in to it (not even with the kit's key or password); the test user has
# no privilege; the secrets are root-only and the password is in no argument
# list, environment, journal or report; a SIGTERM to test-ssh.sh (and to a
# first start, and to a stop) leaves a partial report, no client behind and
# the server running; and through all of it the container's own ssh.service,
# its config and its host keys are never touched. t10 checks the same
# promises on a host without systemd; t31 checks the life cycle under it.
# shellcheck disable=SC2034 # names used only inside the eval'd test bodies
. "$(dirname "$0")/lib/harness.sh"
# shellcheck source=lib/container.sh
. "$TEST_DIR/lib/container.sh"
# shellcheck source=lib/procs.sh
. "$TEST_DIR/lib/procs.sh"

container_test 'security and interrupts under systemd' t33

STATE=/var/lib/sshd-perf-kit/state
CFG="$STATE/client/ssh_config"
UNIT=sshd-perf-test.service
# A throwaway account of the container's own: it must not get in either.
OTHER=other
# A copy of the kit's password, for grep -F -f (never on a command line).
SECRET="$TEST_TMP/secret/password"
RESULTS="$TEST_TMP/results"
mkdir -p "$RESULTS" "$TEST_TMP/secret"
chmod 0700 "$TEST_TMP/secret"

# In the container: run a command with the test's settings.
ct () {
	container_exec env LOGIN_SAMPLES=3 RESULTS_DIR="$RESULTS" "$@"
}
snapshot () {
	ct bash -c ". '$TEST_DIR/lib/snapshot.sh' && host_snapshot"
}
ssh_main_pid () {
	ct systemctl show -p MainPID --value ssh.service
}
unit_main_pid () {
	ct systemctl show -p MainPID --value "$UNIT"
}
# Checksums of the real sshd's config, its sshd_config.d and the host keys
# that existed before the kit (their names are in $TEST_TMP/real-keys).
real_sshd_sums () {
	# shellcheck disable=SC2046 # a list of file names without spaces
	ct bash -c 'cd /etc/ssh && sha256sum sshd_config "$@" &&
		find sshd_config.d -printf "%p %y %m %u %g\n" | sort &&
		find sshd_config.d -type f -exec sha256sum {} + | sort' real-sums $(cat "$TEST_TMP/real-keys")
}
# ssh with the kit's client config and the password from lib/bin/askpass.sh.
pw_ssh () {
	ct env SSH_ASKPASS="$KIT_DIR/lib/bin/askpass.sh" SSH_ASKPASS_REQUIRE=force \
		ssh -F "$CFG" "$@" </dev/null
}
# The same client options against the container's own sshd on port 22.
port22 () {
	printf '%s\n' -o Port=22 -o UserKnownHostsFile=/root/.ssh/known_hosts
}

# True while the test user's password is locked ('!' in front of its shadow
# entry; the entry itself is never printed).
pw_locked () {
	case $(ct getent shadow sshperf | cut -d: -f2) in '!'*) return 0 ;; esac
	return 1
}
# The account is locked and the kit's password gets sshperf in neither on
# the test port nor on the container's own sshd (port 22).
# shellcheck disable=SC2046 # port22 prints options, one per line
password_refused () {
	pw_locked &&
	! pw_ssh sshperf-test-password id -un 2>"$TEST_TMP/pr1" &&
	test_grep "Permission denied" "$TEST_TMP/pr1" &&
	! pw_ssh $(port22) sshperf-test-password id -un 2>"$TEST_TMP/pr2" &&
	test_grep "Permission denied" "$TEST_TMP/pr2"
}

# alive PID: true while the host process PID runs (a zombie does not).
alive () {
	local s
	s=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) || return 1
	[ "${s%% *}" != Z ]
}

# What a run of the kit may leave behind in the container: ssh clients,
# the helpers, askpass (it execs cat on the password file), the test
# server's per-connection processes and the test user's processes (its
# systemd --user manager aside, which logind ends on its own).
leftovers () {
	container_exec ps -eo pid=,user=,comm=,args= | awk '
		$3 == "ssh" || $3 ~ /^sshperf-/ || /askpass|state\/password|sshd: sshperf/ ||
		($2 == "sshperf" && $3 != "systemd" && $3 != "(sd-pam)")'
}
no_leftovers () {
	leftovers >"$TEST_TMP/left" && [ ! -s "$TEST_TMP/left" ]
}

# signal_at SECONDS POLL CONDITION SIGNAL CMD...: inside the container, runs
# CMD in the background, polls the shell CONDITION every POLL seconds (0: as
# fast as it can; at most SECONDS), sends SIGNAL to CMD once it holds and
# waits (at most 300 s) for CMD to end. Prints "signalled=yes|no rc=N";
# CMD's output goes to $TEST_TMP/signal.out.
# "yes" means the signal reached CMD while it still ran: CMD is stopped
# (SIGSTOP) first, and signalled only once it is seen stopped, not ended.
# Without that, CMD could end between the look and the kill, and a signal
# sent to the zombie would count as "signalled" with CMD's own rc 0.
signal_at () {
	local secs=$1 poll=$2 cond=$3 sig=$4
	shift 4
	# shellcheck disable=SC2016 # expanded by the container's bash
	ct bash -c '
		secs=$1 poll=$2 cond=$3 sig=$4 out=$5
		shift 5
		# Builtins only: a fork per round would make the polling slow.
		# state PID: sets st to its state letter, or "gone".
		state () {
			{ read -r st <"/proc/$1/stat"; } 2>/dev/null || { st=gone; return; }
			st=${st##*) }
			st=${st%% *}
		}
		alive () {
			state "$1"
			[ "$st" != Z ] && [ "$st" != gone ]
		}
		"$@" </dev/null >"$out" 2>&1 &
		pid=$!
		end=$((SECONDS + secs)) signalled=no
		until eval "$cond"; do
			alive "$pid" && [ "$SECONDS" -lt "$end" ] || break
			[ "$poll" = 0 ] || sleep "$poll"
		done
		if alive "$pid" && eval "$cond"; then
			kill -s STOP "$pid"
			end=$((SECONDS + 60))
			while state "$pid"; [ "$st" != T ] && [ "$st" != Z ] && [ "$st" != gone ] &&
				[ "$SECONDS" -lt "$end" ]; do :; done
			[ "$st" != T ] || { kill -s "$sig" "$pid" && signalled=yes; }
			kill -s CONT "$pid" 2>/dev/null
		fi
		end=$((SECONDS + 300))
		while alive "$pid" && [ "$SECONDS" -lt "$end" ]; do sleep 0.05; done
		if alive "$pid"; then echo "signalled=$signalled rc=still-running"; exit 1; fi
		rc=0; wait "$pid" || rc=$?
		echo "signalled=$signalled rc=$rc"
	' signal-at "$secs" "$poll" "$cond" "$sig" "$TEST_TMP/signal.out" "$@"
}

snapshot >"$TEST_TMP/before-other"
main_pid=$(ssh_main_pid)

test_expect 'the container runs its own ssh.service and accepts logins' '
	[ "${main_pid:-0}" -gt 0 ] && container_ssh true
'

test_expect 'a throwaway account of the container exists besides the kit (other)' '
	ct useradd --create-home --user-group --shell /bin/bash "$OTHER" &&
	ct install -d -m 0700 -o "$OTHER" -g "$OTHER" "/home/$OTHER/.ssh" &&
	ct install -m 0600 -o "$OTHER" -g "$OTHER" /dev/null "/home/$OTHER/.ssh/authorized_keys" &&
	ct getent shadow "$OTHER" >"$TEST_TMP/other.shadow"
'

# The host as it is before the kit, with the throwaway account in it.
snapshot >"$TEST_TMP/before"
ct bash -c 'cd /etc/ssh && ls -d ssh_host_*_key*' >"$TEST_TMP/real-keys"
real_sshd_sums >"$TEST_TMP/real-sums"

test_expect 'the real sshd config, sshd_config.d and host keys are recorded' '
	[ "$(wc -l <"$TEST_TMP/real-keys")" -ge 2 ] &&
	test_grep ! perftest "$TEST_TMP/real-keys" &&
	test_grep " sshd_config$" "$TEST_TMP/real-sums" &&
	test_grep "^sshd_config.d d " "$TEST_TMP/real-sums"
'

test_expect 'SIGTERM during a first start (unit installed): all rolled back, host as before' '
	signal_at 60 0.01 "[ -e /etc/systemd/system/$UNIT ]" TERM "$KIT_DIR/start-ssh.sh" >"$TEST_TMP/fs" &&
	cat "$TEST_TMP/fs" "$TEST_TMP/signal.out" &&
	test_grep -E "^signalled=yes rc=(143|130)$" "$TEST_TMP/fs" &&
	test_grep "start failed: removing what it created" "$TEST_TMP/signal.out" &&
	test_eq "$(ct systemctl show -p LoadState --value "$UNIT")" not-found &&
	! ct getent passwd sshperf &&
	ct bash -c ". \"$TEST_DIR/lib/snapshot.sh\" && kit_processes" >"$TEST_TMP/kp" &&
	test_cmp /dev/null "$TEST_TMP/kp" &&
	snapshot >"$TEST_TMP/after-fs" && test_cmp "$TEST_TMP/before" "$TEST_TMP/after-fs" &&
	test_eq "$(ssh_main_pid)" "$main_pid"
'

test_expect 'start installs and starts the unit' '
	ct "$KIT_DIR/start-ssh.sh" >"$TEST_TMP/start.out" 2>&1 &&
	cat "$TEST_TMP/start.out" &&
	test_grep "unit $UNIT" "$TEST_TMP/start.out" &&
	test_eq "$(ct systemctl is-active "$UNIT")" active &&
	ct cat "$STATE/password" >"$SECRET" && chmod 0600 "$SECRET" &&
	[ "$(wc -l <"$SECRET")" -eq 1 ] && [ "$(wc -c <"$SECRET")" -ge 21 ]
'

test_expect 'after start the password is locked: refused on the test port and on port 22' '
	password_refused &&
	test_eq "$(ct ssh -F "$CFG" sshperf-test id -un)" sshperf
'

test_expect 'the test server listens on 127.0.0.1:11022 only' '
	kpid=$(unit_main_pid) && [ "${kpid:-0}" -gt 0 ] &&
	ct ss -Hltnp >"$TEST_TMP/ss" && cat "$TEST_TMP/ss" &&
	echo 127.0.0.1:11022 >"$TEST_TMP/want" &&
	grep -F "pid=$kpid," "$TEST_TMP/ss" | awk "{ print \$4 }" | sort -u >"$TEST_TMP/kit-listen" &&
	test_cmp "$TEST_TMP/want" "$TEST_TMP/kit-listen" &&
	awk "\$4 ~ /:11022\$/ { print \$4 }" "$TEST_TMP/ss" >"$TEST_TMP/port-listen" &&
	test_cmp "$TEST_TMP/want" "$TEST_TMP/port-listen" &&
	! ct ss -Hlunp | grep -F "pid=$kpid,"
'

test_expect 'the real sshd config, sshd_config.d and host keys are untouched while the kit runs' '
	real_sshd_sums >"$TEST_TMP/sums-running" &&
	test_cmp "$TEST_TMP/real-sums" "$TEST_TMP/sums-running" &&
	test_eq "$(ssh_main_pid)" "$main_pid"
'

test_expect 'key logins: sshperf gets in; the other account and root do not (both would on port 22)' '
	ct cat "$STATE/client/id_ed25519.pub" "$STATE/client/id_rsa.pub" >"$TEST_TMP/keys.pub" &&
	ct cp "$TEST_TMP/keys.pub" "/home/$OTHER/.ssh/authorized_keys" &&
	test_eq "$(ct ssh -F "$CFG" sshperf-test id -un)" sshperf &&
	test_eq "$(ct ssh -F "$CFG" sshperf-test-rsa id -un)" sshperf &&
	test_eq "$(ct ssh -F "$CFG" $(port22) -o User="$OTHER" sshperf-test id -un)" "$OTHER" &&
	test_eq "$(ct ssh -F "$CFG" $(port22) -o User="$OTHER" sshperf-test-rsa id -un)" "$OTHER" &&
	! ct ssh -F "$CFG" -o User="$OTHER" sshperf-test id -un 2>"$TEST_TMP/e1" &&
	test_grep "Permission denied" "$TEST_TMP/e1" &&
	! ct ssh -F "$CFG" -o User="$OTHER" sshperf-test-rsa id -un 2>"$TEST_TMP/e2" &&
	test_grep "Permission denied" "$TEST_TMP/e2" &&
	test_eq "$(ct ssh -F "$CFG" $(port22) -o User=root -i "$CONTAINER_SSH_KEY" sshperf-test id -un)" root &&
	! ct ssh -F "$CFG" -o User=root -i "$CONTAINER_SSH_KEY" sshperf-test id -un 2>"$TEST_TMP/e3" &&
	test_grep "Permission denied" "$TEST_TMP/e3" &&
	! ct ssh -F "$CFG" -o User=root sshperf-test id -un 2>"$TEST_TMP/e4" &&
	test_grep "Permission denied" "$TEST_TMP/e4"
'

# The password set by hand, as the auth test sets it, and locked again: it
# works for sshperf (on both sshds, so the refusals above come from the
# lock), and on the test port for nobody else.
test_expect 'the kit password works for sshperf only, not for another account that has it too' '
	ct bash -c "printf \"%s:%s\\n\" sshperf \"\$(cat $STATE/password)\" | chpasswd" &&
	! pw_locked &&
	test_eq "$(pw_ssh sshperf-test-password id -un)" sshperf &&
	test_eq "$(pw_ssh $(port22) sshperf-test-password id -un)" sshperf &&
	ct usermod -L sshperf && password_refused &&
	ct bash -c "printf \"%s:%s\\n\" \"$OTHER\" \"\$(cat $STATE/password)\" | chpasswd" &&
	test_eq "$(pw_ssh $(port22) -o User="$OTHER" sshperf-test-password id -un)" "$OTHER" &&
	! pw_ssh -o User="$OTHER" sshperf-test-password id -un 2>"$TEST_TMP/e5" &&
	test_grep "Permission denied" "$TEST_TMP/e5" &&
	! pw_ssh -o User=root sshperf-test-password id -un 2>"$TEST_TMP/e6" &&
	test_grep "Permission denied" "$TEST_TMP/e6"
'

test_expect 'the other account gets its own password entry back' '
	IFS=: read -r _ hash lastchg _ <"$TEST_TMP/other.shadow" &&
	ct usermod -p "$hash" "$OTHER" && ct chage -d "$lastchg" "$OTHER" &&
	ct getent shadow "$OTHER" >"$TEST_TMP/other.shadow.now" &&
	test_cmp "$TEST_TMP/other.shadow" "$TEST_TMP/other.shadow.now"
'

test_expect 'sshperf has no privilege: uid and groups, no sudo rule' '
	ct id sshperf && [ "$(ct id -u sshperf)" -ne 0 ] && [ "$(ct id -g sshperf)" -ne 0 ] &&
	{ ct id -Gn sshperf || true; } >"$TEST_TMP/groups" &&
	test_grep ! -wE "root|sudo|wheel|adm|admin|shadow|disk|systemd-journal" "$TEST_TMP/groups" &&
	test_eq "$(ct id -Gn sshperf)" sshperf &&
	if ct bash -c "command -v sudo" >/dev/null; then
		{ ct sudo -n -l -U sshperf || true; } >"$TEST_TMP/sudo" &&
		test_grep ! "may run" "$TEST_TMP/sudo"
	else
		{ ct bash -c "cat /etc/sudoers /etc/sudoers.d/* 2>/dev/null" || true; } >"$TEST_TMP/sudoers" &&
		test_grep ! -w sshperf "$TEST_TMP/sudoers"
	fi
'

test_expect 'secrets are root-only; nothing the kit created is world-writable' '
	ct stat -c "%a %U %n" "$STATE" "$STATE/client" "$STATE/password" "$STATE/created" \
		"$STATE/client/id_ed25519" "$STATE/client/id_rsa" >"$TEST_TMP/modes" &&
	cat "$TEST_TMP/modes" &&
	printf "%s\n" "700 root $STATE" "700 root $STATE/client" "600 root $STATE/password" \
		"600 root $STATE/created" "600 root $STATE/client/id_ed25519" "600 root $STATE/client/id_rsa" >"$TEST_TMP/modes.want" &&
	test_cmp "$TEST_TMP/modes.want" "$TEST_TMP/modes" &&
	for t in ed25519 rsa ecdsa; do
		case $(ct stat -c "%a %U" "/etc/ssh/ssh_host_perftest_${t}_key") in "600 root" | "640 root") ;; *) return 1 ;; esac
	done &&
	ct bash -c "while read -r kind value; do
			case \$kind in
			user) getent passwd \"\$value\" | cut -d: -f6 ;;
			file | dir) echo \"\$value\" ;;
			esac
		done <$STATE/created" >"$TEST_TMP/kit-paths" &&
	cat "$TEST_TMP/kit-paths" &&
	[ "$(wc -l <"$TEST_TMP/kit-paths")" -ge 9 ] && test_grep -x /home/sshperf "$TEST_TMP/kit-paths" &&
	ct find $(cat "$TEST_TMP/kit-paths") "$STATE" ! -type l -perm -o+w >"$TEST_TMP/ww" &&
	test_cmp /dev/null "$TEST_TMP/ww"
'

# run_sampled TESTS...: test-ssh.sh TESTS while, inside the container, the
# argument lists (ps) and environments of all processes are sampled every
# 0.1 s into $TEST_TMP/sampling.
run_sampled () {
	local sampler rc=0
	mkdir -p "$TEST_TMP/sampling"
	# shellcheck disable=SC2016 # expanded by the container's bash
	CONTAINER_EXEC_TIMEOUT=330 container_exec bash -c '
		end=$((SECONDS + 300))
		while [ ! -e "$1/stop" ] && [ "$SECONDS" -lt "$end" ]; do
			ps -eww -o args >>"$1/ps"
			cat /proc/[0-9]*/environ 2>/dev/null | tr "\0" "\n" >>"$1/environ"
			sleep 0.1
		done' sampler "$TEST_TMP/sampling" </dev/null &
	sampler=$!
	waits_for 60 test -s "$TEST_TMP/sampling/ps" || return 1
	ct "$KIT_DIR/test-ssh.sh" "$@" >"$TEST_TMP/sampled.out" 2>&1 || rc=$?
	touch "$TEST_TMP/sampling/stop"
	waits_for 60 eval '! alive "$sampler"' || return 1
	wait "$sampler" || return 1
	cat "$TEST_TMP/sampled.out"
	echo "test-ssh.sh exit $rc"
	test_verdict_exit "$rc"
}

test_expect 'test-ssh.sh login auth runs while argument lists and environments are sampled' '
	run_sampled login auth &&
	report=$(tail -n 1 "$TEST_TMP/sampled.out") && [ -f "$report" ] &&
	test_grep -E "\(\`auth\`\) \| .*\*\*(PASS|FAIL|INCONCLUSIVE)\*\*" "$report" &&
	run=$(dirname "$report") &&
	[ "$(sed -n "s/^password_ok=//p" "$run/data/auth.env" | tail -n 1)" -ge 1 ] &&
	test_grep "sshperf-test-password" "$TEST_TMP/sampling/ps" &&
	test_grep "valid only during the password logins" "$report"
'

test_expect 'after test-ssh.sh auth the password is locked again: refused on both ports' '
	password_refused &&
	test_grep -x "password_locked_after=yes" "$(dirname "$(tail -n 1 "$TEST_TMP/sampled.out")")/data/auth.env"
'

sampled_run=$(dirname "$(tail -n 1 "$TEST_TMP/sampled.out" 2>/dev/null)")

# True when no file among $@ (folders: recursively) holds the password;
# else names the files (never the password). A missing file is a failure.
no_password_in () {
	local rc=0
	grep -rlF -f "$SECRET" "$@" || rc=$?
	[ "$rc" -eq 1 ]
}

test_expect 'the password is in no argument list, environment, journal or report' '
	ct journalctl -b --no-pager -o verbose >"$TEST_TMP/journal" &&
	test_grep "Accepted password for sshperf" "$TEST_TMP/journal" &&
	[ -f "$sampled_run/report.md" ] && [ -f "$sampled_run/results.json" ] &&
	[ -d "$sampled_run/raw" ] && [ -d "$sampled_run/data" ] &&
	no_password_in "$TEST_TMP/sampling" "$TEST_TMP/journal" "$TEST_TMP/sampled.out" \
		"$sampled_run/report.md" "$sampled_run/results.json" "$sampled_run/raw" "$sampled_run/data" \
		"$sampled_run"
'

# interrupt_auth: test-ssh.sh auth (30 logins per method) in the
# background inside the container; once its password logins run (the
# password is set), SIGTERM to it (its pid inside the container, from the
# shell it was exec'd from); its exit status comes back through nsenter.
interrupt_auth () {
	local bg pid rc=0
	unit_main_pid >"$TEST_TMP/unit-pid" || return 1
	# shellcheck disable=SC2016 # expanded by the container's bash
	CONTAINER_EXEC_TIMEOUT=600 container_exec bash -c 'echo $$ >"$1"; exec env LOGIN_SAMPLES=30 RESULTS_DIR="$2" "$3/test-ssh.sh" auth' \
		run "$TEST_TMP/int.pid" "$RESULTS" "$KIT_DIR" </dev/null >"$TEST_TMP/int.out" 2>&1 &
	bg=$!
	# 60 key logins come first: allow a slow machine time for them.
	waits_for 300 eval 'grep -q "^test-ssh.sh: auth: " "$TEST_TMP/int.out" && ! pw_locked && ct pgrep -x sshperf-login >/dev/null' ||
		{ cat "$TEST_TMP/int.out"; return 1; }
	sleep 0.5
	pw_locked && { echo "the password logins ended before the signal"; return 1; }
	pid=$(cat "$TEST_TMP/int.pid")
	container_exec cat "/proc/$pid/cmdline" | tr '\0' ' ' | tee "$TEST_TMP/int.cmdline"
	echo
	test_grep "test-ssh.sh auth" "$TEST_TMP/int.cmdline" || return 1
	container_exec kill -TERM "$pid" || return 1
	# A hang guard: the run ends its current login and writes its report.
	waits_for 300 eval '! alive "$bg"' || return 1
	wait "$bg" || rc=$?
	cat "$TEST_TMP/int.out"
	echo "exit $rc"
	[ "$rc" -eq 130 ]
}

test_expect 'SIGTERM to test-ssh.sh auth in the container: it exits 130' '
	interrupt_auth
'

int_run=$(dirname "$(grep -o "/[^ ]*/report.md" "$TEST_TMP/int.out" 2>/dev/null | tail -n 1)")

test_expect 'the partial report exists with auth INTERRUPTED, and holds no password' '
	test_grep "interrupted; partial report" "$TEST_TMP/int.out" &&
	[ -f "$int_run/report.md" ] &&
	test_grep -x "interrupted=yes" "$int_run/data/run.env" &&
	test_grep -x "status=INTERRUPTED" "$int_run/data/auth.env" &&
	test_grep "INTERRUPTED" "$int_run/report.md" &&
	no_password_in "$int_run" "$TEST_TMP/int.out"
'

test_expect 'interrupted during the password logins: the password is locked, refused on both ports' '
	password_refused
'

test_expect 'no ssh client, askpass or helper is left; the unit runs on, same MainPID' '
	{ waits_for 60 no_leftovers || true; } &&
	cat "$TEST_TMP/left" && test_cmp /dev/null "$TEST_TMP/left" &&
	test_eq "$(ct systemctl is-active "$UNIT")" active &&
	[ "$(unit_main_pid)" = "$(cat "$TEST_TMP/unit-pid")" ]
'

test_expect 'the next test-ssh.sh login works without repair' '
	rc=0; ct "$KIT_DIR/test-ssh.sh" login >"$TEST_TMP/next.out" 2>&1 || rc=$?
	cat "$TEST_TMP/next.out" && test_verdict_exit "$rc" "$TEST_TMP/next.out" &&
	report=$(tail -n 1 "$TEST_TMP/next.out") && [ -f "$report" ] &&
	test_grep -E "\(\`login\`\) \| [0-9.]+ ms .*\*\*(PASS|FAIL|INCONCLUSIVE)\*\*" "$report"
'

# The stop is signalled the moment the listener is gone (systemd stopped
# it; start-ssh.sh still waits for the job): it must finish, then exit 130.
# A stop that ended before the signal (0) is accepted and says so.
test_expect 'SIGTERM during stop: the stop finishes, the unit is inactive; start brings it back' '
	kpid=$(unit_main_pid) && [ "${kpid:-0}" -gt 0 ] &&
	signal_at 60 0 "[ ! -e /proc/$kpid ]" TERM "$KIT_DIR/start-ssh.sh" stop >"$TEST_TMP/st" &&
	cat "$TEST_TMP/st" "$TEST_TMP/signal.out" &&
	test_grep -E "^signalled=(yes rc=130|no rc=0)$" "$TEST_TMP/st" &&
	test_grep "stopped the test server" "$TEST_TMP/signal.out" &&
	test_eq "$(ct systemctl is-active "$UNIT" || true)" inactive &&
	rc=0 && { ct "$KIT_DIR/start-ssh.sh" status >/dev/null || rc=$?; } && [ "$rc" -eq 3 ] &&
	{ ct "$KIT_DIR/start-ssh.sh" -q ||
		{ echo "the unit'"'"'s journal, its last 40 lines:"; ct journalctl -b --no-pager -u "$UNIT" -n 40; false; }; } &&
	test_eq "$(ct systemctl is-active "$UNIT")" active &&
	ct ssh -F "$CFG" sshperf-test true
'

test_expect 'the container s own sshd kept its MainPID, was never reloaded and accepts logins' '
	test_eq "$(ssh_main_pid)" "$main_pid" && container_ssh true &&
	ct journalctl -b --no-pager -u ssh.service >"$TEST_TMP/ssh-journal" &&
	! grep -E "SIGHUP|Reload|Stopping|Stopped" "$TEST_TMP/ssh-journal"
'

test_expect 'cleanup: host as before, real sshd config and keys unchanged, same MainPID' '
	ct "$KIT_DIR/start-ssh.sh" cleanup >"$TEST_TMP/c.out" 2>&1 &&
	cat "$TEST_TMP/c.out" &&
	! ct getent passwd sshperf &&
	test_eq "$(ct systemctl show -p LoadState --value "$UNIT")" not-found &&
	snapshot >"$TEST_TMP/after" && test_cmp "$TEST_TMP/before" "$TEST_TMP/after" &&
	ct bash -c "cd /etc/ssh && ls -d ssh_host_*_key*" >"$TEST_TMP/keys-after" &&
	test_cmp "$TEST_TMP/real-keys" "$TEST_TMP/keys-after" &&
	real_sshd_sums >"$TEST_TMP/sums-after" && test_cmp "$TEST_TMP/real-sums" "$TEST_TMP/sums-after" &&
	test_eq "$(ssh_main_pid)" "$main_pid" && container_ssh true
'

test_expect 'nothing of the kit runs any more' '
	{ waits_for 60 no_leftovers || true; } &&
	test_cmp /dev/null "$TEST_TMP/left" &&
	ct bash -c ". \"$TEST_DIR/lib/snapshot.sh\" && kit_processes" >"$TEST_TMP/kp" &&
	test_cmp /dev/null "$TEST_TMP/kp"
'

test_expect 'without the throwaway account the container is as it was at boot' '
	ct loginctl terminate-user "$OTHER" 2>/dev/null || true
	waits_for 60 eval "! ct pgrep -u \"$OTHER\" >/dev/null" &&
	ct userdel --remove "$OTHER" &&
	snapshot >"$TEST_TMP/after-other" &&
	test_cmp "$TEST_TMP/before-other" "$TEST_TMP/after-other" &&
	test_eq "$(ssh_main_pid)" "$main_pid" && container_ssh true
'

test_done
