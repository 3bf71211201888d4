# guidance.awk: the evaluator of the specification's readings
# (lib/report/guidance.tab, docs/data.md "The readings table").
#   awk -F'\t' -f guidance.awk STORE TABLE
# STORE: one figure a line, "TEST.KEY<TAB>VALUE" (the run's data files,
# lib/report/guidance.sh guidance_store). TABLE: the readings, a header
# "section<TAB>metric<TAB>when<TAB>advice", then one row each; # starts
# a comment. For each row whose condition `when` holds on the store, it
# prints "section<TAB>metric<TAB>advice", each {EXPR} or {EXPR:N} of the
# advice replaced by its value (N decimals), and after it
# "concern<TAB>metric" when the table has a column concern and the row's
# is "yes".
#
# A condition is an expression over the store: TEST.KEY (a figure; a
# figure the run does not have, or "-", makes the whole condition false:
# no figure, no reading), numbers, "strings", + - * /, comparisons
# (== != < <= > >=, numeric when both sides are numbers, else as text),
# ~ and !~ (a regular expression on the right), ! && || and ( ), and
# the functions abs(X) and near(X, T) (X within 5 % of T).

function num_like(v) {
	return v ~ /^[-+]?[0-9]+(\.[0-9]+)?$/
}

# The tokens of S into TOK[1..NT].
function lex(s,    c, t, n) {
	NT = 0
	while (length(s) > 0) {
		c = substr(s, 1, 1)
		if (c == " ") { s = substr(s, 2); continue }
		if (c == "\"") {
			n = index(substr(s, 2), "\"")
			if (n == 0) { ERR = "an unended string"; return }
			TOK[++NT] = substr(s, 1, n + 1); s = substr(s, n + 2); continue
		}
		if (match(s, /^[0-9]+(\.[0-9]+)?/)) { TOK[++NT] = substr(s, 1, RLENGTH); s = substr(s, RLENGTH + 1); continue }
		if (match(s, /^[a-z][a-z0-9_-]*\.[A-Za-z][A-Za-z0-9_]*/)) { TOK[++NT] = substr(s, 1, RLENGTH); s = substr(s, RLENGTH + 1); continue }
		if (match(s, /^[a-z]+/)) { TOK[++NT] = substr(s, 1, RLENGTH); s = substr(s, RLENGTH + 1); continue }
		if (match(s, /^(\|\||&&|==|!=|<=|>=|!~)/)) { TOK[++NT] = substr(s, 1, RLENGTH); s = substr(s, RLENGTH + 1); continue }
		if (index("()+-*/<>!~,", c)) { TOK[++NT] = c; s = substr(s, 2); continue }
		ERR = "an unknown character " c; return
	}
}

function peek() { return P <= NT ? TOK[P] : "" }
function take() { return TOK[P++] }

function e_or(    a, b) {
	a = e_and()
	while (peek() == "||") { take(); b = e_and(); a = (a || b) ? 1 : 0 }
	return a
}
function e_and(    a, b) {
	a = e_cmp()
	while (peek() == "&&") { take(); b = e_cmp(); a = (a && b) ? 1 : 0 }
	return a
}
function e_cmp(    a, b, op) {
	a = e_sum()
	op = peek()
	if (op == "==" || op == "!=" || op == "<" || op == "<=" || op == ">" || op == ">=" || op == "~" || op == "!~") {
		take(); b = e_sum()
		if (op == "~") return (a ~ b) ? 1 : 0
		if (op == "!~") return (a !~ b) ? 1 : 0
		if (num_like(a) && num_like(b)) { a += 0; b += 0 }
		else { a = a ""; b = b "" }
		if (op == "==") return a == b
		if (op == "!=") return a != b
		if (op == "<") return a < b
		if (op == "<=") return a <= b
		if (op == ">") return a > b
		return a >= b
	}
	return a
}
function e_sum(    a, op) {
	a = e_prod()
	while (peek() == "+" || peek() == "-") {
		op = take()
		if (op == "+") a = a + e_prod(); else a = a - e_prod()
	}
	return a
}
function e_prod(    a, op, b) {
	a = e_unary()
	while (peek() == "*" || peek() == "/") {
		op = take(); b = e_unary()
		if (op == "*") a = a * b
		else if (b + 0 == 0) { UNDEF = 1; a = 0 }
		else a = a / b
	}
	return a
}
function e_unary(    t) {
	t = peek()
	if (t == "!") { take(); return e_unary() ? 0 : 1 }
	if (t == "-") { take(); return -e_unary() }
	return e_atom()
}
function e_atom(    t, a, b) {
	t = take()
	if (t == "(") { a = e_or(); if (take() != ")") ERR = "a ( without )"; return a }
	if (t ~ /^"/) return substr(t, 2, length(t) - 2)
	if (num_like(t)) return t + 0
	if (t == "abs" || t == "near") {
		if (take() != "(") { ERR = t " without ("; return 0 }
		a = e_or()
		if (t == "near") { if (take() != ",") { ERR = "near takes two values"; return 0 }; b = e_or() }
		if (take() != ")") { ERR = t "( without )"; return 0 }
		if (t == "abs") return a < 0 ? -a : a
		return (a >= b * 0.95 && a <= b * 1.05) ? 1 : 0
	}
	if (t ~ /\./) {
		if (!(t in V) || V[t] == "" || V[t] == "-") { UNDEF = 1; return "" }
		return num_like(V[t]) ? V[t] + 0 : V[t]
	}
	ERR = "an unexpected " (t == "" ? "end" : t)
	return 0
}

# evaluate(EXPR): its value; UNDEF set when it needed a figure the run lacks,
# ERR when the expression is not one.
function evaluate(s,    v) {
	UNDEF = 0; ERR = ""; P = 1
	lex(s)
	if (ERR != "") return ""
	v = e_or()
	if (P <= NT && ERR == "") ERR = "more after the expression: " TOK[P]
	return v
}

# fill(TEXT): TEXT with each {EXPR} or {EXPR:N} replaced by its value;
# "" when one has no value.
function fill(text,    out, e, n, d, v) {
	out = ""
	while (match(text, /\{[^}]*\}/)) {
		out = out substr(text, 1, RSTART - 1)
		e = substr(text, RSTART + 1, RLENGTH - 2)
		text = substr(text, RSTART + RLENGTH)
		d = ""
		if (match(e, /:[0-9]$/)) { d = substr(e, RSTART + 1); e = substr(e, 1, RSTART - 1) }
		v = evaluate(e)
		if (UNDEF || ERR != "") return ""
		if (d != "" && num_like(v "")) v = sprintf("%." d "f", v)
		else if (d != "") { n = v + 0; v = sprintf("%." d "f", n) }
		out = out v
	}
	return out text
}

FNR == NR {
	k = $1; sub(/^[^\t]*\t/, "")
	V[k] = $0
	next
}
/^#/ { next }
# The header: the columns are read by their names.
!HEAD {
	for (i = 1; i <= NF; i++) C[$i] = i
	if (!("section" in C) || !("metric" in C) || !("when" in C) || !("advice" in C)) {
		printf "guidance.awk: %s line %d: the header is not section, metric, when, advice\n", FILENAME, FNR > "/dev/stderr"
		bad = 1
		exit
	}
	HEAD = 1
	next
}
NF < 4 { next }
{
	ok = evaluate($C["when"])
	if (ERR != "") {
		printf "guidance.awk: %s line %d: %s in: %s\n", FILENAME, FNR, ERR, $C["when"] > "/dev/stderr"
		bad = 1
		next
	}
	if (UNDEF || !ok) next
	text = fill($C["advice"])
	if (ERR != "") {
		printf "guidance.awk: %s line %d: %s in the advice\n", FILENAME, FNR, ERR > "/dev/stderr"
		bad = 1
		next
	}
	if (text != "") printf "%s\t%s\t%s\n", $C["section"], $C["metric"], text
	# A reading of concern (the optional column concern): one more line,
	# "concern<TAB>METRIC", for the renderer, which then shows the
	# section's "What to change" in the body.
	if (text != "" && ("concern" in C) && $C["concern"] == "yes") printf "concern\t%s\n", $C["metric"]
}
END { exit bad }
