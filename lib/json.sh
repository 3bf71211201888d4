# shellcheck shell=bash disable=SC2034
# JSON_AWK: awk functions jstr (a JSON string) and jval (a value typed by
# the rule of docs/results-json.md), for lib/bin/results-json.sh and lib/bin/fleet.sh.

# The JSON text of one value. Typing rule (docs/results-json.md): a key the
# schemas declare gets its declared type (jtyped); any other value that is
# a decimal number is a JSON number, "-" (the kit's "no value") is null,
# anything else is a string, escaped (jval).
JSON_AWK='
# utf8fix(s): s with every byte that does not start or continue a valid
# UTF-8 sequence (overlong forms, surrogates and values above U+10FFFF
# included) replaced by U+FFFD; counts them in BAD.
function utf8fix(s,    out, n, i, c, b, need, j, ok) {
	if (s !~ /[\200-\377]/) return s
	out = ""; n = length(s); i = 1
	while (i <= n) {
		c = ORD[substr(s, i, 1)]
		if (c < 128) { out = out substr(s, i, 1); i++; continue }
		if (c >= 194 && c <= 223) need = 1
		else if (c >= 224 && c <= 239) need = 2
		else if (c >= 240 && c <= 244) need = 3
		else { out = out FFFD; i++; BAD++; continue }
		ok = i + need <= n
		for (j = 1; ok && j <= need; j++) {
			b = ORD[substr(s, i + j, 1)]
			if (b < 128 || b > 191) ok = 0
		}
		if (ok) {
			b = ORD[substr(s, i + 1, 1)]
			if ((c == 224 && b < 160) || (c == 237 && b > 159) ||
			    (c == 240 && b < 144) || (c == 244 && b > 143)) ok = 0
		}
		if (ok) { out = out substr(s, i, need + 1); i += need + 1 }
		else { out = out FFFD; i++; BAD++ }
	}
	return out
}
function jisnum(s) {
	# JSON has no leading zeros: "007" is not a number.
	return s ~ /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/ && s !~ /^-?0[0-9]/
}
# jtyped(s, t): s as the JSON type list t ("string", "number,null", ...).
# A value that fits none of the types is written as it looks (jval).
function jtyped(s, t) {
	t = "," t ","
	if (t == ",,") return jval(s)
	if (index(t, ",number,") && jisnum(s)) return s
	# A signed difference ("+40.0") is a number where one is declared.
	if (index(t, ",number,") && s ~ /^\+/ && jisnum(substr(s, 2))) return substr(s, 2)
	if (index(t, ",null,") && (s == "-" || s == "")) return "null"
	if (index(t, ",string,")) return jstr(s)
	return jval(s)
}
function jstr(s,    out, c, i) {
	s = utf8fix(s)
	gsub(/\\/, "&&", s)
	gsub(/"/, "\\\"", s)
	gsub(/\t/, "\\t", s)
	gsub(/\r/, "\\r", s)
	gsub(/\n/, "\\n", s)
	if (s ~ /[\001-\037\177]/) {
		out = ""
		for (i = 1; i <= length(s); i++) {
			c = substr(s, i, 1)
			if (c in CTRL) out = out sprintf("\\u%04x", CTRL[c])
			else out = out c
		}
		s = out
	}
	return "\"" s "\""
}
function jval(s) {
	if (jisnum(s)) return s
	if (s == "-") return "null"
	return jstr(s)
}
BEGIN {
	for (i = 1; i < 32; i++) CTRL[sprintf("%c", i)] = i; CTRL[sprintf("%c", 127)] = 127
	for (i = 1; i < 256; i++) ORD[sprintf("%c", i)] = i
	FFFD = sprintf("%c%c%c", 239, 191, 189)
}
'
