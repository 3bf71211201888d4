# shellcheck shell=bash disable=SC2015,SC2016
# (SC2015: `A && B || continue` is meant; SC2016: backticks are markdown.)
# Comparing runs: which way is better for a metric, the change between two
# runs, the previous run on the same host, and the comparison report of
# `test-ssh.sh --compare A B`. Sourced by lib/render.sh, lib/results-json.sh
# and test-ssh.sh. Reads only the data files of the runs (RUN/data/*.env).

# The metrics, their order and directions: lib/metrics.tab.
# shellcheck source=lib/registry.sh
. "$KIT_DIR/lib/registry.sh"

# shellcheck source=lib/data.sh
. "$KIT_DIR/lib/data.sh"

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

# metric_direction RUN_DIR TEST -> "lower" or "higher" (which way is better).
# The test's own `direction` key wins; else its target_op ("<=": lower is
# better, ">=": higher); else the registry's (lib/metrics.tab).
metric_direction () {
	local env="$1/data/$2.env" d
	d=$(kv_get "$env" direction)
	case $d in lower | higher) printf '%s' "$d"; return ;; esac
	case $(kv_get "$env" target_op) in
	'<=') printf lower; return ;;
	'>=') printf higher; return ;;
	esac
	printf '%s' "${METRIC_DIRECTION[$2]:-lower}"
}

# is_number VALUE: a plain decimal number (what the tests write).
is_number () {
	printf '%s' "$1" | grep -Eqx -- '-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?'
}

# metric_change OLD NEW DIRECTION -> "-4.1 % (better)", "0.0 % (same)", or
# nothing when the two cannot be compared (a figure missing or OLD is 0).
metric_change () {
	is_number "$1" && is_number "$2" || return 0
	awk -v a="$1" -v b="$2" -v dir="$3" 'BEGIN {
		if (a + 0 == 0) exit
		pct = (b - a) / a * 100
		s = sprintf("%+.1f", pct)
		if (s == "+0.0" || s == "-0.0") { print "0.0 % (same)"; exit }
		better = (dir == "higher") ? (b > a) : (b < a)
		printf "%s %% (%s)\n", s, better ? "better" : "worse"
	}'
}

# is_measured STATUS: true when the test's figure was measured (PASS, FAIL,
# INCONCLUSIVE), so it can be compared.
is_measured () {
	case $1 in PASS | FAIL | INCONCLUSIVE) return 0 ;; *) return 1 ;; esac
}

# test_change OLD_RUN NEW_RUN TEST -> the change of TEST's main figure, or
# nothing when it cannot be compared (not measured in one of the runs, not
# PASS/FAIL/INCONCLUSIVE, or in a different unit). An INCONCLUSIVE figure
# was measured like any other; only its verdict could not be decided.
test_change () {
	local a="$1/data/$3.env" b="$2/data/$3.env" s
	[ -f "$a" ] && [ -f "$b" ] || return 0
	for s in "$(kv_get "$a" status)" "$(kv_get "$b" status)"; do
		case $s in PASS | FAIL | INCONCLUSIVE) ;; *) return 0 ;; esac
	done
	[ "$(kv_get "$a" unit)" = "$(kv_get "$b" unit)" ] || return 0
	metric_change "$(kv_get "$a" figure)" "$(kv_get "$b" figure)" "$(metric_direction "$2" "$3")"
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

# cmp_prefix RUN: the OPENSSH_PREFIX of a run, or "the system OpenSSH".
cmp_prefix () {
	local p
	p=$(kv_get "$1/data/environment.env" openssh_prefix)
	printf '%s' "${p:-the system OpenSSH}"
}

# config_differences A B: what differs in the test server's configuration
# between two runs (its effective sshd -T settings, SSHD_OPTIONS, where its
# configuration and its user came from), as a markdown list.
config_differences () {
	local ea="$1/data/environment.env" eb="$2/data/environment.env" k va vb n=0
	printf '## Configuration differences\n\n'
	for k in $( { sed -n 's/^\(sshd_[^=]*\)=.*/\1/p' "$ea" "$eb" 2>/dev/null | sort -u; } |
		cat <(printf '%s\n' server_config server_options test_user test_user_existing test_user_source pam_stack crypto_policy openssh_server) -); do
		va=$(kv_get "$ea" "$k")
		vb=$(kv_get "$eb" "$k")
		[ "$va" != "$vb" ] || continue
		n=$((n + 1))
		case $k in
		server_options) printf -- '- SSHD_OPTIONS: `%s` -> `%s`\n' "${va:-none}" "${vb:-none}" ;;
		sshd_*) printf -- '- `%s`: `%s` -> `%s`\n' "${k#sshd_}" "${va:--}" "${vb:--}" ;;
		*) printf -- '- %s: %s -> %s\n' "$k" "${va:--}" "${vb:--}" ;;
		esac
	done
	if [ "$n" -eq 0 ]; then
		printf 'None: both runs measured the same test server configuration (effective `sshd -T` settings, SSHD_OPTIONS, user).\n'
	fi
}

# compare_report A B: the comparison report (markdown) of two runs on stdout.
compare_report () {
	local a="$1" b="$2" name ea eb fa fb unit label change dir sa sb note
	local ba bb
	ba=$(kv_get "$a/data/environment.env" openssh_build)
	[ -n "$ba" ] || ba=$(kv_get "$a/data/environment.env" openssh_server)
	bb=$(kv_get "$b/data/environment.env" openssh_build)
	[ -n "$bb" ] || bb=$(kv_get "$b/data/environment.env" openssh_server)
	# Runs of two OpenSSH builds compare the builds as much as the
	# settings: the first line says so.
	if [ "$ba" != "$bb" ] || [ "$(kv_get "$a/data/environment.env" openssh_prefix)" != "$(kv_get "$b/data/environment.env" openssh_prefix)" ]; then
		printf '# Comparison of two sshd-perf-kit runs of different OpenSSH builds: %s (A) and %s (B)\n' "${ba:-unknown}" "${bb:-unknown}"
	else
		printf '# Comparison of two sshd-perf-kit runs\n'
	fi
	cat <<EOF

| | A (before) | B (after) |
|---|---|---|
| Run | \`$(basename "$a")\` | \`$(basename "$b")\` |
| Host | $(kv_get "$a/data/environment.env" host) | $(kv_get "$b/data/environment.env" host) |
| Tested | $(kv_get "$a/data/run.env" started_local) | $(kv_get "$b/data/run.env" started_local) |
| OpenSSH server | $(kv_get "$a/data/environment.env" openssh_server) | $(kv_get "$b/data/environment.env" openssh_server) |
| OpenSSH prefix | $(cmp_prefix "$a") | $(cmp_prefix "$b") |
| Verdict | $(kv_get "$a/data/verdict.env" verdict) | $(kv_get "$b/data/verdict.env" verdict) |

$(config_differences "$a" "$b")

Change = (B - A) / A of each metric's main figure; better or worse follows
the metric's direction (for times and CPU lower is better, for rates,
speeds and sessions higher is better).

| Metric | Figure | A | B | Change | Better is | Verdict A | Verdict B |
|---|---|---:|---:|---|---|---|---|
EOF
	for name in $METRICS; do
		ea="$a/data/$name.env"
		eb="$b/data/$name.env"
		[ -f "$ea" ] || [ -f "$eb" ] || continue
		fa=$(kv_get "$ea" figure)
		fb=$(kv_get "$eb" figure)
		unit=$(kv_get "$eb" unit)
		[ -n "$unit" ] || unit=$(kv_get "$ea" unit)
		label=$(kv_get "$eb" figure_label)
		[ -n "$label" ] || label=$(kv_get "$ea" figure_label)
		sa=$(kv_get "$ea" status)
		sb=$(kv_get "$eb" status)
		dir=$(metric_direction "$b" "$name")
		[ -f "$eb" ] || dir=$(metric_direction "$a" "$name")
		change=$(test_change "$a" "$b" "$name")
		note=""
		if [ -z "$change" ]; then
			if [ ! -f "$ea" ]; then note="not measured in A"
			elif [ ! -f "$eb" ]; then note="not measured in B"
			elif ! is_measured "$sa"; then note="not compared: ${sa:-no status} in A"
			elif ! is_measured "$sb"; then note="not compared: ${sb:-no status} in B"
			elif [ "$(kv_get "$ea" unit)" != "$(kv_get "$eb" unit)" ]; then note="different units"
			else note="-"
			fi
			change=$note
		fi
		printf '| `%s` | %s (%s) | %s | %s | %s | %s | %s | %s |\n' "$name" "${label:--}" "${unit:--}" \
			"${fa:--}" "${fb:--}" "$change" "$dir" "${sa:--}" "${sb:--}"
	done
	cat <<EOF

A change of a few percent is within the noise of one run, more so on a
machine that does other work; repeat both runs before acting on it. A
metric that was not PASS, FAIL or INCONCLUSIVE in both runs (skipped,
interrupted, no result), or whose unit differs between the runs, is not
compared.
EOF
}
