#!/usr/bin/env bash
# lib/atexit.sh, the one cleanup path of the scripts and of each test job:
# the registered commands run newest first, once, whatever ends the owner
# (its end, exit, INT, TERM), and never in a process forked from it. The
# last test is the vanished run folder: a background command that gets
# SIGTERM between its fork and its exec. Needs no root.
. "$(dirname "$0")/lib/harness.sh"

# owner BODY: a script that owns a list and runs BODY; its output in out.
owner () {
	cat >"$TEST_TMP/owner.sh" <<-EOF
	set -eu
	. "$KIT_DIR/lib/atexit.sh"
	at_exit_owner
	at_exit_signals
	$1
	EOF
	rc=0
	bash "$TEST_TMP/owner.sh" >"$TEST_TMP/out" 2>&1 || rc=$?
}

test_expect 'at its end: newest first, each once, the status kept' '
	owner "at_exit echo first; at_exit echo \"second one\"; echo body; false" &&
	printf "body\nsecond one\nfirst\n" >expect && test_cmp expect out && [ "$rc" -eq 1 ]
'

test_expect 'exit N keeps N; a command may change the status; a failing one stops none' '
	owner "at_exit echo first; at_exit false; exit 4" &&
	echo first >expect && test_cmp expect out && [ "$rc" -eq 4 ] &&
	owner "at_exit echo kept; at_exit eval AT_EXIT_STATUS=1; exit 2" &&
	echo kept >expect && test_cmp expect out && [ "$rc" -eq 1 ]
'

test_expect 'TERM ends it through the list with 143, INT with 130' '
	owner "at_exit echo cleaned; kill -TERM \$BASHPID; sleep 60 & wait \$!" &&
	echo cleaned >expect && test_cmp expect out && [ "$rc" -eq 143 ] &&
	owner "at_exit echo cleaned; kill -INT \$BASHPID; sleep 60 & wait \$!" &&
	test_cmp expect out && [ "$rc" -eq 130 ]
'

# A signal that comes while the list runs at the exit (the work is over):
# the list goes on; an owner that promised a status to every signal
# (start-ssh.sh stop: 130) exits with it, where it would exit 0 as if
# never signalled; other owners keep their status.
test_expect 'a TERM while the list runs: the list goes on; 0 stays 0, or becomes the promised 130; a failure stays' '
	owner "at_exit echo last; at_exit echo after; at_exit kill -TERM \$BASHPID; echo body" &&
	printf "body\nafter\nlast\n" >expect && test_cmp expect out && test_eq "$rc" 0 &&
	owner "at_exit_signal_status 130; at_exit echo after; at_exit kill -TERM \$BASHPID" &&
	echo after >expect && test_cmp expect out && test_eq "$rc" 130 &&
	owner "at_exit_signal_status 130; at_exit echo after; at_exit kill -INT \$BASHPID; exit 3" &&
	test_cmp expect out && test_eq "$rc" 3
'

test_expect 'at_exit_pop runs the newest now and not again; at_exit_drop never' '
	owner "at_exit echo a; at_exit echo b; at_exit_pop; echo body; at_exit echo c; at_exit_drop" &&
	printf "b\nbody\na\n" >expect && test_cmp expect out && [ "$rc" -eq 0 ]
'

test_expect 'arguments keep their value at registration, spaces and quotes included' '
	owner "f=\"a b'\''c\"; at_exit printf \"<%s>\\n\" \"\$f\" x; f=changed" &&
	printf "<a b'\''c>\n<x>\n" >expect && test_cmp expect out
'

test_expect 'a subshell, a command substitution, a job with its own list: none runs the owner'\''s' '
	owner "at_exit echo owner; ( at_exit_run ); x=\$(at_exit_run); ( at_exit_owner; at_exit echo job ) & wait \$!" &&
	printf "job\nowner\n" >expect && test_cmp expect out
'

# The vanished run folder, as test-ssh.sh's tick met it: strace holds the
# forked child 0.3 s in its first system call (glibc's set_robust_list
# after fork, while bash still blocks signals), so the TERM mostly
# reaches the copy of the script before it restores the default handlers
# and execs sleep. bash then runs the script's EXIT trap in that copy:
# with a plain trap (tick trap) that removes the folder; with lib/atexit.sh
# (tick atexit) nothing. Prints "kept" or "removed".
# "Mostly": strace's delay does not always hold (runs of the whole script
# in 0.06 s were seen), and then the TERM can miss the window: 1 plain
# trap in 40 kept its folder on an idle machine. So the plain trap only
# has to show the hazard once in TICK_TRIES tries; lib/atexit.sh has to
# keep the folder in every one of as many.
tick () {
	cat >"$TEST_TMP/tick.sh" <<-EOF
	set -eu
	. "$KIT_DIR/lib/atexit.sh"
	dir=\$(mktemp -d "$TEST_TMP/run.XXXXXX")
	case $1 in
	trap) trap 'rm -rf "\$dir"' EXIT ;;
	atexit) at_exit_owner; at_exit rm -rf -- "\$dir" ;;
	esac
	sleep 0.5 &
	kill -TERM \$!
	wait \$! || true
	[ -d "\$dir" ] && echo kept || echo removed
	rm -rf "\$dir"
	EOF
	strace -f -qq -o /dev/null -e trace=none -e inject=set_robust_list:delay_exit=300000 \
		bash "$TEST_TMP/tick.sh" 2>/dev/null
}

if command -v strace >/dev/null && strace -f -qq -o /dev/null -e trace=none \
	-e inject=set_robust_list:delay_exit=1 true 2>/dev/null; then
	# shellcheck disable=SC2034 # used in the test body
	TICK_TRIES=6
	test_expect 'a TERM to a background command before its exec: a plain EXIT trap runs in it, the list does not' '
		seen="" &&
		for i in $(seq 1 "$TICK_TRIES"); do
			r=$(tick trap) && seen="$seen $r" && [ "$r" != removed ] || break
		done &&
		case $seen in *removed) ;; *) echo "plain trap, $TICK_TRIES tries:$seen (the window was never hit)"; false ;; esac &&
		seen="" &&
		for i in $(seq 1 "$TICK_TRIES"); do
			r=$(tick atexit); seen="$seen ${r:-nothing}"
			[ "$r" = kept ] || { echo "lib/atexit.sh, try $i of $TICK_TRIES:$seen"; false; } || return 1
		done
	'
else
	test_skip 'a TERM to a background command before its exec' 'needs strace with -e inject (delay_exit)'
fi

test_done
