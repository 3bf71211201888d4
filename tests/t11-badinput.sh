#!/usr/bin/env bash
# Bad input: each case gives one clear line, exit 2, and leaves the host
# exactly as it was.
. "$(dirname "$0")/lib/harness.sh"
. "$TEST_DIR/lib/snapshot.sh"
. "$TEST_DIR/lib/procs.sh"

host_kit_test 'bad input'
test_atexit '"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null 2>&1'

host_snapshot_save

# refused EXPECTED_TEXT CMD...: exit 2, one line on stderr with the text,
# nothing on the host changed.
refused () {
	local text=$1 rc=0
	shift
	"$@" >"$TEST_TMP/o" 2>"$TEST_TMP/e" || rc=$?
	[ "$rc" -eq 2 ] || { echo "exit $rc from: $*"; cat "$TEST_TMP/o" "$TEST_TMP/e"; return 1; }
	[ "$(wc -l <"$TEST_TMP/e")" -eq 1 ] || { echo "not one line:"; cat "$TEST_TMP/e"; return 1; }
	test_grep -- "$text" "$TEST_TMP/e" &&
	host_unchanged &&
	[ ! -e "$LOCK_FILE" ]
}

test_expect 'not root' '
	chmod o+rx "$TEST_TMP" &&
	refused "must run as root" setpriv --reuid=65534 --regid=65534 --clear-groups "$KIT_DIR/start-ssh.sh" &&
	refused "must run as root" setpriv --reuid=65534 --regid=65534 --clear-groups "$KIT_DIR/test-ssh.sh"
'

test_expect 'a bad value of each kind of setting' '
	refused "LOGIN_SAMPLES" env LOGIN_SAMPLES=many "$KIT_DIR/start-ssh.sh" &&
	refused "TEST_PORT" env TEST_PORT=80 "$KIT_DIR/start-ssh.sh" &&
	refused "TEST_PORT" env TEST_PORT=70000 "$KIT_DIR/start-ssh.sh" &&
	refused "MAX_STARTUPS" env MAX_STARTUPS=10:30 "$KIT_DIR/start-ssh.sh" &&
	refused "MAX_STARTUPS" env MAX_STARTUPS=a:b:c "$KIT_DIR/start-ssh.sh" &&
	refused "TEST_USER" env TEST_USER=root "$KIT_DIR/start-ssh.sh" &&
	refused "BURST_STEPS" env BURST_STEPS="10 5" "$KIT_DIR/start-ssh.sh" &&
	refused "ECHO_CLIENT" env ECHO_CLIENT=putty "$KIT_DIR/start-ssh.sh" &&
	refused "DURATION" env DURATION= "$KIT_DIR/start-ssh.sh" &&
	refused "TARGET_RATE_MIN" env TARGET_RATE_MIN=-5 "$KIT_DIR/test-ssh.sh" login &&
	refused "KIT_INSTANCE" env KIT_INSTANCE=Bad "$KIT_DIR/start-ssh.sh" &&
	refused "KIT_INSTANCE" env KIT_INSTANCE=a/b "$KIT_DIR/start-ssh.sh" cleanup &&
	refused "KIT_INSTANCE" env KIT_INSTANCE=abcdefghijklmnopq "$KIT_DIR/test-ssh.sh" login
'

test_expect 'a settings file with a line that is not NAME=value' '
	{ cat "$KIT_DIR/settings.conf"; echo "this is wrong"; } >"$TEST_TMP/bad.conf" &&
	refused "is not NAME=value" env SETTINGS_FILE="$TEST_TMP/bad.conf" "$KIT_DIR/start-ssh.sh"
'

test_expect 'a port already in use' '
	port=$(perl -MIO::Socket::INET -e "print 20000 + \$\$ % 20000") &&
	{ perl -MIO::Socket::INET -e "\$s = IO::Socket::INET->new(LocalAddr => q(127.0.0.1), LocalPort => $port, Listen => 1, ReuseAddr => 1) or die; sleep 60" & } &&
	listener=$! && test_when_finished "kill $listener 2>/dev/null || :" &&
	waits_for 60 grep -q ":$(printf %04X "$port") 00000000:0000 0A" /proc/net/tcp &&
	host_snapshot_save &&
	refused "in use by another program" env TEST_PORT="$port" "$KIT_DIR/start-ssh.sh" &&
	kill "$listener" && { wait "$listener" 2>/dev/null || :; } &&
	host_snapshot_save
'

# The stranger is named after the instance's user, so that a host
# snapshot of another lane of tests/run.sh leaves it out.
export STRANGER=${TEST_USER}x
test_expect 'an existing user the kit did not create is never taken over' '
	useradd -M "$STRANGER" && test_when_finished "userdel -r \"\$STRANGER\" >/dev/null 2>&1 || :" &&
	host_snapshot_save &&
	refused "was not created by sshd-perf-kit" env TEST_USER="$STRANGER" "$KIT_DIR/start-ssh.sh" &&
	getent passwd "$STRANGER" && userdel "$STRANGER" && host_snapshot_save
'

# without PROGRAM... -- CMD...: CMD in a mount namespace of its own where
# each PROGRAM (found in the kit's fixed PATH) is covered by /dev/null,
# which is not executable; the host's files and mounts are not touched.
without () {
	local mounts="" p
	while [ "$1" != -- ]; do
		p=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v "$1") &&
			mounts="$mounts mount --bind /dev/null $p &&"
		shift
	done
	shift
	unshare -m --propagation private sh -c "$mounts exec \"\$@\"" sh "$@"
}

test_expect 'sshd or the ssh clients missing: the package to install' '
	refused "sshd not found; install it: dnf install openssh-server" \
		without sshd -- "$KIT_DIR/start-ssh.sh" &&
	refused "ssh, sftp or ssh-keygen not found; install them: dnf install openssh-clients" \
		without ssh sftp -- "$KIT_DIR/start-ssh.sh" &&
	refused "sshd not found" without sshd -- "$KIT_DIR/test-ssh.sh" login &&
	[ -x /usr/sbin/sshd ] && [ -x "$(command -v ssh)" ]
'

test_expect 'helpers missing or not executable in an installed kit (no Makefile)' '
	mkdir "$TEST_TMP/kit" &&
	(cd "$KIT_DIR" && cp -a start-ssh.sh test-ssh.sh settings.conf lib templates units selinux "$TEST_TMP/kit/") &&
	refused "helpers missing or not executable in $TEST_TMP/kit/build; reinstall the package" "$TEST_TMP/kit/start-ssh.sh" &&
	cp -a "$KIT_DIR/build" "$TEST_TMP/kit/build" && chmod a-x "$TEST_TMP/kit/build/sshperf-connect" &&
	refused "helpers missing or not executable" "$TEST_TMP/kit/start-ssh.sh" &&
	refused "helpers missing or not executable" "$TEST_TMP/kit/test-ssh.sh" login
'

test_expect 'test-ssh.sh before start-ssh.sh' '
	refused "run ./start-ssh.sh first" "$KIT_DIR/test-ssh.sh" login
'

test_expect 'an unknown test name lists the valid ones' '
	refused "valid tests: .*login" "$KIT_DIR/test-ssh.sh" nosuchtest
'

test_expect 'an unknown command or option' '
	refused "valid commands: start, status, stop, cleanup" "$KIT_DIR/start-ssh.sh" restart &&
	refused "unknown option" "$KIT_DIR/start-ssh.sh" --frobnicate &&
	refused "unknown option" "$KIT_DIR/test-ssh.sh" --frobnicate
'

test_expect 'a RESULTS_DIR whose parent does not exist, or on a read-only file system' '
	"$KIT_DIR/start-ssh.sh" -q && host_snapshot_save running &&
	rc=0; RESULTS_DIR=/nonexistent/x/results "$KIT_DIR/test-ssh.sh" login 2>"$TEST_TMP/e" || rc=$? &&
	[ "$rc" -eq 2 ] && test_grep "RESULTS_DIR=/nonexistent/x/results: its parent folder does not exist" "$TEST_TMP/e" &&
	[ "$(wc -l <"$TEST_TMP/e")" -eq 1 ] &&
	mkdir "$TEST_TMP/ro" && mount -t tmpfs -o ro,size=1m t11-ro "$TEST_TMP/ro" &&
	test_when_finished "umount \"$TEST_TMP/ro\" 2>/dev/null || :" &&
	rc=0; RESULTS_DIR="$TEST_TMP/ro" "$KIT_DIR/test-ssh.sh" login 2>"$TEST_TMP/e" || rc=$?
	umount "$TEST_TMP/ro" &&
	[ "$rc" -eq 2 ] && test_grep "RESULTS_DIR=$TEST_TMP/ro is not writable; set RESULTS_DIR to a writable folder" "$TEST_TMP/e" &&
	[ "$(wc -l <"$TEST_TMP/e")" -eq 1 ] &&
	"$KIT_DIR/start-ssh.sh" -q cleanup && host_unchanged
'

# Needs the running server (its sshd -T); refused before the lock and the
# run folder, so nothing of a run is left either.
test_expect 'TRANSFER_CIPHERS: an unknown name, and one the client knows but the server refuses' '
	"$KIT_DIR/start-ssh.sh" -q && host_snapshot_save running &&
	mkdir "$TEST_TMP/res" &&
	for c in rot13 aes128-cbc "aes128-ctr rot13"; do
		rc=0; TRANSFER_CIPHERS="$c" RESULTS_DIR="$TEST_TMP/res" "$KIT_DIR/test-ssh.sh" transfer >"$TEST_TMP/o" 2>"$TEST_TMP/e" || rc=$?
		cat "$TEST_TMP/e"
		[ "$rc" -eq 2 ] && [ "$(wc -l <"$TEST_TMP/e")" -eq 1 ] && [ ! -s "$TEST_TMP/o" ] || return 1
	done &&
	test_grep "^test-ssh.sh: setting TRANSFER_CIPHERS=\"aes128-ctr rot13\" names ciphers the transfer test cannot use: rot13 unknown to this ssh (not in ssh -Q cipher); usable here: .*aes128-ctr" "$TEST_TMP/e" &&
	{ TRANSFER_CIPHERS=aes128-cbc RESULTS_DIR="$TEST_TMP/res" "$KIT_DIR/test-ssh.sh" transfer >"$TEST_TMP/cbc" 2>&1 || true; } &&
	test_grep "aes128-cbc not allowed by the test server" "$TEST_TMP/cbc" &&
	[ -z "$(ls -A "$TEST_TMP/res")" ] &&
	host_unchanged running &&
	"$KIT_DIR/start-ssh.sh" -q cleanup && host_unchanged
'

test_done
