#!/usr/bin/env bash
# The data contract, docs/data.md: every raw table's documented header is
# the one its writer prints, and every key a metric sets by name is in its
# data file's documented list. Needs no root and no test server.
. "$(dirname "$0")/lib/harness.sh"
DOC="$KIT_DIR/docs/data.md"

# tables: "NAME<TAB>SOURCE<TAB>HEADER (tab-joined as \t)" per documented raw
# table (the kit's own tables, such as selinux/expectations.tsv, are
# checked by their readers' tests).
tables () {
	awk '/^### / { name = "" }
		/^### raw\// { name = substr($2, 5); src = ""; next }
		name != "" && /the header is in `/ { s = $0; sub(/.*the header is in `/, "", s); sub(/`.*/, "", s); src = s }
		name != "" && /^```header$/ { getline h; gsub(/ /, "\\t", h); printf "%s\t%s\t%s\n", name, src, h; name = "" }' "$DOC"
}

# keys NAME: the documented keys of data/NAME.env, one per line
# (METHOD_ and CLIENT_ stand for any method or client name).
keys () {
	awk -v want="### data/$1.env" '$0 == want { on = 1; next } on && /^```keys$/ { getline k; print k; exit }' "$DOC" | tr ' ' '\n'
}

test_expect 'docs/data.md declares the tables the charts and reports read' '
	tables >t.txt &&
	for n in burst-steps.tsv transfer-runs.tsv transfer-ceiling.tsv rate-sweep.tsv login-samples.tsv; do
		grep -q "^$n	" t.txt || { echo "$n is not declared"; exit 1; }
	done &&
	[ "$(wc -l <t.txt)" -ge 15 ]
'

test_expect 'every declared header is the one its writer prints' '
	tables | while IFS="	" read -r name src head; do
		[ -f "$KIT_DIR/$src" ] || { echo "$name: no $src"; exit 1; }
		# C string literals split over lines are joined first.
		tr "\n" " " <"$KIT_DIR/$src" | sed "s/\"[[:space:]]*\"//g" | grep -qF -- "$head" ||
			{ echo "$name: $src does not print $head"; exit 1; }
	done
'

test_expect 'every raw table a reader names is declared' '
	tables | cut -f1 | sed "s/METHOD/[a-z0-9]*/; s/CLIENT/[a-z]*/; s/stepN/step[0-9]*/; s/-N-/-[0-9]*-/; s/-N\\./-[0-9]*./; s/\\./\\\\./g" >pat.txt &&
	grep -rhoE "raw/[a-z0-9-]+\\.tsv" "$KIT_DIR/lib/charts.sh" "$KIT_DIR/lib/report" | sort -u | sed "s#^raw/##" >named.txt &&
	while read -r f; do
		grep -qxEf pat.txt <<<"$f" || { echo "raw/$f is read but not declared"; exit 1; }
	done <named.txt
'

test_expect 'every key a metric sets by name is in its documented list' '
	for f in "$KIT_DIR"/lib/metrics/*.sh; do
		grep -ohE "result_set [a-z]+ [a-z][a-z0-9_]*( |$)" "$f" | awk "{ print \$2, \$3 }"
	done | sort -u | while read -r name key; do
		keys "$name" | sed "s/^METHOD_/[a-z0-9]+_/; s/^CLIENT_/[a-z]+_/" >want.txt &&
		printf "%s\n" "$key" | grep -xqEf want.txt || { echo "$name: $key is not in docs/data.md"; exit 1; }
	done
'

test_expect 'data files hold summaries: no row keys (step_N_*, cipher_I_*) documented or set' '
	! grep -E "(^| )(step_[0-9]|cipher_[0-9])" "$DOC" &&
	! grep -nE "result_set [a-z]+ \"(step|cipher)_\\$" "$KIT_DIR"/lib/metrics/*.sh
'

test_done
