#!/usr/bin/env bash
# render.sh RUN_DIR [PREVIOUS_RUN_DIR]: writes RUN_DIR/report.md (and its
# HTML twin report.html, lib/bin/report-html.sh), the charts
# (RUN_DIR/charts/*.svg) and RUN_DIR/results.json from the data files the
# tests left in RUN_DIR/data (key=value) and RUN_DIR/raw. With a previous
# run (same host, lib/compare.sh previous_run), the summary shows the change
# against it. The only place that writes the report; the tests never write
# markdown.
# shellcheck disable=SC2016 # backticks in the strings are markdown
set -eu
KIT_DIR=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
RUN_DIR=${1:?usage: render.sh RUN_DIR [PREVIOUS_RUN_DIR]}
PREV_DIR=${2:-}
DATA_DIR="$RUN_DIR/data"
REPORT="$RUN_DIR/report.md"
# shellcheck source=lib/compare.sh
. "$KIT_DIR/lib/compare.sh"
# shellcheck source=lib/charts.sh
. "$KIT_DIR/lib/charts.sh"
if [ -n "$PREV_DIR" ] && [ ! -f "$PREV_DIR/data/run.env" ]; then
	printf 'render.sh: %s is not a run folder; no comparison\n' "$PREV_DIR" >&2
	PREV_DIR=""
fi

# get FILE KEY: the value of KEY in a key=value file (last one wins).
# The run is finished: its files are read once (lib/data.sh), here in the
# main shell, so that every $(...) below finds them.
get () {
	kv_cached "$1" "$2"
}
kv_load_run "$RUN_DIR" ${PREV_DIR:+"$PREV_DIR"}

# D[TEST|KEY]: the run's own data (data/TEST.env), from the cache just
# read. The sections look a key up hundreds of times: a lookup costs
# nothing, where each $(t TEST KEY) is a fork of this shell (about 600 of
# them in a full report, a third of its time on a 2-core machine).
declare -A D=()
for k_ in "${!KV_CACHE[@]}"; do
	case $k_ in
	"$DATA_DIR"/*.env\|*) f_=${k_%%|*}; f_=${f_##*/}; D["${f_%.env}|${k_#*|}"]=${KV_CACHE[$k_]} ;;
	esac
done
unset k_ f_

# t TEST KEY: a key of a test's data file.
t () {
	get "$DATA_DIR/$1.env" "$2"
}

# compared TEST OTHER KEY: a key of another test's data, for TEST's section
# to show next to its own figure; only for an OTHER the registry lists in
# TEST's `compares` column (lib/metrics.tab), so no section reads another
# test's data unseen. Nothing when OTHER did not run.
compared () {
	case ",${METRIC_COMPARES[$1]:-}," in
	*",$2,"*) t "$2" "$3" ;;
	*) printf 'render.sh: the section of %s reads %s, which lib/metrics.tab does not list in its compares column\n' "$1" "$2" >&2
		return 1 ;;
	esac
}

# ms VALUE: a time for a table, in the digits of ms (fig, lib/units.sh;
# "-" when missing).
ms () {
	local f
	fig f ms "$1"
	printf '%s' "$f"
}

# ms_to VAR VALUE, n_note_to VAR N PERCENTILE: ms and n_note into VAR,
# for the cells of a table row (cell_1, cell_2, ...), set before its
# printf: a "$(ms ...)" per cell is a fork of the renderer's shell.
ms_to () {
	fig "$1" ms "$2"
}

n_note_to () {
	local n=$2
	printf -v "$1" ''
	case $n in '' | *[!0-9]*) n=0 ;; esac
	case $3 in
	p95) [ "$n" -ge 20 ] || printf -v "$1" '*' ;;
	p99) [ "$n" -ge 100 ] || printf -v "$1" '*' ;;
	esac
}

# whose_label PART: the report's name for a whose-time part (docs/data.md:
# server, client, tcp_wait, rest), the same in every section.
whose_label () {
	case $1 in
	server) printf '%s' "sshd's turns" ;;
	client) printf '%s' "the client's turns (\`ssh\`)" ;;
	tcp_wait) printf '%s' "TCP waits (Nagle, delayed ACK)" ;;
	rest) printf '%s' "the rest (no packet shows whose)" ;;
	esac
}

# whose_notes TEST PREFIX NAME: under a whose-time table, on how many
# logins its parts rest when a later stage was not split (PREFIX_whose_note),
# and the logins whose parts do not add up (PREFIX_whose_mismatched,
# raw/NAME-whose.tsv).
whose_notes () {
	local note n
	note=${D[$1|${2:+$2_}whose_note]-}
	n=${D[$1|${2:+$2_}whose_mismatched]-}
	[ -z "$note" ] || printf '\n%s%s.\n' "${2:+$2: }" "$(printf '%s' "$note" | sed 's/^t/T/')"
	[ -z "$n" ] || [ "$n" = 0 ] ||
		printf '\nThe parts of %s login(s)%s miss the login'"'"'s total by more than 2 %%: their packets were not all seen; `raw/%s-whose.tsv` has each login'"'"'s parts.\n' \
			"$n" "${2:+ ($2)}" "$3"
}

# whose_rows TEST: the four rows of a whose-time table, one per part
# (whose_label): its p50 over the whole login, then in the key exchange,
# the authentication and the session, from TEST's data.
whose_rows () {
	local cell_1 cell_2 cell_3 cell_4
	local part
	for part in server client tcp_wait rest; do
		ms_to cell_1 "${D[$1|${part}_p50]-}"
		ms_to cell_2 "${D[$1|kex_${part}_p50]-}"
		ms_to cell_3 "${D[$1|auth_${part}_p50]-}"
		ms_to cell_4 "${D[$1|session_${part}_p50]-}"
		printf '| %s | %s | %s | %s | %s |\n' "$(whose_label "$part")" "$cell_1" \
			"$cell_2" "$cell_3" "$cell_4"
	done
}

# INTERVAL_BOUNDS[TEST]: "LO<TAB>HI", the bounds of every test's interval
# with the digits of its figure (figure_fig, lib/report/units.sh), "?"
# for a missing one.
declare -A INTERVAL_BOUNDS=()
interval_bounds_load () {
	local name lo hi u lo_t hi_t
	for name in $METRICS; do
		lo=${D[$name|figure_lo]-} hi=${D[$name|figure_hi]-} u=${D[$name|unit]-}
		# A model's bounds are counts of the unit; a measured interval
		# rounds its bounds as it rounds its figure.
		if [ "${D[$name|figure_method]-}" = model ]; then
			fig lo_t "$u" "$lo"
			fig hi_t "$u" "$hi"
		else
			fig lo_t "$u" "$lo" "$lo" "$hi"
			fig hi_t "$u" "$hi" "$lo" "$hi"
		fi
		[ "$lo_t" != - ] || lo_t="?"
		[ "$hi_t" != - ] || hi_t="?"
		INTERVAL_BOUNDS[$name]=$lo_t$'\t'$hi_t
	done
}

# interval_text VAR TEST: VAR gets the figure's 95 % interval for the
# summary, compact: "[229.1-251.0, n=30]", "[229.1-?, n=30]" without an
# upper bound, "(the MaxStartups model expects 10; this result 98.3 %
# likely)" for a model; nothing without one. Needs interval_bounds_load.
interval_text () {
	local lo hi n m
	lo=${D[$2|figure_lo]-} hi=${D[$2|figure_hi]-} n=${D[$2|figure_n]-} m=${D[$2|figure_method]-}
	printf -v "$1" ''
	{ [ -n "$lo" ] && [ "$lo" != - ]; } || { [ -n "$hi" ] && [ "$hi" != - ]; } || return 0
	lo=${INTERVAL_BOUNDS[$2]%%$'\t'*} hi=${INTERVAL_BOUNDS[$2]#*$'\t'}
	if [ "$m" = model ]; then
		# What a model expects is no measured interval: said in words,
		# never in the brackets of one (issue 46, case 14).
		local range=$lo-$hi pct
		[ "$lo" != "$hi" ] || range=$lo
		pct=${D[$2|figure_probability]-}
		case $pct in '' | - | *[!0-9.e+-]*) pct="" ;; *) fig pct % "$(awk -v p="$pct" 'BEGIN { print p * 100 }')" ;; esac
		printf -v "$1" ' (the MaxStartups model expects %s%s)' "$range" "${pct:+; this result $pct % likely}"
	else
		printf -v "$1" ' [%s-%s, n=%s]' "$lo" "$hi" "${n:-0}"
	fi
}

# interval_sentence TEST: the section's line on how sure the figure is.
interval_sentence () {
	local m note stages it
	m=${D[$1|figure_method]-} note=${D[$1|figure_interval_note]-} stages=${D[$1|stages]-}
	[ -n "$m" ] || return 0
	case ${D[$1|figure]-} in '' | -) return 0 ;; esac
	figure_fig it "$1"
	printf '**Figure:** %s' "$it"
	interval_text it "$1"
	if [ -n "$it" ]; then
		case $m in
		order) printf ', 95 %% interval%s from order statistics of the samples' "$it" ;;
		model) printf '%s' "$it" ;;
		chunks) printf ', 95 %% interval%s from the parts of the copy (Student t)' "$it" ;;
		steps) printf ', bracket%s from the sweep'"'"'s steps' "$it" ;;
		*) printf ', 95 %% interval%s (%s)' "$it" "$m" ;;
		esac
	fi
	[ -z "$note" ] || printf '; %s' "$note"
	[ -z "$stages" ] || [ "$stages" -le 1 ] ||
		printf '; the interval held the target, so more samples were taken: %s stages, %s samples' "$stages" "${D[$1|samples_final]-}"
	# A repeated run: how its verdict was reached from the rounds.
	[ -z "${D[$1|verdict_from]-}" ] || printf '. The verdict: %s' "${D[$1|verdict_from]-}"
	printf '.\n\n'
}

# n_note N PERCENTILE: a marker when N samples are too few for it.
n_note () {
	local n=$1 p=$2
	case $n in '' | *[!0-9]*) n=0 ;; esac
	case $p in
	p95) [ "$n" -ge 20 ] || printf '*' ;;
	p99) [ "$n" -ge 100 ] || printf '*' ;;
	esac
}

# size_text BYTES: a size with its unit named: GiB or MiB when one divides
# it (1073741824: "1 GiB", 268435456: "256 MiB"), else MB of 10^6 bytes (a
# run made before the kit used binary sizes: 1024000000 is "1024 MB of
# 10^6 bytes"), else KiB ("4 KiB"), else KB of 10^3 bytes, else bytes; "-"
# when unknown.
size_text () {
	awk -v b="$1" 'BEGIN {
		if (b !~ /^[0-9]+$/) { print "-"; exit }
		if (b > 0 && b % 1073741824 == 0) printf "%d GiB\n", b / 1073741824
		else if (b > 0 && b % 1048576 == 0) printf "%d MiB\n", b / 1048576
		else if (b > 0 && b % 1000000 == 0) printf "%d MB of 10^6 bytes\n", b / 1000000
		else if (b > 0 && b % 1024 == 0) printf "%d KiB\n", b / 1024
		else if (b > 0 && b % 1000 == 0) printf "%d KB of 10^3 bytes\n", b / 1000
		else printf "%d bytes\n", b
	}'
}

# prose [ARG ...]: a section's text, from a here-doc on stdin, laid out the
# way markdown reads it: the lines of a paragraph are joined with one
# space, a line that starts a table row (`|`) or a list item (`- `) starts
# a line of its own, and a blank line stays one. The text is a printf
# format for the ARGs (%s, %.1f, %% for a percent sign). Quote the
# here-doc's word (<<-'EOF') so that backticks and $ stay as written.
# With -n the last line gets no line end: a sentence that the next printf
# goes on from.
prose () {
	local format="" end='\n' line open="" blank=$' \t'
	[ "${1:-}" != -n ] || { end=""; shift; }
	# In the shell itself, not awk: prose runs for most paragraphs of the
	# report, and each program start is a fork of this (large) shell.
	# The format gets "\n" as two characters; printf makes them line ends.
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in
		*[!"$blank"]*) ;;
		*)
			[ -z "$open" ] || format+='\n'
			format+='\n' open=""
			continue ;;
		esac
		if [ -n "$open" ]; then
			case $line in
			'|'* | '- '*) format+="\n$line" ;;
			*) format+=" $line" ;;
			esac
		else
			format+=$line open=1
		fi
	done
	[ -z "$open" ] || format+=$end
	# shellcheck disable=SC2059 # the here-doc is the format
	printf -- "$format" "$@"
}

WARNINGS=()
warn_report () {
	WARNINGS+=("$*")
}

# ---- Verdict ---------------------------------------------------------------

tests_run=${KV_CACHE[$DATA_DIR/run.env|tests]-}
verdict=PASS
n_run=0
for name in $tests_run; do
	[ -f "$DATA_DIR/$name.env" ] || continue
	n_run=$((n_run + 1))
	case ${D[$name|status]-} in
	FAIL | ERROR) verdict=FAIL ;;
	INTERRUPTED) [ "$verdict" = FAIL ] || verdict=INTERRUPTED ;;
	INCONCLUSIVE) [ "$verdict" != PASS ] || verdict=INCONCLUSIVE ;;
	esac
done
# FAIL wins over everything; an interrupted run is INTERRUPTED unless a
# test failed; INCONCLUSIVE (the kit could not load sshd enough to decide
# a test) only when nothing failed.
verdict_note=""
[ "$verdict" != INCONCLUSIVE ] || verdict_note="no test failed, but at least one could not be decided on this machine; its reason says what to do"

[ "$n_run" -gt 0 ] || verdict="NO TESTS"
printf 'verdict=%s\n' "$verdict" >"$DATA_DIR/verdict.env"

# ---- Sections -------------------------------------------------------------

for f in "$KIT_DIR"/lib/report/*.sh; do
	# shellcheck source=/dev/null
	. "$f"
done

header () {
	local env="$DATA_DIR/environment.env" run="$DATA_DIR/run.env" secs
	secs="?"
	if [ -n "${KV_CACHE[$run|started]-}" ] && [ -n "${KV_CACHE[$run|finished]-}" ]; then
		secs=$(awk -v a="$(date -d "${KV_CACHE[$run|started]-}" +%s 2>/dev/null || echo 0)" \
			-v b="$(date -d "${KV_CACHE[$run|finished]-}" +%s 2>/dev/null || echo 0)" \
			'BEGIN { if (a > 0 && b >= a) print b - a; else print "?" }')
	fi
	cat <<EOF
# OpenSSH server performance report

| | |
|---|---|
| **Verdict** | **$verdict** ($n_run tests run${verdict_note:+; $verdict_note}) |
| Host | ${KV_CACHE[$env|host]-} (${KV_CACHE[$env|os]-}, ${KV_CACHE[$env|cores]-} cores) |
| Tested | ${KV_CACHE[$run|started_local]-}, took $secs s |
| Server | test sshd ${KV_CACHE[$env|openssh_server]-}$(package_text "$env") on 127.0.0.1:${KV_CACHE[$env|test_port]-}, $(mode_text "${KV_CACHE[$env|service_mode]-}") |
| OpenSSH build | $(build_text "$env" header) |
| Kit | $(kit_text "$run") |
| What was tested | a second sshd, started by the kit next to the real one (which was not touched), with its own host keys and user \`${KV_CACHE[$env|test_user]-}\`; its configuration: $(server_config_text); the clients ran on the same machine, over loopback |
| What it is not | the production sshd under its real load: not its users, their networks or their traffic. The figures say what this machine, this OpenSSH build and this configuration can do with the kit's own clients |
| At your users' distance | $(distance_pointer) |
| Accepted by (name, date) | |

EOF
}

# package_text ENV: " (package P)" after the server's name: the package
# release that tells two builds of one version apart; " (no package)" for
# a build of one's own; unknown for runs of older kits.
package_text () {
	local k
	k=${KV_CACHE[$1|openssh_package]-}
	case $k in
	'') printf ' (package release unknown: not recorded in this run)' ;;
	none) printf ' (no package: a build of its own)' ;;
	*) printf ' (package `%s`)' "$k" ;;
	esac
}

# kit_text RUN_ENV: the kit that made the run, "sshd-perf-kit 0.1.0-1",
# with the commit of a source checkout.
kit_text () {
	local v r c
	v=${KV_CACHE[$1|kit_version]-}
	r=${KV_CACHE[$1|kit_release]-}
	c=${KV_CACHE[$1|kit_commit]-}
	if [ -z "$v" ]; then
		printf 'sshd-perf-kit, version not recorded (a run of an older kit)'
		return
	fi
	printf 'sshd-perf-kit %s%s' "$v" "${r:+-$r}"
	if [ -n "$c" ]; then
		printf ' from a source checkout, commit `%s`' "$c"
	fi
}

# build_text ENV [header]: which OpenSSH build was measured (server and
# clients). Then the package release, else what the build says of itself
# (runs of older kits have neither): its ssh -V, and the line of its
# PREFIX/openssh-release where it has one (openssh_origin); in the header
# the package is named in the Server row already (package_text), so only
# a build without one says more here.
build_text () {
	local b p k o
	b=${KV_CACHE[$1|openssh_build]-}
	p=${KV_CACHE[$1|openssh_prefix]-}
	k=${KV_CACHE[$1|openssh_package]-}
	o=${KV_CACHE[$1|openssh_origin]-}
	[ -n "$b" ] || b=${KV_CACHE[$1|openssh_server]-}
	if [ -n "$p" ]; then
		printf '%s, installed below `%s` (OPENSSH_PREFIX; server and clients from this build)' "${b:-unknown}" "$p"
	else
		printf "%s, the system's (server and clients)" "${b:-unknown}"
	fi
	case $k in
	'') [ "${2:-}" = header ] || printf '; package release unknown (not recorded in this run)' ;;
	none)
		printf '; no package: `ssh -V` says "%s"' "${KV_CACHE[$1|openssh_client]-}"
		[ -z "$o" ] || printf '; its `openssh-release` says "%s"' "$o"
		;;
	*) [ "${2:-}" = header ] || printf '; package `%s`' "$k" ;;
	esac
}

server_config_text () {
	local env="$DATA_DIR/environment.env"
	case ${KV_CACHE[$env|server_config]-} in
	host) printf "this host's own (\`SERVER_CONFIG=host\`): %s, its Includes read in place; only what a second server must change is overridden (below)" "${KV_CACHE[$env|real_config]-}" ;;
	*) printf "the kit's RHEL-default template (\`SERVER_CONFIG=kit\`)" ;;
	esac
}

test_user_text () {
	local env="$DATA_DIR/environment.env" pw
	if [ "${KV_CACHE[$env|test_user_existing]-}" = yes ]; then
		pw=${KV_CACHE[$env|test_user_password]-}
		case $pw in
		none) pw="no password known (no TEST_PASSWORD_FILE): the password method is skipped" ;;
		file*) pw="password from ${pw#file }" ;;
		esac
		printf '`%s`, an existing account (NSS source `%s`), never changed by the kit; keys in the kit'"'"'s own AuthorizedKeysFile; %s%s' \
			"${KV_CACHE[$env|test_user]-}" "${KV_CACHE[$env|test_user_source]-}" "$pw" \
			"$( [ -z "${KV_CACHE[$env|test_user_sftp_dir]-}" ] || printf '; sftp files in %s' "${KV_CACHE[$env|test_user_sftp_dir]-}")"
	else
		printf '`%s`, created by the kit (NSS source `files`) and removed at cleanup' "${KV_CACHE[$env|test_user]-}"
	fi
}

# The effective settings (sshd -T); with SERVER_CONFIG=host next to the
# real server's.
sshd_t_table () {
	local env="$DATA_DIR/environment.env" k v r line real=""
	grep -q '^realsshd_' "$env" 2>/dev/null && real=1
	if [ -n "$real" ]; then
		printf '\nEffective settings (`sshd -T` for the test user, from the address the test clients connect from) of the test server and of the real server:\n\n'
		printf '| Setting | Test server | Real server |\n|---|---|---|\n'
	else
		printf '\nEffective test server settings (`sshd -T`):\n\n| Setting | Value |\n|---|---|\n'
	fi
	while IFS= read -r line; do
		k=${line%%=*}
		k=${k#sshd_}
		v=${line#*=}
		if [ -n "$real" ]; then
			r=$(get "$env" "realsshd_$k")
			printf '| `%s` | `%s` | `%s`%s |\n' "$k" "$v" "${r:--}" "$( [ "$r" = "$v" ] || printf ' (differs)')"
		else
			printf '| `%s` | `%s` |\n' "$k" "$v"
		fi
	done < <(grep '^sshd_' "$env" 2>/dev/null)
}

# What SERVER_CONFIG=host did not take over from the real configuration.
overrides_list () {
	local env="$DATA_DIR/environment.env"
	[ "${KV_CACHE[$env|server_config]-}" = host ] || return 0
	if ! grep -q '^override_' "$env" 2>/dev/null; then
		printf '\nThe test server took over every line of the real configuration: it had none of the options a second server must change.\n'
		return 0
	fi
	printf '\nWhat the test server does not take over from the real configuration, and why:\n\n| Option | Real configuration | Test server | Why |\n|---|---|---|---|\n'
	grep '^override_' "$env" | sed 's/^override_[0-9]*=//' |
		awk -F' ;; ' '{ printf "| `%s` | `%s` | `%s` | %s |\n", $1, $2, $3, $4 }'
}

# "; ..." when the test sshd runs in another SELinux domain than sshd_t,
# the real sshd's; nothing otherwise (or with SELinux off).
selinux_domain_text () {
	local d why
	d=${KV_CACHE[$1|server_domain]-}
	[ -n "$d" ] && [ "$d" != sshd_t ] || return 0
	if [ "${KV_CACHE[$1|service_mode]-}" = direct ]; then
		why="started directly, nothing moves it into sshd_t"
	elif [ -n "${KV_CACHE[$1|openssh_prefix]-}" ]; then
		why="its sshd below OPENSSH_PREFIX is not labelled sshd_exec_t"
	else
		why="its sshd is not labelled sshd_exec_t"
	fi
	printf '; the test sshd runs as `%s`, not `sshd_t` as the real sshd (%s): the figures leave out what SELinux costs the real server' "$d" "$why"
}

# unit_text: the test server's unit, as the run recorded it (an instance
# has its own, docs/instances.md); a run recorded before service_unit was
# a key names none, and its unit is the default instance's.
unit_text () {
	local u
	u=${KV_CACHE[$DATA_DIR/environment.env|service_unit]-}
	printf '%s' "${u:-sshd-perf-test.service}"
}

mode_text () {
	case $1 in
	systemd) printf 'run by systemd as %s' "$(unit_text)" ;;
	direct) printf 'started directly (no systemd on this host)' ;;
	*) printf 'unknown' ;;
	esac
}

# The helpers of the summary and the sections below set a variable (VAR,
# their first argument) instead of printing: a $(...) is a fork of this
# shell, and they run for every test, twice.

# why_text VAR TEST: why TEST is not PASS, for the summary and its
# details: first what to do (its action, lib/measure.sh), then what was
# seen (its reason, with the numbers); either alone when the other is
# missing.
why_text () {
	local a=${D[$2|action]-} r=${D[$2|reason]-}
	if [ -n "$a" ] && [ -n "$r" ]; then printf -v "$1" '%s (seen: %s)' "$a" "$r"
	else printf -v "$1" '%s' "$a$r"
	fi
}

# why_short VAR TEST: why_text for the summary's cell. An INCONCLUSIVE's
# reason is the interval and the samples it would need, several lines in
# a table cell: there the cell holds what to do, and the test's details
# (where its Why line is) the rest.
why_short () {
	if [ "${D[$2|status]-}" = INCONCLUSIVE ] && [ -n "${D[$2|action]-}" ] && [ -n "${D[$2|reason]-}" ]; then
		printf -v "$1" '%s (why: [its details](#details-%s))' "${D[$2|action]}" "$2"
	else
		why_text "$1" "$2"
	fi
}

# target_text VAR OP TARGET UNIT
target_text () {
	if [ -n "$3" ]; then printf -v "$1" '%s %s %s' "$2" "$3" "$4"
	else printf -v "$1" -- '-'
	fi
}

# reference_of VAR NAME: the specification's example for the test's
# figure: the section's own reference_NAME when it matches the example to
# what was measured (transfer: the cipher of the figure), else the
# registry's.
reference_of () {
	local r=""
	! declare -F "reference_$2" >/dev/null || r=$("reference_$2")
	printf -v "$1" '%s' "${r:-${METRIC_REFERENCE[$2]}}"
}

summary () {
	local name status fig change="" prev_cell="" prev_head="" prev_line="" it target ref why why_cell
	if [ -n "$PREV_DIR" ]; then
		prev_head=" Change |"
		prev_line="---|"
	fi
	cat <<EOF
## Summary

| # | Metric | Result | Target | Reference: specification's example | Verdict |$prev_head
|---:|---|---|---|---|---|$prev_line
EOF
	local i=0
	for name in $METRICS; do
		i=$((i + 1))
		if [ ! -f "$DATA_DIR/$name.env" ]; then
			case " $tests_run " in
			*" $name "*)
				if [ -n "$(not_run_reason "$DATA_DIR/run.env")" ]; then
					printf '| %d | %s (`%s`) | - | - | %s | SKIPPED: not run, %s |%s\n' "$i" "${METRIC_TITLE[$name]}" "$name" "${METRIC_REFERENCE[$name]}" "$(not_run_reason "$DATA_DIR/run.env")" "${prev_head:+ - |}"
				else
					printf '| %d | %s (`%s`) | - | - | %s | ERROR: no result |%s\n' "$i" "${METRIC_TITLE[$name]}" "$name" "${METRIC_REFERENCE[$name]}" "${prev_head:+ - |}"
				fi ;;
			*) [ "${KV_CACHE[$DATA_DIR/run.env|all_tests]-}" = yes ] &&
				printf '| %d | %s (`%s`) | - | - | %s | SKIPPED: not part of this version of the kit |%s\n' "$i" "${METRIC_TITLE[$name]}" "$name" "${METRIC_REFERENCE[$name]}" "${prev_head:+ - |}" ;;
			esac
			continue
		fi
		status=${D[$name|status]-}
		figure_fig fig "$name"
		if [ -n "$fig" ]; then
			interval_text it "$name"
			fig="$fig$it (${D[$name|figure_label]-})"
		fi
		if [ -n "$PREV_DIR" ]; then
			change=$(test_change "$PREV_DIR" "$RUN_DIR" "$name")
			[ -z "$change" ] || change="$change; $(test_judge "$PREV_DIR" "$RUN_DIR" "$name")"
			prev_cell=" ${change:--} |"
		fi
		target_text target "${D[$name|target_op]-}" "${D[$name|target]-}" "${D[$name|unit]-}"
		reference_of ref "$name"
		why_text why "$name"
		why_cell=""
		if [ "$status" != PASS ] && [ -n "$why" ]; then
			why_short why_cell "$name"
			why_cell=": $why_cell"
		fi
		printf '| %d | [%s](#%s) (`%s`) | %s | %s | %s | **%s**%s |%s\n' "$i" "${METRIC_TITLE[$name]}" "$name" "$name" \
			"${fig:--}" "$target" "$ref" "$status" "$why_cell" "$prev_cell"
	done
	# Two counts of samples, each named for what it is for (issue 46,
	# case 10): to state a percentile at all, and to bound it at 95 %.
	printf '\nFigures marked * rest on too few samples to state that percentile (p95 needs 20, p99 needs 100); a 95 %% interval around one needs more, which its details name when a run has too few.\n'
	printf 'Reference: the example values of the validation run in the kit'"'"'s specification (a 32-core machine, OpenSSH 9.9p1 on AlmaLinux 9; in brackets the section), a point of comparison, not a target: your numbers will differ with the machine.\n'
	printf 'The words this report uses (knee, CPU bound, PSS, greeting, INCONCLUSIVE, ...) are explained in the glossary: [glossary.md](glossary.md), a copy in this run folder (and at the end of report.html); the method behind each figure in [metrics.md](metrics.md), also a copy here.\n' 
	if [ -n "$PREV_DIR" ]; then
		printf 'Change: the main figure against the previous run on this host, %s (%s, its own folder next to this one); better or worse by the direction of the metric; whether it is more than the noise of the two runs as in --compare ([metrics.md](metrics.md), "Comparing runs"): a rank test of the samples or the two 95 %% intervals, and all of the change'"'"'s interval beyond %s; for a figure whose interval describes one run, or that has none, beyond the noise between single runs (%s).\n' \
			"$(basename "$PREV_DIR")" "${KV_CACHE[$PREV_DIR/data/run.env|started_local]-}" "$(compare_threshold_text)" "$(run_noise_text)"
	fi
	printf '\n'
}

# probe_raw VAR NAME: VAR gets ", `raw/probe-P-*` (probe P, shared)" for
# each probe of the registry's uses column whose output is in this run.
probe_raw () {
	local p
	printf -v "$1" ''
	for p in ${METRIC_USES[$2]//,/ }; do
		[ -f "$DATA_DIR/probe-$p.env" ] || continue
		printf -v "$1" '%s, `raw/probe-%s-*` (the shared measurement `%s`)' "${!1}" "$p" "$p"
	done
}

# own_raw VAR NAME: VAR gets ", `raw/NAME-*`" when the run has such
# files: some tests (cpu, memory, concurrent) only read the shared
# measurements and have none, and the report names no file that is not
# there.
own_raw () {
	local f
	printf -v "$1" ''
	for f in "$RUN_DIR/raw/$2"-*; do
		[ -e "$f" ] || return 0
		printf -v "$1" ', `raw/%s-*`' "$2"
		return 0
	done
}

# ---- The two layers of a section ------------------------------------------
# The report has two readers: the administrator who signs it wants, per
# metric, the figure, the target, the verdict, what it means and what to
# do; whoever checks a figure wants its method, tables and raw samples.
# So a section is cut in two: its body stays in the metric's section, its
# details go to the Details part after the body (report.html shows each
# metric's collapsed, and prints it open). Nothing is left out: every
# line a section prints lands in one of the two. A section's function
# says with part NAME which its next lines are: body; advice (its "What
# to change", in the body when the verdict is not PASS or a reading of
# concern applies, lib/report/guidance.tab, else in the details); details.
# A function starts in details, as its method comes first: a function
# that names no part loses nothing, it only moves. An awk program of a
# section that has readings for both parts prints part's line itself,
# "${PART_MARK}NAME@@" alone on a line.
PART_MARK='@@sshperf-part:'
part () {
	printf '\n%s%s@@\n' "$PART_MARK" "$1"
}

# tidy VAR: VAR's markdown without blank lines at its start and with one
# blank line at most between two blocks; ends with one blank line when
# not empty. Joining the pieces of a part can double them.
tidy () {
	local -n tidy_v=$1
	tidy_v=${tidy_v#"${tidy_v%%[!$'\n']*}"}
	while [[ $tidy_v == *$'\n\n\n'* ]]; do tidy_v=${tidy_v//$'\n\n\n'/$'\n\n'}; done
	tidy_v=${tidy_v%"${tidy_v##*[!$'\n']}"}
	[ -z "$tidy_v" ] || tidy_v+=$'\n\n'
}

# section_split TEXT: S_BODY, S_ADVICE and S_DETAILS get the lines of a
# section function's output (TEXT) by the part they were printed in.
section_split () {
	local line to=details
	S_BODY="" S_ADVICE="" S_DETAILS=""
	while IFS= read -r line; do
		case $line in
		"$PART_MARK"*@@) to=${line#"$PART_MARK"}; to=${to%@@}; continue ;;
		esac
		case $to in
		body) S_BODY+=$line$'\n' ;;
		advice) S_ADVICE+=$line$'\n' ;;
		*) S_DETAILS+=$line$'\n' ;;
		esac
	done <<<"$1"
	tidy S_BODY
	tidy S_ADVICE
	tidy S_DETAILS
}

# result_line TEST: the body's first line: the figure and the target, as
# the summary's row has them (the verdict is in the heading).
result_line () {
	local fig target
	figure_fig fig "$1"
	if [ -n "$fig" ]; then
		fig="$fig (${D[$1|figure_label]-})"
	else
		fig="no figure"
	fi
	target_text target "${D[$1|target_op]-}" "${D[$1|target]-}" "${D[$1|unit]-}"
	printf '**Result:** %s; target %s.\n\n' "$fig" "$target"
}

# The Details part, filled by sections, printed after the body.
DETAILS_MD=""

sections () {
	local name raw probes why out details
	for name in $METRICS; do
		[ -f "$DATA_DIR/$name.env" ] || continue
		printf '<a id="%s"></a>\n\n## %s (`%s`): %s\n\n' "$name" "${METRIC_TITLE[$name]}" "$name" "${D[$name|status]-}"
		result_line "$name"
		out=""
		if declare -F "report_$name" >/dev/null; then
			# A section that breaks on odd data must not cost the report.
			out=$("report_$name") ||
				out+=$(printf '\n\n*This section could not be shown completely; its data is in `data/%s.env` and `raw/`.*\n\n' "$name")
		fi
		section_split "$out"
		printf '%s' "$S_BODY"
		# The specification's readings that hold on this run (lib/report/guidance.tab).
		guidance_for "$name"
		# Why it is not PASS: the summary's cell has it for the body.
		why_text why "$name"
		details=""
		[ -z "$why" ] || details="**Why ${D[$name|status]-}:** $why"$'\n\n'
		details+=$(interval_sentence "$name")$'\n\n'$S_DETAILS
		if [ "${D[$name|status]-}" != PASS ] || [ -n "${GUIDANCE_CONCERN[$name]-}" ]; then
			printf '%s' "$S_ADVICE"
		else
			details+=$S_ADVICE
		fi
		details+=$(chart_links "$name")$'\n\n'
		own_raw raw "$name"
		probe_raw probes "$name"
		raw+=$probes
		if [ -n "$raw" ]; then
			details+="Raw samples: ${raw#, }. "
		else
			details+='No raw samples of its own. '
		fi
		details+="The test took ${D[$name|seconds]-} s."
		tidy details
		printf 'Details: [method, tables, raw samples](#details-%s).\n\n' "$name"
		DETAILS_MD+=$(printf '<a id="details-%s"></a>\n\n<details>\n\n### %s (`%s`): details\n\n%s</details>' \
			"$name" "${METRIC_TITLE[$name]}" "$name" "$details")$'\n\n'
	done
}

# details_part: the second layer, after the body: each metric's details
# (sections) under a heading of its own.
details_part () {
	[ -n "$DETAILS_MD" ] || return 0
	printf '<a id="details"></a>\n\n## Details\n\n'
	# A printf, not prose: prose with no argument here would be its only
	# such call in this file, which shellcheck takes for a mistake.
	printf '%s %s\n\n' 'The analysis behind each section above: how the figure was measured, its interval,' \
		'the tables and charts, and where its raw samples are. The report above is complete without it.'
	printf '%s' "$DETAILS_MD"
}

warnings () {
	local run="$DATA_DIR/run.env" busy steal cores name
	cores=${KV_CACHE[$DATA_DIR/environment.env|cores]-}
	# From the CPU time of the second before the first test (test-ssh.sh),
	# never from the load average. Runs of older kits have no such sample.
	busy=${KV_CACHE[$run|cpu_busy_before_pct]-}
	steal=${KV_CACHE[$run|cpu_steal_before_pct]-}
	if [ -n "$busy" ] && [ "$busy" -ge 50 ]; then
		warn_report "The machine was busy before the run (its CPUs were $busy % busy in the second before the first test, from /proc/stat, $cores cores): other work may have slowed the results; run again on a quiet machine."
	fi
	if [ -n "$steal" ] && [ "$steal" -ge 5 ]; then
		warn_report "Before the run, $steal % of the CPU time was stolen by the hypervisor: the figures depend on other guests of the host."
	fi
	if [ "${KV_CACHE[$run|interrupted]-}" = yes ]; then
		warn_report "The run was interrupted; tests after the interrupted one did not run."
	elif [ -n "${KV_CACHE[$run|not_run_reason]-}" ]; then
		warn_report "Some tests were not run: ${KV_CACHE[$run|not_run_reason]-}. Find out why the test server ended (\`./start-ssh.sh status\`, its log), start it again with \`./start-ssh.sh\` and run the tests again."
	fi
	# A wire off its setting, or one that failed (raw/wire.tsv).
	if [ -f "$RUN_DIR/raw/wire.tsv" ]; then
		local rtt w
		while IFS=$'\t' read -r rtt w; do
			[ -z "$w" ] || [ "$w" = - ] || warn_report "At $rtt ms round trip: $w."
		done < <(tsv_select "$RUN_DIR/raw/wire.tsv" rtt_ms warning)
	fi
	for name in $tests_run; do
		case ${D[$name|status]-} in
		SKIPPED) warn_report "\`$name\` was skipped: ${D[$name|reason]-}" ;;
		INTERRUPTED) warn_report "\`$name\` was interrupted." ;;
		esac
		[ -z "${D[$name|warning]-}" ] || warn_report "\`$name\`: ${D[$name|warning]-}"
	done
	printf '## Warnings\n\n'
	if [ "${#WARNINGS[@]}" -eq 0 ]; then
		printf 'None.\n\n'
	else
		printf -- '- %s\n' "${WARNINGS[@]}"
		printf '\n'
	fi
}

environment () {
	local env="$DATA_DIR/environment.env"
	cat <<EOF
## Environment

| | |
|---|---|
| OS | ${KV_CACHE[$env|os]-}, kernel ${KV_CACHE[$env|kernel]-} (${KV_CACHE[$env|arch]-}) |
| CPU | ${KV_CACHE[$env|cpu_model]-}, ${KV_CACHE[$env|cores]-} cores, AES-NI: ${KV_CACHE[$env|aes_ni]-} |
| RAM | ${KV_CACHE[$env|ram_mb]-} MB (${KV_CACHE[$env|ram_available_mb]-} MB available at the start of the run; MB = 10^6 bytes) |
| OpenSSH | server ${KV_CACHE[$env|openssh_server]-}; client ${KV_CACHE[$env|openssh_client]-} |
| OpenSSH build | $(build_text "$env"); sshd \`${KV_CACHE[$env|openssh_sshd]-}\`, ssh \`${KV_CACHE[$env|openssh_ssh]-}\` |
| Process model | ${KV_CACHE[$env|openssh_process_model]-} |
| OpenSSL | ${KV_CACHE[$env|openssl]-} |
| Crypto policy | ${KV_CACHE[$env|crypto_policy]-}; FIPS mode ${KV_CACHE[$env|fips]-} |
| SELinux | ${KV_CACHE[$env|selinux]-}$(selinux_domain_text "$env") |
| Test server | $(mode_text "${KV_CACHE[$env|service_mode]-}"), listener pid ${KV_CACHE[$env|server_pid]-} at the start of the run (a test that restarts the server gives it a new one) |
| Load average | ${KV_CACHE[$DATA_DIR/run.env|load_before]-} before the run, ${KV_CACHE[$DATA_DIR/run.env|load_after]-} after it (1, 5, 15 min; for the record, the warnings use CPU time)$(b=${KV_CACHE[$DATA_DIR/run.env|cpu_busy_before_pct]-}; [ -z "$b" ] || printf '; CPUs %s %% busy in the second before the first test' "$b") |
| Server configuration | $(server_config_text) |
| SSHD_OPTIONS | $(opts=${KV_CACHE[$env|server_options]-}; if [ -n "$opts" ]; then printf '`%s`' "$opts"; else printf 'none'; fi) |
| Test user | $(test_user_text) |
| PAM stack | ${KV_CACHE[$env|pam_stack]-} |
EOF
	sshd_t_table
	overrides_list
	printf '\nSettings used in this run'
	local from_env
	from_env=$(get "$DATA_DIR/settings.env" SETTINGS_FROM_ENV | tr -d "'")
	[ -z "$from_env" ] || printf ' (from the environment: %s)' "$from_env"
	printf ':\n\n```\n'
	grep -v '^SETTINGS_FROM_ENV=' "$DATA_DIR/settings.env" | tr -d "'"
	printf '```\n'
}

# The glossary and the metrics guide (the method behind each figure) go
# with the run, so that the report's links work on any machine the folder
# is copied to (all links are relative to the folder; tests/t82).
# A checkout has them in docs/; an installed kit names their folder in
# lib/paths.sh (REPORT_DOCS_DIR, packaging/install.sh).
docs_=${REPORT_DOCS_DIR:-}
if [ -z "$docs_" ] && [ -f "$KIT_DIR/lib/paths.sh" ]; then
	# shellcheck source=/dev/null
	docs_=$(. "$KIT_DIR/lib/paths.sh" && printf '%s' "${REPORT_DOCS_DIR:-}")
fi
docs_=${docs_:-$KIT_DIR/docs}
for doc_ in glossary metrics; do
	cp -f "$docs_/$doc_.md" "$RUN_DIR/$doc_.md" 2>/dev/null ||
		printf 'render.sh: could not copy docs/%s.md into %s\n' "$doc_" "$RUN_DIR" >&2
done
unset doc_ docs_
charts_write "$RUN_DIR" || printf 'render.sh: drawing the charts failed; the report has none\n' >&2
# The specification's readings, judged once on this run's figures.
guidance_load || printf 'render.sh: lib/report/guidance.tab could not be judged (above); the report has none of its readings\n' >&2
interval_bounds_load
{
	# The body: what the administrator signs.
	header
	summary
	sections
	# The distances, when the run had any (lib/report/distance.sh).
	( report_distance ) || true
	( report_distance_load ) || true	# MaxStartups, rate and burst at a distance (lib/report/distance-load.sh)
	# The specification's guidance for this run (lib/report/guidance.sh).
	if [ "$n_run" -gt 0 ]; then
		( report_uses ) || true
		( report_offline ) || true
	fi
	warnings
	# The details: each metric's analysis, then the figures of the whole
	# run that explain more than they decide.
	details_part
	[ "$n_run" -eq 0 ] || ( report_capacity ) || true
	[ "$n_run" -eq 0 ] || ( report_relations ) || true
	if [ "$n_run" -gt 0 ]; then
		( report_settings ) || true
		( report_limits ) || true
	fi
	environment
} >"$REPORT.tmp"
mv -f "$REPORT.tmp" "$REPORT"
# Its HTML twin, from the markdown: one source, two forms. A line outside
# the markdown subset is named on stderr; the report stands all the same,
# except under the kit's own tests (SSHPERF_REPORT_STRICT=1, set by
# tests/lib/harness.sh), where such a line fails the rendering once
# everything is written, so that a section's rarer paths cannot break
# the subset unseen.
# report.html carries the glossary inline, at its end, so that the one
# file explains its words wherever it is opened or printed.
html_rc=0
{
	cat "$REPORT"
	printf '\n<a id="glossary"></a>\n\n## Glossary\n\n'
	sed '1{/^# /d}' "$RUN_DIR/glossary.md" 2>/dev/null
} >"$RUN_DIR/.report-html.md"
"$KIT_DIR/lib/bin/report-html.sh" "$RUN_DIR/.report-html.md" "$RUN_DIR/report.html" || html_rc=$?
rm -f "$RUN_DIR/.report-html.md"
# The warnings go into results.json too.
if [ "${#WARNINGS[@]}" -gt 0 ]; then
	printf '%s\n' "${WARNINGS[@]}" >"$DATA_DIR/warnings.txt"
else
	: >"$DATA_DIR/warnings.txt"
fi
"$KIT_DIR/lib/bin/results-json.sh" "$RUN_DIR" "$PREV_DIR" || exit
if [ "$html_rc" -ne 0 ] && [ "${SSHPERF_REPORT_STRICT:-}" = 1 ]; then
	printf 'render.sh: %s has lines outside the markdown subset (above); SSHPERF_REPORT_STRICT=1 makes that an error\n' "$REPORT" >&2
	exit 1
fi
