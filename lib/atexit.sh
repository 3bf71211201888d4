# shellcheck shell=bash
# One cleanup path per process: `at_exit CMD` registers what to undo, and
# the process that owns the list runs every registered command, newest
# first, at least once, however it ends (its last line, exit, die, INT or
# TERM): a command that a signal interrupts runs again at the exit, so
# every command must be safe to repeat (at_exit_pop). Owners: the main shell of test-ssh.sh, start-ssh.sh,
# lib/bin/fleet.sh and lib/bin/results-json.sh, and each test job of test-ssh.sh
# (run_measure), which starts its own, empty list.
#
#   at_exit_owner    this process owns a new, empty list, run at its exit
#   at_exit_signals  INT and TERM end it through exit (130, 143), so the
#                    list runs then too
#   at_exit CMD [ARG ...]
#                    run CMD with these arguments (their values now) at
#                    the exit, before every command registered earlier
#   at_exit_pop      the newest command runs now (its work is done) and
#                    leaves the list
#   at_exit_drop     the newest command leaves the list without running
#   at_exit_signal_status N
#                    a signal that comes while the list runs at the exit
#                    makes the status N when it was 0 (without it, the
#                    status stays: the work was done)
#
# A command must not call exit. It finds the exit status in
# AT_EXIT_STATUS and may change it there.
#
# Every process forked from the owner carries a copy of the list and of
# the EXIT trap: a subshell, a command substitution, and a background
# command for the moment between its fork and the exec of its program.
# bash runs the EXIT trap in such a copy when a signal ends it in that
# moment (a TERM to test-ssh.sh's poll tick removed the run's temporary
# folder that way), so the list runs only in the process that owns it.

AT_EXIT_OWNER=""
AT_EXIT_STATUS=0
AT_EXIT_LIST=()
AT_EXIT_SIGNAL_STATUS=""

at_exit_owner () {
	AT_EXIT_OWNER=$BASHPID
	AT_EXIT_LIST=()
	trap at_exit_run EXIT
}

at_exit_signals () {
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

at_exit_signal_status () {
	AT_EXIT_SIGNAL_STATUS=$1
}

at_exit () {
	local words
	printf -v words '%q ' "$@"
	AT_EXIT_LIST+=("$words")
}

# The command runs before it leaves the list: a signal while it runs makes
# the exit run it again (the commands are safe to repeat), never not at all.
at_exit_pop () {
	local n=${#AT_EXIT_LIST[@]} rc=0
	[ "$n" -gt 0 ] || return 0
	eval "${AT_EXIT_LIST[n - 1]}" || rc=$?
	unset 'AT_EXIT_LIST[n - 1]'
	return "$rc"
}

at_exit_drop () {
	local n=${#AT_EXIT_LIST[@]}
	[ "$n" -eq 0 ] || unset 'AT_EXIT_LIST[n - 1]'
}

# The EXIT trap. Each command leaves the list before it runs, so none runs
# twice; a failing one does not stop the others. A signal meanwhile does
# not stop the list (at_exit_late, a function, which a child resets,
# where '' would be inherited). It changes the exit status only for an
# owner that promised a status to every signal (at_exit_signal_status):
# `start-ssh.sh stop` exits 130 when signalled, and t33 saw it exit 0
# when the TERM came after its stop, while the list ran. A start that
# was done keeps 0: its 143 means "interrupted, and undone".
at_exit_run () {
	AT_EXIT_STATUS=$?
	trap at_exit_late INT TERM
	local n cmd
	[ "$BASHPID" = "$AT_EXIT_OWNER" ] || return 0
	set +e
	n=${#AT_EXIT_LIST[@]}
	while [ "$n" -gt 0 ]; do
		cmd=${AT_EXIT_LIST[n - 1]}
		unset 'AT_EXIT_LIST[n - 1]'
		eval "$cmd"
		n=${#AT_EXIT_LIST[@]}
	done
	exit "$AT_EXIT_STATUS"
}

# at_exit_late: a signal came while the list ran: the promised status, if
# any, unless the status already says that something failed.
at_exit_late () {
	[ -n "$AT_EXIT_SIGNAL_STATUS" ] && [ "$AT_EXIT_STATUS" -eq 0 ] || return 0
	AT_EXIT_STATUS=$AT_EXIT_SIGNAL_STATUS
}
