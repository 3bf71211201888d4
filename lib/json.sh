# shellcheck shell=bash disable=SC2034
# JSON_AWK: awk functions jstr (a JSON string) and jval (a value typed by
# the rule of docs/results-json.md), for lib/results-json.sh and lib/fleet.sh.

# The JSON text of one value. Typing rule (docs/results-json.md): a decimal
# number is a JSON number, "-" (the kit's "no value") is null, anything else
# is a string, escaped.
JSON_AWK='
function jstr(s,    out, c, i) {
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
	if (s ~ /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/) {
		# JSON has no leading zeros: "007" stays a string.
		if (s ~ /^-?0[0-9]/) return jstr(s)
		return s
	}
	if (s == "-") return "null"
	return jstr(s)
}
BEGIN { for (i = 1; i < 32; i++) CTRL[sprintf("%c", i)] = i; CTRL[sprintf("%c", 127)] = 127 }
'
