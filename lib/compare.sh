# shellcheck shell=bash disable=SC2015,SC2016
# (SC2015: `A && B || continue` is meant; SC2016: backticks are markdown.)
# Comparing runs: the runs themselves (the previous run on the same host,
# the build, prefix, load and configuration of each, whether two runs
# measured one setup), and the parts that source it: the metric's side
# (lib/compare/metric.sh), the decision as data (lib/compare/rules.sh,
# lib/compare/whose.sh), its words (lib/compare/words.sh) and the report
# of `test-ssh.sh --compare A B` (lib/compare/report.sh). Sourced by
# lib/bin/render.sh, lib/bin/results-json.sh, lib/bin/fleet.sh and test-ssh.sh. Reads
# only the data files of the runs (RUN/data/*.env) and their raw tables.

# The metrics, their order and directions: lib/metrics.tab.
# shellcheck source=lib/registry.sh
. "$KIT_DIR/lib/registry.sh"

# shellcheck source=lib/data.sh
. "$KIT_DIR/lib/data.sh"

# shellcheck source=lib/compare/metric.sh
. "$KIT_DIR/lib/compare/metric.sh"
# shellcheck source=lib/compare/rules.sh
. "$KIT_DIR/lib/compare/rules.sh"
# shellcheck source=lib/compare/whose.sh
. "$KIT_DIR/lib/compare/whose.sh"
# shellcheck source=lib/compare/words.sh
. "$KIT_DIR/lib/compare/words.sh"
# shellcheck source=lib/compare/report.sh
. "$KIT_DIR/lib/compare/report.sh"
# shellcheck source=lib/compare/distance.sh
. "$KIT_DIR/lib/compare/distance.sh"

# not_run_reason RUN_ENV: why the selected tests without a result did not
# run (runs before the key existed: interrupted=yes), or nothing.
not_run_reason () {
	local why
	why=$(kv_get "$1" not_run_reason)
	if [ -z "$why" ] && [ "$(kv_get "$1" interrupted)" = yes ]; then
		why="the run was interrupted before it"
	fi
	printf '%s' "$why"
}

# same_build A B: true when two runs measured the same OpenSSH build from
# the same prefix (compare_report's first line says so when not).
same_build () {
	[ "$(cmp_build "$1")" = "$(cmp_build "$2")" ] &&
		[ "$(kv_get "$1/data/environment.env" openssh_prefix)" = "$(kv_get "$2/data/environment.env" openssh_prefix)" ]
}

# same_setup A B: whether two runs measured one setup: the same OpenSSH
# build, prefix and client, and no configuration difference
# (config_difference_lines). Says "yes" or "no".
same_setup () {
	if same_build "$1" "$2" &&
		[ "$(kv_get "$1/data/environment.env" openssh_client)" = "$(kv_get "$2/data/environment.env" openssh_client)" ] &&
		[ -z "$(config_difference_lines "$1" "$2")" ]; then
		printf yes
	else
		printf no
	fi
}

# previous_run RUN_DIR -> the newest earlier run in the same results folder
# that was rendered (has results.json) on the same host; nothing if none.
# Run folders are named by date and time, so name order is time order.
previous_run () {
	local run parent name host d best=""
	run=$(cd "$1" && pwd)
	parent=$(dirname "$run")
	name=$(basename "$run")
	host=$(kv_get "$run/data/environment.env" host)
	[ -n "$host" ] || return 0
	for d in "$parent"/*/; do
		d=${d%/}
		[ -f "$d/results.json" ] && [ -f "$d/data/run.env" ] || continue
		# Earlier than this run (C collation: byte order).
		[[ "$(basename "$d")" < "$name" ]] || continue
		[ "$(kv_get "$d/data/environment.env" host)" = "$host" ] || continue
		best=$d
	done
	[ -z "$best" ] || printf '%s\n' "$best"
}

# cmp_build RUN: the OpenSSH build of a run as the comparison names it:
# its ssh -V, with what the build says of itself (openssh_origin: Red
# Hat's 8.7p1 and upstream's print the same version) or its package.
cmp_build () {
	local e="$1/data/environment.env" b o k
	b=$(kv_get "$e" openssh_build)
	[ -n "$b" ] || b=$(kv_get "$e" openssh_server)
	o=$(kv_get "$e" openssh_origin) k=$(kv_get "$e" openssh_package)
	case $k in '' | none) k="" ;; esac
	b=${b:-unknown}
	if [ -n "$o" ]; then
		printf '%s (%s)' "$b" "$o"
	elif [ -n "$k" ]; then
		printf '%s (package %s)' "$b" "$k"
	else
		printf '%s' "$b"
	fi
}

# cmp_prefix RUN: the OPENSSH_PREFIX of a run, or "the system OpenSSH".
cmp_prefix () {
	local p
	p=$(kv_get "$1/data/environment.env" openssh_prefix)
	printf '%s' "${p:-the system OpenSSH}"
}

# cmp_load RUN: the 1-minute load average when the run started and ended
# ("1.54, 11.41"): a significant change between runs of which one had
# the machine busy may be the machine's, not the setting's.
cmp_load () {
	local b e
	b=$(kv_get "$1/data/run.env" load_before)
	e=$(kv_get "$1/data/run.env" load_after)
	printf '%s, %s' "${b%% *}" "${e%% *}"
}

# config_difference_lines A B: what differs in the test server's
# configuration between two runs (its effective sshd -T settings,
# SSHD_OPTIONS, where its configuration and its user came from), one
# markdown list item each; nothing when they are the same.
config_difference_lines () {
	local ea="$1/data/environment.env" eb="$2/data/environment.env" k va vb
	for k in $( { sed -n 's/^\(sshd_[^=]*\)=.*/\1/p' "$ea" "$eb" 2>/dev/null | sort -u; } |
		cat <(printf '%s\n' server_config server_options test_user test_user_existing test_user_source pam_stack crypto_policy openssh_server) -); do
		va=$(kv_get "$ea" "$k")
		vb=$(kv_get "$eb" "$k")
		[ "$va" != "$vb" ] || continue
		case $k in
		server_options) printf -- '- SSHD_OPTIONS: `%s` -> `%s`\n' "${va:-none}" "${vb:-none}" ;;
		sshd_*) printf -- '- `%s`: `%s` -> `%s`\n' "${k#sshd_}" "${va:--}" "${vb:--}" ;;
		*) printf -- '- %s: %s -> %s\n' "$k" "${va:--}" "${vb:--}" ;;
		esac
	done
}

