#!/usr/bin/env bash
# results-json.sh RUN_DIR [PREVIOUS_RUN_DIR]: writes RUN_DIR/results.json
# from the run's data files: the kit, the run, the verdict, the
# environment, every setting, every key of every test and the rows of the
# report's tables (raw/*.tsv and the per-method and per-client keys).
# The format is documented in docs/results-json.md and
# docs/results.schema.json. Called by lib/bin/render.sh
# after the verdict (data/verdict.env) and the warnings (data/warnings.txt)
# are known. Needs only bash, sed and awk.
#
# The file is always valid JSON in UTF-8: a byte sequence that is not UTF-8
# (a CPU model or host name in Latin-1, say) is replaced by U+FFFD, and a
# warning (on stderr and in "warnings") names the file and key. Each key's
# JSON type comes from the schemas: docs/results.schema.json for the run,
# environment and test keys it declares, lib/settings.schema for the
# settings; only undeclared keys are typed by how their value looks.
set -eu
KIT_DIR=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
RUN_DIR=${1:?usage: results-json.sh RUN_DIR [PREVIOUS_RUN_DIR]}
PREV_DIR=${2:-}
DATA_DIR="$RUN_DIR/data"
RESULTS_SCHEMA="$KIT_DIR/docs/results.schema.json"
SCHEMA_FILE="$KIT_DIR/lib/settings.schema"
if [ -f "$KIT_DIR/lib/paths.sh" ]; then
	# shellcheck source=/dev/null
	. "$KIT_DIR/lib/paths.sh"
fi
# shellcheck source=lib/compare.sh
. "$KIT_DIR/lib/compare.sh"
export LC_ALL=C

# shellcheck source=lib/json.sh
. "$KIT_DIR/lib/json.sh"
# shellcheck source=lib/atexit.sh
. "$KIT_DIR/lib/atexit.sh"

# The declared types: "SECTION KEY TYPES" lines (TYPES like number,null)
# for SECTION run, environment, test and row_TEST_TABLE (the columns of a
# table, in order) from the JSON schema (one property per line, as the
# file is written; an enum or $ref of strings is a string; a pattern of
# patternProperties is KEY "~REGEX"), and settings from lib/settings.schema
# (int, num and port are numbers, every other kind a string).
at_exit_owner
TYPES=$(mktemp "${TMPDIR:-/tmp}/results-json.XXXXXX")
ROWS="$TYPES.rows"
at_exit rm -f -- "$TYPES" "$ROWS" "$ROWS.json" "$RUN_DIR/results.json.tmp"
{
	awk '
	/^    "[^"]*": \{ *$/ { s = $1; gsub(/[":]/, "", s); sect = (s == "run" || s == "environment" || s == "test" || s ~ /^row_[a-z]+_[a-z]+$/) ? s : ""; next }
	/^    "/ { sect = ""; next }
	sect != "" && /^        "([a-z_0-9]+|\^[^" ]*)": \{/ {
		k = $1; sub(/^"/, "", k); sub(/":$/, "", k)
		if (k ~ /^\^/) k = "~" k
		t = ""
		if (match($0, /"type": *\[[^]]*\]/) || match($0, /"type": *"[a-z]+"/)) {
			t = substr($0, RSTART, RLENGTH); sub(/"type": */, "", t); gsub(/[][" ]/, "", t)
		} else if ($0 ~ /"enum": *\["/ || $0 ~ /"\$ref": *"#\/\$defs\/status"/) t = "string"
		if (t != "") print sect, k, t
	}' "$RESULTS_SCHEMA" 2>/dev/null || true
	awk '/^[A-Z][A-Z0-9_]*[ \t]/ { print "settings", $1, ($2 == "int" || $2 == "num" || $2 == "port") ? "number" : "string" }' \
		"$SCHEMA_FILE" 2>/dev/null || true
} >"$TYPES"

# kv_members SECTION INDENT [FILE...]: the key=value lines of the files (or
# stdin) as JSON object members, one per line, in the order of first
# appearance; the last value of a key wins, typed as SECTION declares it.
# Lines that are not key=value are skipped. With QUOTED=1, values in single
# quotes (settings.env) are unquoted; with MORE=1 the last member ends in a
# comma too (more members follow).
kv_members () {
	local section=$1 indent=$2
	shift 2
	awk -v ind="$indent" -v quoted="${QUOTED:-}" -v more="${MORE:-}" -v section="$section" -v types="$TYPES" "$JSON_AWK"'
	BEGIN {
		while ((getline l < types) > 0) {
			split(l, w, " ")
			if (w[1] != section) continue
			if (w[2] ~ /^~/) { P[++np] = substr(w[2], 2); PT[np] = w[3] } else T[w[2]] = w[3]
		}
	}
	# The declared type of a key: its own, else that of the first pattern
	# it matches, else none (the value rule).
	function ktype(k,    i) {
		if (k in T) return T[k]
		for (i = 1; i <= np; i++) if (k ~ P[i]) return PT[i]
		return ""
	}
	/^[A-Za-z_][A-Za-z0-9_.-]*=/ {
		k = substr($0, 1, index($0, "=") - 1)
		v = substr($0, index($0, "=") + 1)
		if (quoted && v ~ /^\047.*\047$/) v = substr(v, 2, length(v) - 2)
		if (!(k in val)) order[++n] = k
		val[k] = v
	}
	END {
		for (i = 1; i <= n; i++)
			printf "%s%s: %s%s\n", ind, jstr(order[i]), jtyped(val[order[i]], ktype(order[i])), (i < n || more ? "," : "")
	}' "$@"
}

# json_list TYPE WORDS...: a JSON array of the words as TYPE (number: a
# word that is a number is a number, string: always a string).
json_list () {
	local type=$1
	shift
	printf '%s\n' "$@" | awk -v t="$type" "$JSON_AWK"'
	NF { out = out (n++ ? ", " : "") jtyped($0, t) }
	END { printf "[%s]", out }'
}

# json_str TEXT: one JSON string. Printable ASCII without " and \ is
# written by the shell itself (most names and values; an awk is a fork
# and an exec); anything else by jstr, line by line.
json_str () {
	case $1 in
	*[!\ -~]* | *'"'* | *'\'*) printf '%s\n' "$1" | awk "$JSON_AWK"'{ printf "%s", jstr($0) }' ;;
	*) printf '"%s"' "$1" ;;
	esac
}

# json_str_to VAR TEXT: json_str into VAR; without a $(...) (a fork) for
# the text json_str writes itself.
json_str_to () {
	case $2 in
	*[!\ -~]* | *'"'* | *'\'*) printf -v "$1" '%s' "$(json_str "$2")" ;;
	*) printf -v "$1" '"%s"' "$2" ;;
	esac
}

# json_str_or_null TEXT: one JSON string, null when TEXT is empty.
json_str_or_null () {
	if [ -n "$1" ]; then json_str "$1"; else printf null; fi
}

# json_num_or_null VALUE
json_num_or_null () {
	if is_number "$1"; then printf '%s' "$1"; else printf null; fi
}

# The tables of the report that results.json carries, "TEST TABLE FILE"
# lines: tests.TEST.tables.TABLE holds the rows of raw/FILE, one object
# per row. The columns, their order and their types are those of the
# schema's $defs/row_TEST_TABLE, the header of FILE in docs/data.md
# (tests/t09-data.sh checks that they agree); the file is read by those
# names (lib/data.sh). auth.tables.methods and interactive.tables.clients
# are made from the METHOD_* and CLIENT_* keys of their data files
# (key_rows).
JSON_TABLES="startup rounds startup-rounds.tsv
rate sweep rate-sweep.tsv
burst steps burst-steps.tsv
transfer runs transfer-runs.tsv
transfer ceiling transfer-ceiling.tsv
sftp runs sftp-runs.tsv
reload whose reload-whose.tsv
shell parts shell-parts.tsv"

# TABLE_COLUMNS[row_TEST_TABLE]: the declared columns of the table, in
# order, space-separated; read once (not an awk per table and test).
declare -A TABLE_COLUMNS=()
while read -r sect_ key_ _; do
	case $sect_ in row_*) TABLE_COLUMNS[$sect_]+="${TABLE_COLUMNS[$sect_]:+ }$key_" ;; esac
done <"$TYPES"
unset sect_ key_

# table_columns TEST TABLE: the declared columns of the table, in order.
table_columns () {
	printf '%s' "${TABLE_COLUMNS[row_$1_$2]-}"
}

# json_rows TEST TABLE INDENT: the tab-separated rows on stdin (the
# declared columns, in order) as a JSON array of objects, one per line,
# each cell typed as its column declares ("-", not known, is null where
# the column allows null).
json_rows () {
	awk -F'\t' -v s="row_$1_$2" -v ind="$3" -v types="$TYPES" "$JSON_AWK"'
	BEGIN { while ((getline l < types) > 0) { split(l, w, " "); if (w[1] == s) { c[++nc] = w[2]; T[nc] = w[3] } } }
	length($0) == 0 { next }
	{
		o = ""
		for (i = 1; i <= nc; i++) o = o (i > 1 ? ", " : "") jstr(c[i]) ": " jtyped($i, T[i])
		rows[++n] = "{" o "}"
	}
	END {
		printf "["
		for (i = 1; i <= n; i++) printf "\n%s  %s%s", ind, rows[i], (i < n ? "," : "")
		if (n) printf "\n%s", ind
		printf "]"
	}'
}

# key_rows TEST TABLE WORD...: one row per WORD (a method of auth, a
# client of interactive), the declared columns from the keys WORD_COLUMN
# of data/TEST.env; the table's first column is the word itself, and
# auth's column used is METHOD_method (what ssh -v reported).
key_rows () {
	local test=$1 table=$2 env="$DATA_DIR/$1.env" w c v cols first row
	shift 2
	cols=${TABLE_COLUMNS[row_${test}_$table]-}
	first=${cols%% *}
	for w in "$@"; do
		row=()
		for c in $cols; do
			case $test.$c in
			"$test.$first") v=$w ;;
			auth.used) kv_cached_to v "$env" "${w}_method" ;;
			*) kv_cached_to v "$env" "${w}_$c" ;;
			esac
			v=${v//$'\t'/ }
			row+=("${v:--}")
		done
		(IFS=$'\t'; printf '%s\n' "${row[*]}")
	done
}

# key_table_words TEST: the rows of TEST's key table: auth's methods (its
# key methods), interactive's clients (those that ran: CLIENT_exit set,
# as the report's table).
key_table_words () {
	local c
	case $1 in
	auth) get "$DATA_DIR/auth.env" methods ;;
	interactive)
		for c in libssh ssh; do
			[ -z "$(get "$DATA_DIR/interactive.env" "${c}_exit")" ] || printf '%s\n' "$c"
		done ;;
	esac
}

# test_tables NAME: TEST_TABLES gets the test's member "tables" (nothing
# when it has no table in this run). A table whose file is missing is
# left out; a declared column its file lacks (a run of an older kit) is
# null. In this shell: the tables go through a file, not a $(...) each.
test_tables () {
	local name=$1 test table file sep="" tables
	TEST_TABLES=""
	{
		while read -r test table file; do
			[ "$test" = "$name" ] || continue
			# shellcheck disable=SC2046 # the column names are words
			TSV_ABSENT=- tsv_select "$RUN_DIR/raw/$file" ${TABLE_COLUMNS[row_${test}_$table]-} >"$ROWS" || continue
			json_str_to tables "$table"
			printf '%s        %s: ' "$sep" "$tables"
			json_rows "$test" "$table" '        ' <"$ROWS"
			sep=$',\n'
		done <<<"$JSON_TABLES"
		case $name in auth) table=methods ;; interactive) table=clients ;; *) table="" ;; esac
		if [ -n "$table" ]; then
			# shellcheck disable=SC2046 # the words are words
			key_rows "$name" "$table" $(key_table_words "$name") >"$ROWS"
			if [ -s "$ROWS" ]; then
				json_str_to tables "$table"
				printf '%s        %s: ' "$sep" "$tables"
				json_rows "$name" "$table" '        ' <"$ROWS"
				sep=$',\n'
			fi
		fi
	} >"$ROWS.json"
	[ -s "$ROWS.json" ] || return 0
	IFS= read -r -d '' tables <"$ROWS.json" || true
	# Without its line ends at the end, as "$(cat ...)" had it.
	tables=${tables%"${tables##*[!$'\n']}"}
	printf -v TEST_TABLES '      "tables": {\n%s\n      }' "$tables"
}

# The run is finished: its data files are read once, here in the main
# shell (lib/data.sh), so that every $(...) finds them.
get () {
	kv_cached "$@"
}
kv_load_run "$RUN_DIR" ${PREV_DIR:+"$PREV_DIR"}

# The members of one test: its data file, then the kit's own keys.
test_members () {
	local name=$1 env="$DATA_DIR/$1.env" judged decision figure target direction text=""
	# The data file and the kit's keys as one text, to kv_members by a
	# here-string: no cat, no subshell for a { ...; } | pipe. The line end
	# the here-string adds makes an empty last line, which kv_members
	# skips, as every line that is not key=value.
	if [ -f "$env" ]; then
		IFS= read -r -d '' text <"$env" || true
	else
		case " $tests_run " in
		*" $name "*)
			if [ -n "$(not_run_reason "$run")" ]; then
				text+="status=SKIPPED"$'\n'"reason=not run, $(not_run_reason "$run")"$'\n'
			else
				text+=$'status=ERROR\nreason=the test stopped before it wrote a result\n'
			fi ;;
		*) text+=$'status=SKIPPED\nreason=not part of this version of the kit\n' ;;
		esac
	fi
	# figure and target are always present (null when missing).
	kv_cached_to figure "$env" figure
	kv_cached_to target "$env" target
	metric_direction_to direction "$RUN_DIR" "$name"
	text+="figure=${figure:--}"$'\n'"target=${target:--}"$'\n'"direction=$direction"$'\n'
	if [ -n "$PREV_DIR" ]; then
		text+=$(
			printf 'change=%s\n' "$(val_or_dash "$(test_change "$PREV_DIR" "$RUN_DIR" "$name")")"
			printf 'change_percent=%s\n' "$(val_or_dash "$(test_change "$PREV_DIR" "$RUN_DIR" "$name" | sed 's/ %.*//; s/^+//')")"
			# Whether the change is more than the noise, as in --compare.
			decision=$(judge_decide "$PREV_DIR" "$RUN_DIR" "$name")
			judged=""
			[ -z "$decision" ] || judged=$(printf '%s\n' "$decision" | judge_text)
			printf 'change_significance=%s\n' "$(val_or_dash "$(judge_word "$decision")")"
			printf 'change_test=%s\n' "$(val_or_dash "$judged")"
		)$'\n'
	fi
	kv_members test '      ' <<<"$text"
}

# json_tsv_array NAME TABLE COLUMNS: ",\n  "NAME": [rows]" of a raw table, one
# object per row with every column named (numbers as numbers, - as
# null); nothing when the run has no such table.
json_tsv_array () {
	[ -f "$2" ] || return 0
	printf ',\n  %s: [' "$(json_str "$1")"
	# shellcheck disable=SC2086 # a word list
	tsv_select "$2" $3 | awk -F'\t' -v cols="$3" "$JSON_AWK"'
		BEGIN { nc = split(cols, c, " ") }
		{
			o = ""
			for (i = 1; i <= nc; i++) {
				v = $i
				j = (v == "-" || v == "") ? "null" : (v ~ /^-?[0-9]+([.][0-9]+)?$/) ? v : jstr(v)
				o = o (i > 1 ? ", " : "") jstr(c[i]) ": " j
			}
			printf "%s\n    {%s}", (NR > 1 ? "," : ""), o
		}
		END { if (NR) printf "\n  " }'
	printf ']'
}

val_or_dash () {
	if [ -z "$1" ]; then printf -- '-'; else printf '%s' "$1"; fi
}

run="$DATA_DIR/run.env"
[ -f "$run" ] || { printf 'results-json.sh: %s is not a run folder (no data/run.env)\n' "$RUN_DIR" >&2; exit 2; }
tests_run=$(get "$run" tests)
all_tests=$(get "$run" all_tests)
secs=-
if [ -n "$(get "$run" started)" ] && [ -n "$(get "$run" finished)" ]; then
	secs=$(awk -v a="$(date -d "$(get "$run" started)" +%s 2>/dev/null || echo 0)" \
		-v b="$(date -d "$(get "$run" finished)" +%s 2>/dev/null || echo 0)" \
		'BEGIN { if (a > 0 && b >= a) print b - a; else print "-" }')
fi
listed=""
for name in $METRICS; do
	if [ -f "$DATA_DIR/$name.env" ]; then listed="$listed $name"; continue; fi
	case " $tests_run " in *" $name "*) listed="$listed $name"; continue ;; esac
	[ "$all_tests" != yes ] || listed="$listed $name"
done
# Tests this kit does not know (a newer metric) still go in, after the others.
for name in $tests_run; do
	case " $METRICS " in *" $name "*) ;; *) listed="$listed $name" ;; esac
done

# Where a data file has bytes that are not UTF-8: "FILE KEY" lines, and
# one warning each in results.json and on stderr.
# One awk for all the files.
utf8_files=()
for f in "$DATA_DIR"/*.env "$DATA_DIR/warnings.txt"; do
	[ ! -f "$f" ] || utf8_files+=("$f")
done
bad_utf8=""
[ "${#utf8_files[@]}" -eq 0 ] || bad_utf8=$(awk "$JSON_AWK"'
	FNR == 1 { f = FILENAME; sub(/.*\//, "", f); f = "data/" f }
	{ before = BAD; utf8fix($0); if (BAD > before) { k = $0; sub(/=.*/, "", k); if (k == $0) k = "line " FNR; print f, k } }' "${utf8_files[@]}")
utf8_warning () {
	printf '%s\n' "$bad_utf8" | awk 'NF { v = ($1 in k) ? k[$1] ", " $2 : $2; k[$1] = v }
	END { for (f in k) printf "results.json: %s has bytes that are not UTF-8 (%s); they were replaced by U+FFFD\n", f, k[f] }' | sort
}
if [ -n "$bad_utf8" ]; then
	utf8_warning | sed 's/^/results-json.sh: /' >&2
fi

# shellcheck disable=SC2046,SC2086 # word lists
{
	printf '{\n'
	printf '  "format": "sshd-perf-kit-results",\n  "format_version": 2,\n'
	printf '  "kit": {\n'
	printf '    "version": %s,\n' "$(json_str_or_null "$(get "$run" kit_version)")"
	printf '    "release": %s,\n' "$(json_str_or_null "$(get "$run" kit_release)")"
	printf '    "commit": %s\n' "$(json_str_or_null "$(get "$run" kit_commit)")"
	printf '  },\n'
	printf '  "run": {\n'
	printf '    "id": %s,\n' "$(json_str "$(basename "$(cd "$RUN_DIR" && pwd)")")"
	printf '    "started": %s,\n' "$(json_str "$(get "$run" started)")"
	printf '    "started_local": %s,\n' "$(json_str "$(get "$run" started_local)")"
	if [ -n "$(get "$run" finished)" ]; then
		printf '    "finished": %s,\n' "$(json_str "$(get "$run" finished)")"
	else
		printf '    "finished": null,\n'
	fi
	printf '    "seconds": %s,\n' "$(json_num_or_null "$secs")"
	printf '    "tests": %s,\n' "$(json_list string $tests_run)"
	printf '    "all_tests": %s,\n' "$([ "$all_tests" = yes ] && echo true || echo false)"
	printf '    "interrupted": %s,\n' "$([ "$(get "$run" interrupted)" = yes ] && echo true || echo false)"
	printf '    "load_before": %s,\n' "$(json_list number,string $(get "$run" load_before))"
	printf '    "load_after": %s,\n' "$(json_list number,string $(get "$run" load_after))"
	if [ -n "$PREV_DIR" ]; then
		printf '    "previous_run": %s\n' "$(json_str "$(basename "$PREV_DIR")")"
	else
		printf '    "previous_run": null\n'
	fi
	printf '  },\n'
	printf '  "verdict": %s,\n' "$(json_str "$(get "$DATA_DIR/verdict.env" verdict)")"
	printf '  "warnings": ['
	if [ -s "$DATA_DIR/warnings.txt" ] || [ -n "$bad_utf8" ]; then
		printf '\n'
		{ cat "$DATA_DIR/warnings.txt" 2>/dev/null || true; utf8_warning; } |
			awk "$JSON_AWK"'{ printf "%s    %s", (NR > 1 ? ",\n" : ""), jstr($0) } END { printf "\n" }'
		printf '  '
	fi
	printf '],\n'
	printf '  "environment": {\n'
	kv_members environment '    ' "$DATA_DIR/environment.env" 2>/dev/null || true
	printf '  },\n'
	printf '  "settings": {\n'
	grep -v '^SETTINGS_FROM_ENV=' "$DATA_DIR/settings.env" 2>/dev/null | QUOTED=1 kv_members settings '    '
	printf '  },\n'
	printf '  "settings_from_env": %s,\n' "$(json_list string $(get "$DATA_DIR/settings.env" SETTINGS_FROM_ENV | tr -d "'"))"
	printf '  "tests": {'
	sep="" name_json=""
	for name in $listed; do
		json_str_to name_json "$name"
		printf '%s\n    %s: {\n' "$sep" "$name_json"
		test_tables "$name"
		MORE=${TEST_TABLES:+1} test_members "$name"
		[ -z "$TEST_TABLES" ] || printf '%s\n' "$TEST_TABLES"
		printf '    }'
		sep=,
	done
	[ -z "$sep" ] || printf '\n  '
	printf '}'
	# The distances (raw/wire.tsv, lib/wire.sh): only in a run that had
	# any, one object per row, every column of docs/data.md (the table's
	# own header: a run of an older kit has fewer).
	[ ! -f "$RUN_DIR/raw/wire.tsv" ] ||
		json_tsv_array distance "$RUN_DIR/raw/wire.tsv" "$(head -n 1 "$RUN_DIR/raw/wire.tsv" | tr '\t' ' ')"
	# MaxStartups, rate and burst at each distance (lib/wire-load.sh):
	# every column of raw/wire-maxstartups.tsv and raw/wire-load.tsv.
	json_tsv_array distance_maxstartups "$RUN_DIR/raw/wire-maxstartups.tsv" "rtt_ms max_startups begin auth_ms predicted_per_s below_per_s below_drops above_per_s above_drops outcome"
	json_tsv_array distance_load "$RUN_DIR/raw/wire-load.tsv" "rtt_ms test step clients offered_per_s achieved_per_s ok failed log_drops startups_max startups_p50 startups_mean auth_ms status note"
	printf '\n}\n'
} >"$RUN_DIR/results.json.tmp"
mv -f "$RUN_DIR/results.json.tmp" "$RUN_DIR/results.json"
