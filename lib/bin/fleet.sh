#!/usr/bin/env bash
# fleet.sh DIR [--baseline RUN] [--factor F]: the fleet report of the runs
# in DIR, one sub-folder per host (what ansible/fleet.yml fetches: DIR/HOST
# is an ordinary run folder, or holds only failed.env when the host did not
# run). Writes DIR/fleet-report.md and DIR/fleet.json and prints the
# report's path. Called by `test-ssh.sh --fleet`; needs no root and no
# test server, only bash, sed and awk. docs/fleet.md describes both files.
#
#   DIR/HOST/data/*.env    the host's run (figures, verdicts, environment)
#   DIR/HOST/failed.env    why the host did not run or failed (reason=,
#                          task=), written by the Ansible role
#   DIR/hosts              optional: every host the play was given, one a
#                          line; one without a folder is "not reached"
set -eu
PROG=${PROG:-test-ssh.sh --fleet}
KIT_DIR=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
# shellcheck source=lib/compare.sh
. "$KIT_DIR/lib/compare.sh"
# shellcheck source=lib/json.sh
. "$KIT_DIR/lib/json.sh"
# shellcheck source=lib/atexit.sh
. "$KIT_DIR/lib/atexit.sh"
export LC_ALL=C
# The reports are for everyone who reads the fleet folder (common.sh of
# test-ssh.sh, which execs this, sets 077).
umask 022

die () {
	printf '%s: %s\n' "$PROG" "$*" >&2
	exit 2
}

usage="usage: $PROG DIR [--baseline RUN] [--factor F]"
[ "$#" -ge 1 ] || die "$usage"
case $1 in -h | --help)
	cat <<EOF
$usage

Reads DIR/<host>/ (one run folder per host, as ansible/fleet.yml fetches
them) and writes DIR/fleet-report.md and DIR/fleet.json: per host and
metric the figure and verdict, the fleet median per metric, hosts worse
than F times the median (default 1.5), hosts that did not run and why,
and with --baseline each host's change against the run folder RUN.
EOF
	exit 0 ;;
esac
DIR=${1%/}
shift
BASELINE="" FACTOR=1.5
while [ "$#" -gt 0 ]; do
	case $1 in
	--baseline)
		[ "$#" -ge 2 ] || die "--baseline needs a run folder: $usage"
		BASELINE=${2%/}
		shift 2 ;;
	--factor)
		[ "$#" -ge 2 ] || die "--factor needs a number above 1, e.g. --factor 1.5"
		FACTOR=$2
		shift 2 ;;
	*) die "unknown argument '$1'; $usage" ;;
	esac
done
[ -d "$DIR" ] || die "$DIR is not a folder; give the fleet folder (fleet/<date-time>) that ansible/fleet.yml wrote"
if ! printf '%s' "$FACTOR" | grep -Eqx '[0-9]+(\.[0-9]+)?' || ! awk -v f="$FACTOR" 'BEGIN { exit !(f > 1) }'; then
	die "--factor $FACTOR: give a number above 1, e.g. --factor 1.5"
fi
if [ -n "$BASELINE" ] && [ ! -f "$BASELINE/data/run.env" ]; then
	die "--baseline $BASELINE is not a run folder of the kit (no data/run.env); give a folder RESULTS_DIR/<date-time> or DIR/<host>"
fi

# The hosts: every sub-folder, and every name in DIR/hosts.
hosts=$( { find "$DIR" -mindepth 1 -maxdepth 1 -type d -printf '%f\n'
	[ ! -f "$DIR/hosts" ] || grep -v '^[[:space:]]*$' "$DIR/hosts"; } | sort -u)
[ -n "$hosts" ] || die "$DIR has no host folders; run ansible-playbook fleet.yml first, or give the folder it wrote (fleet/<date-time>)"

tab=$(printf '\t')
# One tab-separated line per fact, for the awk below. Tabs and newlines in
# values would break the lines: they become spaces.
row () {
	local IFS="$tab" out
	out="$*"
	printf '%s\n' "${out//$'\n'/ }"
}
clean () { printf '%s' "${1//$tab/ }"; }

# H host state reason run verdict hostname os openssh cores crypto selinux
# M host metric status figure unit direction label baseline-change
# B metric figure unit status
facts () {
	local h d e name ch reason state
	for h in $hosts; do
		d="$DIR/$h"
		e="$d/data/environment.env"
		reason=$(clean "$(kv_get "$d/failed.env" reason)")
		if [ -f "$d/data/run.env" ]; then
			state=ran
		elif [ -d "$d" ]; then
			state=notrun
			[ -n "$reason" ] || reason="no run in $h/ (no data/run.env) and no failed.env saying why"
		else
			state=notrun
			reason="not reached: the play ended before this host (see the ansible-playbook output)"
		fi
		row H "$h" "$state" "$reason" "" \
			"$(kv_get "$d/data/verdict.env" verdict)" "$(clean "$(kv_get "$e" host)")" "$(clean "$(kv_get "$e" os)")" \
			"$(clean "$(kv_get "$e" openssh_server)")" "$(kv_get "$e" cores)" "$(clean "$(kv_get "$e" crypto_policy)")" \
			"$(clean "$(kv_get "$e" selinux)")"
		[ "$state" = ran ] || continue
		for name in $METRICS; do
			[ -f "$d/data/$name.env" ] || continue
			ch=""
			[ -z "$BASELINE" ] || ch=$(test_change "$BASELINE" "$d" "$name")
			row M "$h" "$name" "$(kv_get "$d/data/$name.env" status)" "$(kv_get "$d/data/$name.env" figure)" \
				"$(kv_get "$d/data/$name.env" unit)" "$(metric_direction "$d" "$name")" \
				"$(clean "$(kv_get "$d/data/$name.env" figure_label)")" "$ch"
		done
	done
	[ -n "$BASELINE" ] || return 0
	for name in $METRICS; do
		[ -f "$BASELINE/data/$name.env" ] || continue
		row B "$name" "$(kv_get "$BASELINE/data/$name.env" figure)" "$(kv_get "$BASELINE/data/$name.env" unit)" \
			"$(kv_get "$BASELINE/data/$name.env" status)"
	done
}

# DIR/HOST is named after the host; DIR/HOST/run_id (written by the role)
# names the run folder on the host it came from.
at_exit_owner
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sshperf-fleet.XXXXXX")
at_exit rm -rf -- "$tmp"
facts >"$tmp/facts"
for h in $hosts; do
	if [ -f "$DIR/$h/run_id" ]; then
		printf '%s\t%s\n' "$h" "$(head -n 1 "$DIR/$h/run_id")"
	fi
done >"$tmp/ids"


awk -F '\t' -v factor="$FACTOR" -v fleet="$(basename "$(cd "$DIR" && pwd)")" \
	-v rank="$(stats_rank_bin)" -v tmpf="$tmp/median" \
	-v baseline="${BASELINE:+$(basename "$(cd "$BASELINE" && pwd)")}" \
	-v generated="$(date -u +%Y-%m-%dT%H:%M:%SZ)" -v metrics_order="$METRICS" \
	-v md="$tmp/fleet-report.md" -v js="$tmp/fleet.json" "$JSON_AWK"'
function measured(s) { return s == "PASS" || s == "FAIL" || s == "INCONCLUSIVE" }
function isnum(s) { return s ~ /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/ }
function mdc(s) { gsub(/\|/, "\\|", s); return s == "" ? "-" : s }
function jn(s) { return isnum(s) ? s + 0 : "null" }
function jsn(s) { return s == "" ? "null" : jstr(s) }
function fmt(x,    s) { s = sprintf("%.2f", x); sub(/\.?0+$/, "", s); return s }
# median(a, n, sign): the median of a[1..n] from the statistics engine
# (sshperf-rank percentile: nearest rank, the kit\047s one definition; for an
# even n the lower middle figure). With sign -1 the figures are negated on
# the way in and out: the upper middle figure.
function median(a, n, sign,    i, cmd, line, r) {
	cmd = rank " percentile -q 50 >" tmpf
	for (i = 1; i <= n; i++) printf "%.17g\n", sign * a[i] | cmd
	close(cmd)
	r = ""
	while ((getline line < tmpf) > 0) if (line ~ /^p50=/) r = substr(line, 5)
	close(tmpf)
	return sign * r
}
FILENAME ~ /ids$/ { runid[$1] = $2; next }
$1 == "H" {
	host[++nh] = $2; state[$2] = $3; reason[$2] = $4; verdict[$2] = $6
	hname[$2] = $7; os[$2] = $8; ssh[$2] = $9; cores[$2] = $10; crypto[$2] = $11; selinux[$2] = $12
	next
}
$1 == "M" {
	k = $2 SUBSEP $3
	st[k] = $4; fig[k] = $5; unit[k] = $6; bch[k] = $9
	if (!($3 in dir)) { dir[$3] = $7; label[$3] = $8; munit[$3] = $6 }
	have[$3] = 1
	next
}
$1 == "B" { bfig[$2] = $3; bunit[$2] = $4; bst[$2] = $5; have[$2] = 1; next }
END {
	nm = split(metrics_order, order, " ")
	n_metrics = 0
	for (i = 1; i <= nm; i++) if (order[i] in have) metric[++n_metrics] = order[i]
	n_ran = 0
	for (i = 1; i <= nh; i++) if (state[host[i]] == "ran") n_ran++

	# Median of the figures that were measured (PASS, FAIL or INCONCLUSIVE:
	# an INCONCLUSIVE figure was measured, only its verdict could not be
	# decided; a number, in the metric\047s unit); outliers against it.
	for (m = 1; m <= n_metrics; m++) {
		name = metric[m]; n = 0; delete v
		for (i = 1; i <= nh; i++) {
			k = host[i] SUBSEP name
			if (measured(st[k]) && isnum(fig[k]) && unit[k] == munit[name]) v[++n] = fig[k] + 0
		}
		count[name] = n
		if (n == 0) continue
		med[name] = median(v, n, 1)
		if (n < 2) continue
		# Each host against the median of the other hosts: with two
		# hosts, the other one. For an even number of others, the middle
		# figure on the host\047s side (the higher one where lower is
		# better), so that the rounding of the median never calls a host
		# out.
		for (i = 1; i <= nh; i++) {
			k = host[i] SUBSEP name
			if (!(measured(st[k]) && isnum(fig[k]) && unit[k] == munit[name])) continue
			f = fig[k] + 0; x = ""; no_ = 0; delete o
			for (j = 1; j <= nh; j++) {
				kj = host[j] SUBSEP name
				if (j != i && measured(st[kj]) && isnum(fig[kj]) && unit[kj] == munit[name]) o[++no_] = fig[kj] + 0
			}
			r = median(o, no_, dir[name] == "higher" ? 1 : -1)
			if (dir[name] == "higher") {
				if (f * factor < r) x = (f > 0) ? r / f : "inf"
			} else if (r > 0 && f > factor * r) x = f / r
			if (x != "") { out[k] = x; ref[k] = r; olist[++no] = k }
		}
	}

	# ---- fleet-report.md ----
	printf "# sshd-perf-kit fleet report\n\n" >md
	printf "| | |\n|---|---|\n" >md
	printf "| Fleet run | `%s` |\n", fleet >md
	printf "| Hosts | %d, %d ran, %d did not run |\n", nh, n_ran, nh - n_ran >md
	printf "| Stands out | a figure worse than %s x the median of the other hosts (in the metric\047s bad direction) |\n", factor >md
	if (baseline != "") printf "| Baseline | `%s` |\n", baseline >md
	printf "| Written | %s |\n\n", generated >md

	printf "## Figures and verdicts\n\n" >md
	printf "One row per host, one column per metric: the main figure and its verdict.\n" >md
	printf "**Bold** with a factor: the host stands out (worse than %s x the median of the others).\n\n", factor >md
	printf "| Host | Verdict |" >md
	for (m = 1; m <= n_metrics; m++) printf " `%s` (%s, %s is better) |", metric[m], mdc(munit[metric[m]]), dir[metric[m]] == "higher" ? "higher" : "lower" >md
	printf "\n|---|---|" >md
	for (m = 1; m <= n_metrics; m++) printf "---:|" >md
	printf "\n" >md
	for (i = 1; i <= nh; i++) {
		h = host[i]
		if (state[h] != "ran") {
			printf "| %s | not run |", mdc(h) >md
			for (m = 1; m <= n_metrics; m++) printf " - |" >md
			printf "\n" >md
			continue
		}
		printf "| %s | %s |", mdc(h), mdc(verdict[h]) >md
		for (m = 1; m <= n_metrics; m++) {
			k = h SUBSEP metric[m]
			if (!(k in st)) { printf " - |" >md; continue }
			f = isnum(fig[k]) ? fig[k] : "-"
			if (k in out) printf " **%s** %s (%s x) |", f, st[k], out[k] == "inf" ? "inf" : sprintf("%.1f", out[k]) >md
			else printf " %s %s |", f, st[k] >md
		}
		printf "\n" >md
	}
	printf "| **Fleet median** | |" >md
	for (m = 1; m <= n_metrics; m++) {
		name = metric[m]
		if (name in med) printf " %s (n=%d) |", fmt(med[name]), count[name] >md
		else printf " - |" >md
	}
	printf "\n" >md
	if (baseline != "") {
		printf "| *Baseline* `%s` | |", baseline >md
		for (m = 1; m <= n_metrics; m++) {
			name = metric[m]
			if (name in bst) printf " %s %s |", isnum(bfig[name]) ? bfig[name] : "-", bst[name] >md
			else printf " - |" >md
		}
		printf "\n" >md
	}
	printf "\nThe median counts only figures that were measured (PASS, FAIL or\n" >md
	printf "INCONCLUSIVE) in the metric\047s unit; SKIPPED, ERROR and missing tests\n" >md
	printf "are left out. It is the kit\047s one median (nearest rank): of an even\n" >md
	printf "number of hosts, the lower of the two middle figures.\n\n" >md

	printf "## Hosts that stand out\n\n" >md
	if (no == 0) printf "None: no figure is worse than %s x the median of the other hosts.\n\n", factor >md
	else {
		printf "| Host | Metric | Figure | Median of the others | Factor | Better is |\n|---|---|---:|---:|---:|---|\n" >md
		for (j = 1; j <= no; j++) {
			split(olist[j], p, SUBSEP)
			printf "| %s | `%s` | %s %s | %s %s | %s x worse | %s |\n", mdc(p[1]), p[2], fig[olist[j]], mdc(munit[p[2]]), \
				fmt(ref[olist[j]]), mdc(munit[p[2]]), out[olist[j]] == "inf" ? "inf" : sprintf("%.1f", out[olist[j]]), dir[p[2]] >md
		}
		printf "\nEach host is held against the median of the other hosts (with two\n" >md
		printf "hosts, the other one; of an even number of others, the middle figure\n" >md
		printf "on the host\047s side). A factor is figure / that median where lower is\n" >md
		printf "better, median / figure where higher is better. Read the host\047s own\n" >md
		printf "report.md (its environment and\n" >md
		printf "warnings) before blaming the host: a busy hypervisor shows up here too.\n\n" >md
	}

	printf "## Hosts that did not run\n\n" >md
	if (n_ran == nh) printf "None: every host ran.\n\n" >md
	else {
		printf "| Host | Why |\n|---|---|\n" >md
		for (i = 1; i <= nh; i++) if (state[host[i]] != "ran") printf "| %s | %s |\n", mdc(host[i]), mdc(reason[host[i]]) >md
		printf "\n" >md
	}
	nf = 0
	for (i = 1; i <= nh; i++) if (state[host[i]] == "ran" && reason[host[i]] != "") nf++
	if (nf > 0) {
		printf "## Hosts that ran but failed afterwards\n\n| Host | What failed |\n|---|---|\n" >md
		for (i = 1; i <= nh; i++) if (state[host[i]] == "ran" && reason[host[i]] != "") printf "| %s | %s |\n", mdc(host[i]), mdc(reason[host[i]]) >md
		printf "\n" >md
	}

	printf "## Environment per host\n\n" >md
	printf "These explain most differences between hosts.\n\n" >md
	printf "| Host | Hostname | OS | OpenSSH server | Cores | Crypto policy | SELinux | Run |\n|---|---|---|---|---:|---|---|---|\n" >md
	for (i = 1; i <= nh; i++) {
		h = host[i]
		if (state[h] != "ran") { printf "| %s | - | - | - | - | - | - | not run |\n", mdc(h) >md; continue }
		printf "| %s | %s | %s | %s | %s | %s | %s | `%s/` |\n", mdc(h), mdc(hname[h]), mdc(os[h]), mdc(ssh[h]), mdc(cores[h]), \
			mdc(crypto[h]), mdc(selinux[h]), h >md
	}
	printf "\n" >md

	if (baseline != "") {
		printf "## Against the baseline `%s`\n\n", baseline >md
		printf "Change = (host - baseline) / baseline of each metric\047s main figure;\n" >md
		printf "compared only where both were measured in the same unit.\n\n" >md
		printf "| Host |" >md
		for (m = 1; m <= n_metrics; m++) printf " `%s` |", metric[m] >md
		printf "\n|---|" >md
		for (m = 1; m <= n_metrics; m++) printf "---|" >md
		printf "\n" >md
		for (i = 1; i <= nh; i++) {
			h = host[i]
			if (state[h] != "ran") continue
			printf "| %s |", mdc(h) >md
			for (m = 1; m <= n_metrics; m++) {
				k = h SUBSEP metric[m]
				printf " %s |", (k in bch) ? mdc(bch[k]) : "-" >md
			}
			printf "\n" >md
		}
		printf "\n" >md
	}
	printf "Each host\047s folder is an ordinary run: its report.md has the detail, and\n" >md
	printf "`test-ssh.sh --compare %s/HOST_A %s/HOST_B` compares two hosts.\n", fleet, fleet >md

	# ---- fleet.json ----
	printf "{\n  \"format\": \"sshd-perf-kit-fleet\",\n  \"format_version\": 1,\n" >js
	printf "  \"fleet\": %s,\n  \"generated\": %s,\n  \"factor\": %s,\n  \"baseline\": %s,\n", jstr(fleet), jstr(generated), factor + 0, jsn(baseline) >js
	printf "  \"metrics\": {" >js
	for (m = 1; m <= n_metrics; m++) {
		name = metric[m]
		printf "%s\n    %s: {\"unit\": %s, \"direction\": %s, \"figure_label\": %s, \"median\": %s, \"n\": %d", (m > 1 ? "," : ""), \
			jstr(name), jsn(munit[name]), jstr(dir[name] == "higher" ? "higher" : "lower"), jsn(label[name]), \
			(name in med) ? jn(fmt(med[name])) : "null", count[name] >js
		if (baseline != "") printf ", \"baseline\": {\"status\": %s, \"figure\": %s}", jsn(bst[name]), jn(bfig[name]) >js
		printf "}" >js
	}
	printf "%s},\n  \"hosts\": [", n_metrics ? "\n  " : "" >js
	for (i = 1; i <= nh; i++) {
		h = host[i]
		printf "%s\n    {\"name\": %s, \"ran\": %s, \"reason\": %s", (i > 1 ? "," : ""), jstr(h), state[h] == "ran" ? "true" : "false", jsn(reason[h]) >js
		if (state[h] == "ran") {
			printf ", \"run\": %s, \"verdict\": %s,\n     \"environment\": {\"host\": %s, \"os\": %s, \"openssh_server\": %s, \"cores\": %s, \"crypto_policy\": %s, \"selinux\": %s},\n     \"tests\": {", \
				jsn(runid[h]), jsn(verdict[h]), jsn(hname[h]), jsn(os[h]), jsn(ssh[h]), jn(cores[h]), jsn(crypto[h]), jsn(selinux[h]) >js
			c = 0
			for (m = 1; m <= n_metrics; m++) {
				k = h SUBSEP metric[m]
				if (!(k in st)) continue
				printf "%s\n       %s: {\"status\": %s, \"figure\": %s, \"unit\": %s, \"stands_out\": %s, \"factor\": %s", c++ ? "," : "", \
					jstr(metric[m]), jsn(st[k]), jn(fig[k]), jsn(unit[k]), (k in out) ? "true" : "false", \
					(k in out && out[k] != "inf") ? jn(sprintf("%.2f", out[k])) : "null" >js
				if (baseline != "") printf ", \"baseline_change\": %s", jsn(bch[k]) >js
				printf "}" >js
			}
			printf "%s}", c ? "\n     " : "" >js
		}
		printf "}" >js
	}
	printf "%s],\n  \"stand_out\": [", nh ? "\n  " : "" >js
	for (j = 1; j <= no; j++) {
		split(olist[j], p, SUBSEP)
		printf "%s\n    {\"host\": %s, \"metric\": %s, \"figure\": %s, \"median\": %s, \"others_median\": %s, \"factor\": %s}", (j > 1 ? "," : ""), jstr(p[1]), jstr(p[2]), \
			jn(fig[olist[j]]), jn(fmt(med[p[2]])), jn(fmt(ref[olist[j]])), out[olist[j]] == "inf" ? "null" : jn(sprintf("%.2f", out[olist[j]])) >js
	}
	printf "%s],\n  \"not_run\": [", no ? "\n  " : "" >js
	c = 0
	for (i = 1; i <= nh; i++) if (state[host[i]] != "ran")
		printf "%s\n    {\"host\": %s, \"reason\": %s}", c++ ? "," : "", jstr(host[i]), jsn(reason[host[i]]) >js
	printf "%s]\n}\n", c ? "\n  " : "" >js
}' "$tmp/ids" "$tmp/facts"

for f in fleet.json fleet-report.md; do
	if ! cp "$tmp/$f" "$DIR/$f.tmp" 2>/dev/null || ! mv -f "$DIR/$f.tmp" "$DIR/$f"; then
		rm -f "$DIR/$f.tmp"
		die "cannot write $DIR/$f; is $DIR writable?"
	fi
done
printf '%s\n' "$DIR/fleet-report.md"
