#!/bin/sh
# man/mkconf5.sh SETTINGS_CONF SCHEMA: prints the man page
# sshd-perf-kit.conf(5), made from the settings file (order, sections,
# descriptions, defaults) and the schema (the allowed form of each
# setting, in the words of the settings helper's error messages), plus
# the direction of each target from lib/metrics/*.sh. The Makefile calls
# it at build time, so the page cannot drift from the two files; it stops
# (exit 1) on a setting that is in one and not the other, a default the
# schema refuses, or a setting without a description comment.
#
# man/mkconf5.sh --subst FILE: prints FILE with @VERSION@, @SBINDIR@,
# @LIBEXECDIR@, @DATADIR@, @DOCDIR@, @SYSCONFDIR@, @LOCALSTATEDIR@ replaced
# from the environment (sshd-perf-kit(8)).
#
# Environment: VERSION and the directories above (the Makefile's),
# SETTINGS_HELPER (default build/sshperf-settings), METRICS_DIR (default
# lib/metrics).
set -eu
LC_ALL=C
export LC_ALL
me=mkconf5.sh
: "${VERSION:?}" "${SBINDIR:=/usr/sbin}" "${LIBEXECDIR:=/usr/libexec}" "${DATADIR:=/usr/share}"
: "${DOCDIR:=$DATADIR/doc/sshd-perf-kit}" "${SYSCONFDIR:=/etc}" "${LOCALSTATEDIR:=/var}"
: "${SETTINGS_HELPER:=build/sshperf-settings}" "${METRICS_DIR:=lib/metrics}"

# A value in a sed replacement: \, & and the delimiter | escaped.
sedval () {
	printf '%s' "$1" | sed 's/[\\&|]/\\&/g'
}
subst () {
	sed -e "s|@VERSION@|$(sedval "$VERSION")|g" \
	    -e "s|@SBINDIR@|$(sedval "$SBINDIR")|g" \
	    -e "s|@LIBEXECDIR@|$(sedval "$LIBEXECDIR")|g" \
	    -e "s|@DATADIR@|$(sedval "$DATADIR")|g" \
	    -e "s|@DOCDIR@|$(sedval "$DOCDIR")|g" \
	    -e "s|@SYSCONFDIR@|$(sedval "$SYSCONFDIR")|g" \
	    -e "s|@LOCALSTATEDIR@|$(sedval "$LOCALSTATEDIR")|g" "$@"
}

if [ "${1:-}" = --subst ]; then
	[ "$#" -eq 2 ] || { echo "usage: $me --subst FILE" >&2; exit 2; }
	out=$(subst "$2")
	case $out in *@[A-Z]*@*) echo "$me: $2: a placeholder is left: $(printf '%s\n' "$out" | grep -m1 '@[A-Z]*@')" >&2; exit 1 ;; esac
	printf '%s\n' "$out"
	exit 0
fi
[ "$#" -eq 2 ] || { echo "usage: $me SETTINGS_CONF SCHEMA | $me --subst FILE" >&2; exit 2; }
conf=$1 schema=$2
[ -x "$SETTINGS_HELPER" ] || { echo "$me: $SETTINGS_HELPER is not built (make builds it first)" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mkconf5.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The allowed forms, one "NAME<tab>form" per setting of the schema.
"$SETTINGS_HELPER" -s "$schema" -l >"$tmp/forms"
# The defaults, checked by the same helper as every run checks them, with
# no environment that could override one: a setting missing from the file,
# one the schema does not know, or a default it refuses, stops the build.
if ! env -i "$SETTINGS_HELPER" -s "$schema" -f "$conf" >"$tmp/defaults" 2>"$tmp/err"; then
	echo "$me: $conf and $schema disagree: $(cat "$tmp/err")" >&2
	exit 1
fi
# Which way each target is compared: 'verdict "$figure" "<=" "${SETTING[TARGET_X]}"'
# or 'result_second TEST "<=" "${SETTING[TARGET_X]}" ...' (a second target,
# lib/measure.sh) in lib/metrics/TEST.sh (settings come through SETTING,
# lib/common.sh);
# "TARGET_X TEST OP" lines.
for f in "$METRICS_DIR"/*.sh; do
	[ -f "$f" ] || continue
	# shellcheck disable=SC2016 # the pattern matches the literal ${SETTING[...]} text
	sed -n 's/.*\(verdict\|result_second\) .*"\([<>]=\)" "\${SETTING\[\(TARGET_[A-Z0-9_]*\)\]}".*/\3 \2/p' "$f" |
		while read -r t op; do printf '%s %s %s\n' "$t" "$(basename "$f" .sh)" "$op"; done
done | sort -u >"$tmp/ops"

awk -v forms="$tmp/forms" -v defaults="$tmp/defaults" -v ops="$tmp/ops" \
    -v version="$VERSION" -v etc="$SYSCONFDIR" -v var="$LOCALSTATEDIR" \
    -v conf="$conf" -v me="$me" '
# Text for roff: backslashes and a leading . or '\'' made harmless, - as \-.
function roff(s) {
	gsub(/\\/, "\\e", s)
	gsub(/-/, "\\-", s)
	if (s ~ /^[.\047]/) s = "\\&" s
	return s
}
function fail(msg) { print me ": " conf ": " msg > "/dev/stderr"; bad = 1; exit 1 }
BEGIN {
	while ((getline l < forms) > 0) {
		n = index(l, "\t"); form[substr(l, 1, n - 1)] = substr(l, n + 1)
		schema_order[++nschema] = substr(l, 1, n - 1)
	}
	while ((getline l < defaults) > 0) {
		n = index(l, "=")
		v = substr(l, n + 1); sub(/^\047/, "", v); sub(/\047$/, "", v)
		def[substr(l, 1, n - 1)] = v
	}
	while ((getline l < ops) > 0) {
		split(l, w, " ")
		t = "\\fB" w[2] "\\fR"
		if (w[1] in optest) t = optest[w[1]] " and " t
		optest[w[1]] = t
		opdir[w[1]] = w[3]
	}
	section = ""; comment = ""; intro = 1
}
/^##/ {
	t = $0; sub(/^##+[ \t]*/, "", t); sub(/[ \t#]*$/, "", t)
	section = t; comment = ""; intro = 0; next
}
intro { next }
/^#/ { t = $0; sub(/^#[ \t]?/, "", t); comment = (comment == "" ? t : comment " " t); prev = ""; next }
/^[ \t]*$/ { comment = ""; prev = ""; next }
/^[A-Z][A-Z0-9_]*=/ {
	name = substr($0, 1, index($0, "=") - 1)
	if (!(name in form)) fail("setting " name " is not in the schema")
	# Settings on consecutive lines share the comment above the first.
	if (comment == "" && prev != "") comment = desc[prev]
	prev = name
	if (comment == "") fail("setting " name " has no description: add a comment line above it")
	order[++n_set] = name; desc[name] = comment; sect[name] = section
	comment = ""; next
}
{ fail("line " NR " is neither a comment, a section title nor NAME=value: " $0) }
END {
	if (bad) exit 1
	for (i = 1; i <= nschema; i++)
		if (!(schema_order[i] in desc)) fail("setting " schema_order[i] " of the schema is not in the file")
	print ".\\\" Generated by man/mkconf5.sh from settings.conf and lib/settings.schema; do not edit."
	print ".TH SSHD\\-PERF\\-KIT.CONF 5 \"\" \"sshd\\-perf\\-kit " version "\" \"File Formats Manual\""
	print ".SH NAME"
	print "sshd\\-perf\\-kit.conf \\- settings and targets of sshd\\-perf\\-kit"
	print ".SH SYNOPSIS"
	print ".I " roff(etc "/sshd-perf-kit/settings.conf")
	print ".SH DESCRIPTION"
	print "The settings file of"
	print ".BR sshd\\-perf\\-kit (8)"
	print "holds the knobs of the test server and of each test, and the targets a"
	print "figure is judged against (PASS or FAIL in the report)."
	print "Each line is"
	print ".IB NAME = value\\fR;"
	print "a value with spaces is put in double quotes, a line starting with"
	print ".B #"
	print "is a comment."
	print ".PP"
	print "An environment variable with the name of a setting, or an argument"
	print ".IB NAME = value"
	print "after the command"
	print ".RB ( \"sshd\\-perf\\-kit test login LOGIN_SAMPLES=5\" ),"
	print "replaces the value of the file for that one command."
	print ".PP"
	print "Every value is checked before the kit changes anything on the host."
	print "A value that is not of the allowed form stops the command with one line"
	print "that names the setting and the allowed form, and exit status 2."
	print "Every setting must be in the file: delete none, change the value."
	print ".PP"
	print "Settings marked"
	print ".I server"
	print "are written into the test server configuration by"
	print ".BR \"sshd\\-perf\\-kit start\" ;"
	print "run it again after a change (it restarts the test server when needed)."
	print "The others are read by each"
	print ".BR \"sshd\\-perf\\-kit test\" ."
	print ".PP"
	print "The package installs the file as a configuration file: an edited copy is"
	print "kept on upgrade, and saved as"
	print ".I settings.conf.rpmsave"
	print "when the package is removed."
	print ".SH SETTINGS"
	last = ""
	for (i = 1; i <= n_set; i++) {
		name = order[i]
		if (sect[name] != last) { print ".SS \"" roff(sect[name]) "\""; last = sect[name] }
		d = desc[name]; server = 0
		if (d ~ /^\(server\) /) { server = 1; sub(/^\(server\) /, "", d) }
		v = def[name]
		print ".TP"
		print ".B " name
		if (d != "") print roff(d)
		if (server) print "(\\fIserver\\fR: applied by \\fBsshd\\-perf\\-kit start\\fR.)"
		print ".br"
		print "Allowed: " roff(form[name]) "."
		print ".br"
		if (v == "") print "Default: empty."
		else if (v ~ /[ \t]/) print "Default: \\fB\"" roff(v) "\"\\fR."
		else print "Default: \\fB" roff(v) "\\fR."
		if (name ~ /^TARGET_/) {
			print ".br"
			if (name in opdir)
				print "Target: test " optest[name] " passes only when its figure is " (opdir[name] == "<=" ? "at most" : "at least") " this (" opdir[name] ")."
			else
				fail("target " name " is compared by no test (no verdict line in lib/metrics)")
		}
	}
	print ".SH ENVIRONMENT"
	print ".TP"
	print ".B SETTINGS_FILE"
	print "another settings file instead of this one (same format)."
	print ".TP"
	print ".I NAME"
	print "any setting above, for one command."
	print ".SH FILES"
	print ".TP"
	print ".I " roff(etc "/sshd-perf-kit/settings.conf")
	print "this file, when the kit is installed as a package;"
	print ".I settings.conf"
	print "at the top of a source checkout."
	print ".TP"
	print ".I " roff(var "/lib/sshd-perf-kit/results/")
	print "the runs, when"
	print ".B RESULTS_DIR"
	print "is empty."
	print ".SH SEE ALSO"
	print ".BR sshd\\-perf\\-kit (8),"
	print ".BR sshd_config (5)"
}' "$conf"
