# shellcheck shell=bash
# A delay a test injects on purpose, on one side of a login: to check that
# the login timeline puts it on the right side (docs/metrics.md, "Whose
# time"), or that --compare finds it. One program for every side; each run
# of it is counted, so a test knows how often sshd or ssh ran it per login
# and so how much delay it added.
#
#   delay_fixture          makes DELAY_DIR, root's only, in /run (sshd runs
#                          an AuthorizedKeysCommand only from a path nobody
#                          else may write to; /tmp is not one), and builds
#                          the program DELAY_PROGRAM in it from delay.c
#                          (CC, default cc; returns 1 when that fails);
#                          removed when the test file ends (test_atexit).
#                          Sets DELAY_SSHD_OPTIONS.
#   delay_fixture_or_stop  the same in a test file's own shell; when the
#                          program does not build, the file ends with one
#                          failing check that shows why (every later
#                          check would fail for that one reason)
#   delay_set SIDE MS [EVERY]
#                          from now on each run of the program for SIDE (a
#                          word: server, client) sleeps MS ms; 0: none.
#                          With EVERY, only every EVERY-th run sleeps, the
#                          first one included: EVERY=2 for the server's
#                          two checks of a key makes one delay per login
#                          while the runs keep that pairing. EVERY=once:
#                          the first run from each calling process sleeps
#                          (sshd's process of one connection: one delay
#                          per login, whatever the count; make stability
#                          saw EVERY=2 sleep twice in most logins of a run)
#   delay_runs SIDE        how often the program ran for SIDE so far
#   delay_spent SIDE       the ms it spent so far for SIDE, from its start
#                          to the end of its sleep (what it really held its
#                          caller up, sleep's own start and wake-up included)
#
#   DELAY_PROGRAM SIDE [FILE]
#                          counts the run, sleeps SIDE's delay, then prints
#                          FILE (the keys an AuthorizedKeysCommand answers)
#   DELAY_PROGRAM SIDE -- CMD [ARG...]
#                          counts, sleeps, then runs CMD in its place: a
#                          client whose first packet leaves that much later
#   DELAY_SSHD_OPTIONS     SSHD_OPTIONS lines: sshd runs the program (side
#                          server) for every public key it checks, twice a
#                          login with ssh (the key's query, then its
#                          signature), and it answers the kit's own
#                          authorized_keys; the user's file is not read.
#                          With the delay 0 the login is as before, but for
#                          one short program run per check.
# Needs CLIENT_DIR (lib/names.sh, host_kit_test) for DELAY_SSHD_OPTIONS.

delay_fixture () {
	local src="${BASH_SOURCE[0]%/*}/delay.c"
	DELAY_DIR=$(mktemp -d /run/sshperf-delay.XXXXXX)
	test_atexit "rm -rf '$DELAY_DIR'"
	DELAY_PROGRAM=$DELAY_DIR/delay
	${CC:-cc} -std=c11 -O2 -Wall -Wextra -Werror -DDELAY_DIR="\"$DELAY_DIR\"" \
		-o "$DELAY_PROGRAM" "$src" || {
		echo "delay_fixture: cannot build $src with ${CC:-cc}" >&2
		return 1
	}
	chmod 0755 "$DELAY_PROGRAM"
	DELAY_SSHD_OPTIONS="AuthorizedKeysFile none; AuthorizedKeysCommand $DELAY_PROGRAM server ${CLIENT_DIR:?}/authorized_keys; AuthorizedKeysCommandUser root"
	export DELAY_DIR DELAY_PROGRAM DELAY_SSHD_OPTIONS
}

delay_fixture_or_stop () {
	delay_fixture 2>"$TEST_TMP/delay-fixture.err" && return 0
	test_expect 'the delay program builds' 'cat "$TEST_TMP/delay-fixture.err"; false'
	test_done
	exit
}

delay_set () {
	rm -rf "$DELAY_DIR/once-$1-"*
	printf '%s\n' "${3:-1}" >"$DELAY_DIR/every-$1"
	printf '%s\n' "$2" >"$DELAY_DIR/ms-$1"
}

delay_spent () {
	if [ -f "$DELAY_DIR/runs-$1" ]; then
		awk '{ t += $2 - $1 } END { printf "%.3f\n", t / 1e6 }' "$DELAY_DIR/runs-$1"
	else
		echo 0
	fi
}

delay_runs () {
	if [ -f "$DELAY_DIR/runs-$1" ]; then
		wc -l <"$DELAY_DIR/runs-$1" | tr -d ' '
	else
		echo 0
	fi
}
