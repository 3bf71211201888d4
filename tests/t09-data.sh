#!/usr/bin/env bash
# The data contract, docs/data.md: every raw table's documented header is
# the one its writer prints, and every key a metric sets by name is in its
# data file's documented list. Needs no root and no test server.
. "$(dirname "$0")/lib/harness.sh"
DOC="$KIT_DIR/docs/data.md"

# tables: "NAME<TAB>SOURCE<TAB>HEADER (tab-joined as 	)" per documented raw
# table, or a helper's output such as process-list (the kit's own tables,
# such as selinux/expectations.tsv, are checked by their readers' tests).
tables () {
	awk '/^### / { name = "" }
		/^### (raw\/|process-list)/ { name = $2; sub(/^raw\//, "", name); src = ""; next }
		name != "" && /the header is in `/ { s = $0; sub(/.*the header is in `/, "", s); sub(/`.*/, "", s); src = s }
		name != "" && /^```header$/ { getline h; gsub(/ /, "\\t", h); printf "%s\t%s\t%s\n", name, src, h; name = "" }' "$DOC"
}

# parts: "NAME<TAB>WRITERS<TAB>READERS" per documented table (the files
# named on its Written by and Read by lines, space-separated).
parts () {
	awk 'function files(s,   out, w, n, i) {
			n = split(s, w, /[ ,;():`]+/)
			for (i = 1; i <= n; i++) if (sub(/\.$/, "", w[i]) >= 0 && w[i] ~ /^(lib|helpers|tests)\/[a-z0-9\/_-]+\.(sh|c)$/) out = out (out == "" ? "" : " ") w[i]
			return out
		}
		/^### raw\// { if (name != "") print name "\t" wr "\t" rd; name = substr($2, 5); wr = rd = ""; next }
		/^## / && name != "" { print name "\t" wr "\t" rd; name = "" }
		name != "" && /^- Written by: / { s = $0; sub(/; the header is in .*/, "", s); wr = files(s) }
		name != "" && /^- Read by: / { rd = files($0) }
		END { if (name != "") print name "\t" wr "\t" rd }' "$DOC"
}

# pieces NAME: the literal parts of a table's file name, one per line
# (METHOD, CLIENT, NAME and N stand for a part that varies); a probe's
# table is named after its raw prefix, "probe-X", and the rest.
pieces () {
	local n=${1%.tsv}
	case $n in probe-*-*) printf '%s\n' "${n%%-*}-$(cut -d- -f2 <<<"$n")"; n=${n#probe-*-} ;; esac
	printf '%s\n' "$n" | sed -E 's/[A-Z]+/\n/g' | sed -E 's/^-+//; s/-+$//' | grep .
}

# keys NAME: the documented keys of data/NAME.env, one per line
# (METHOD_ and CLIENT_ stand for any method or client name).
keys () {
	awk -v want="### data/$1.env" '$0 == want { on = 1; next } on && /^```keys$/ { getline k; print k; exit }' "$DOC" | tr ' ' '\n'
}

test_expect 'docs/data.md declares the tables the charts and reports read' '
	tables >t.txt &&
	for n in burst-steps.tsv transfer-runs.tsv transfer-ceiling.tsv rate-sweep.tsv login-samples.tsv; do
		test_grep "^$n	" t.txt || { echo "$n is not declared"; return 1; }
	done &&
	[ "$(wc -l <t.txt)" -ge 15 ]
'

# A helper prints the header tab-joined (a C string); a shell writer
# declares it once, NAME_COLUMNS="a b c", and writes it from there
# (tsv_header and tsv_row, lib/data.sh).
test_expect 'every declared header is the one its writer prints' '
	tables | while IFS="	" read -r name src head; do
		[ -f "$KIT_DIR/$src" ] || { echo "$name: no $src"; return 1; }
		words=$(printf "%s" "$head" | sed "s/\\\\t/ /g")
		case $src in
		*.sh) grep -qE "^[A-Z_]+_COLUMNS=\"$words\"\$" "$KIT_DIR/$src" ||
			{ echo "$name: $src does not declare $words"; return 1; } ;;
		*)	# C string literals split over lines are joined first.
			tr "\n" " " <"$KIT_DIR/$src" | sed "s/\"[[:space:]]*\"//g" | grep -qF -- "$head" ||
			{ echo "$name: $src does not print $head"; return 1; } ;;
		esac
	done
'

test_expect 'a table declared by its columns is written from them, and its writer prints no header of its own' '
	grep -l "^[A-Z_]*_COLUMNS=\"" "$KIT_DIR"/lib/metrics/*.sh "$KIT_DIR"/lib/probes/*.sh >cols.txt &&
	[ -s cols.txt ] &&
	while read -r f; do
		for v in $(sed -n "s/^\([A-Z_]*_COLUMNS\)=.*/\1/p" "$f"); do
			grep -qE "tsv_(header|row) [^|]*\\\$$v|cols=\"\\\$$v\"" "$f" || { echo "$f: $v is declared but writes nothing"; return 1; }
		done
		! grep -nE "printf [^|]*(\\\\t[a-z0-9_]+){4}" "$f" || { echo "$f prints a table row or header by hand"; return 1; }
	done <cols.txt
'

# schema_rows: "FILE<TAB>COLUMNS" per row definition of
# docs/results.schema.json that names its raw table (as results-json.sh
# reads the file: one property per line).
schema_rows () {
	awk '/^    "row_[a-z]+_[a-z]+": \{ *$/ { on = 1; file = ""; cols = ""; next }
		on && /^    [}"]/ { if (file != "") print file "\t" substr(cols, 2); on = 0 }
		on && /"description": "[a-z.]+: raw\/[a-z0-9-]+\.tsv/ { file = $0; sub(/.*: raw\//, "", file); sub(/\.tsv.*/, ".tsv", file) }
		on && /^        "[a-z_0-9]+": \{/ { k = $1; gsub(/[":]/, "", k); cols = cols " " k }' "$KIT_DIR/docs/results.schema.json"
}

test_expect 'results.json tables have the columns of their raw table, in its order' '
	schema_rows >rows.txt && [ "$(wc -l <rows.txt)" -ge 6 ] &&
	tables >t.txt &&
	while IFS="	" read -r file cols; do
		head=$(awk -F"\t" -v f="$file" "\$1 == f { print \$3 }" t.txt | sed "s/\\\\t/ /g")
		[ -n "$head" ] || { echo "$file: the schema names it, docs/data.md does not declare it"; return 1; }
		test_eq "$cols" "$head" || { echo "in $file"; return 1; }
		grep -qF -- "${file%.tsv}" "$KIT_DIR/lib/bin/results-json.sh" || { echo "lib/bin/results-json.sh does not read $file"; return 1; }
	done <rows.txt
'

test_expect 'the writers and readers docs/data.md names exist and name the file' '
	parts >p.txt && [ "$(wc -l <p.txt)" -eq "$(grep -c "^### raw/" "$DOC")" ] &&
	while IFS="	" read -r name wr rd; do
		[ -n "$wr" ] || { echo "$name: no writer named"; return 1; }
		for f in $wr $rd; do
			[ -f "$KIT_DIR/$f" ] || { echo "$name: $f does not exist"; return 1; }
		done
		for piece in $(pieces "$name"); do
			# shellcheck disable=SC2086 # the file lists are words
			(cd "$KIT_DIR" && test_grep -F -- "$piece" $wr) || { echo "$name: no writer ($wr) names \"$piece\""; return 1; }
		done
		last=$(pieces "$name" | tail -n 1)
		for f in $rd; do
			grep -qF -- "$last" "$KIT_DIR/$f" || { echo "$name: its reader $f does not name \"$last\""; return 1; }
		done
	done <p.txt
'

test_expect 'every raw table a reader names is declared' '
	tables | cut -f1 | sed "s/METHOD/[a-z0-9]*/; s/CLIENT/[a-z]*/; s/^NAME-/[a-z-]*-/; s/stepN/step[0-9]*/; s/-N-/-[0-9]*-/; s/-N\\./-[0-9]*./; s/\\./\\\\./g" >pat.txt &&
	grep -rhoE "(raw/|RAW_DIR/)[a-z0-9-]+\\.tsv" "$KIT_DIR/lib" | sort -u | sed "s#^raw/##; s#^RAW_DIR/##" >named.txt &&
	while read -r f; do
		grep -qxEf pat.txt <<<"$f" || { echo "raw/$f is read but not declared"; return 1; }
	done <named.txt
'

test_expect 'every key a metric sets by name is in its documented list' '
	for f in "$KIT_DIR"/lib/metrics/*.sh; do
		grep -ohE "result_set [a-z]+ [a-z][a-z0-9_]*( |$)" "$f" | awk "{ print \$2, \$3 }"
	done | sort -u | while read -r name key; do
		keys "$name" | sed "s/^METHOD_/[a-z0-9]+_/; s/^CLIENT_/[a-z]+_/" >want.txt &&
		printf "%s\n" "$key" | grep -xqEf want.txt || { echo "$name: $key is not in docs/data.md"; return 1; }
	done
'

test_expect 'data files hold summaries: no row keys (step_N_*, cipher_I_*) documented or set' '
	! grep -E "(^| )(step_[0-9]|cipher_[0-9])" "$DOC" &&
	! grep -nE "result_set [a-z]+ \"(step|cipher)_\\$" "$KIT_DIR"/lib/metrics/*.sh
'

test_done
