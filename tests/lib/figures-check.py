#!/usr/bin/env python3
"""figures-check.py RUN_DIR TABLE [CASE...]: checks the figures a rendered
run prints against its results.json, each rounded by the rule of its unit
(docs/data.md, "Rounding").

- TABLE (tests/data/figures.tab) lists figures by where they are printed:
  columns case, where (md, html or both), pattern (a Python regular
  expression whose first group is the figure), key (a dotted path in
  results.json) and unit. Every row must find its figure at least once in
  each file it names, and every match must equal the key's value rounded
  for the unit.
- The case "sweep" is not in the table: the headline figure of every test
  with one, in the summary's Result column and in its section's
  "**Result:**" line, in report.md and report.html, against
  tests.NAME.figure by its unit (and its interval, when it has one).
- The case "charts": every value named in a chart's bar titles with no
  more decimals than its unit's, and the login chart's percentiles (label
  and title of each bar) against tests.login.total_pNN.

report.html is read as the markdown it came from (cells between "|",
<strong> as **, <code> as backticks, <li> as "- ", links as [text](href)), so one
pattern serves both files. Only the CASEs named are checked (all without).
Prints one line per problem (the file, the case, what it printed, what
results.json holds and what that rounds to) and exits 1 when there is one.
For tests/t87-figures.sh.
"""
import html
import json
import re
import sys
from decimal import Decimal, ROUND_HALF_UP

DECIMALS = {"MB": 2, "clients": 0, "sessions": 0, "processes": 0, "count": 0}


def decimals(unit, lo=None, hi=None):
    """The unit's decimals, no finer than the interval LO-HI supports."""
    d = DECIMALS.get(unit, 1)
    if isinstance(lo, (int, float)) and isinstance(hi, (int, float)) and hi != lo:
        w = abs(hi - lo)
        k = 0
        while k < d and w < 10 * 10 ** -k:
            k += 1
        d = k
    return d


def rounded(unit, value, lo=None, hi=None):
    """VALUE as the report must print it for UNIT: both roundings of a
    tie are accepted (the renderer's printf rounds the binary value)."""
    if unit == "MB_of_kB":
        value, unit = value * 1024 / 1e6, "count"
    d = decimals(unit, lo, hi)
    a = "%.*f" % (d, value)
    b = str(Decimal(repr(value)).quantize(Decimal(1).scaleb(-d), rounding=ROUND_HALF_UP))
    return {a, b}, a


def as_markdown(text):
    """report.html's text, written back the way report.md has it."""
    text = re.sub(r"<a href=\"([^\"]*)\">(.*?)</a>", r"[\2](\1)", text)
    text = re.sub(r"</?strong[^>]*>", "**", text)
    text = re.sub(r"</?code>", "`", text)
    text = re.sub(r"<h(\d)[^>]*>", lambda m: "#" * int(m.group(1)) + " ", text)
    text = re.sub(r"<li>", "- ", text)
    text = re.sub(r"<tr>", "| ", text)
    text = re.sub(r"</t[dh]>", " | ", text)
    text = re.sub(r"<[^>]+>", "", text)
    text = re.sub(r" \| \n", " |\n", text)
    return html.unescape(text)


def lookup(results, key):
    v = results
    for part in key.split("."):
        if not isinstance(v, dict) or part not in v:
            return None
        v = v[part]
    return v


def main():
    run, table = sys.argv[1], sys.argv[2]
    cases = set(sys.argv[3:])
    with open(run + "/results.json") as f:
        results = json.load(f)
    texts = {}
    with open(run + "/report.md") as f:
        texts["md"] = f.read()
    with open(run + "/report.html") as f:
        texts["html"] = as_markdown(f.read())
    problems = []

    def check(where, case, printed, what, want, unit, lo=None, hi=None):
        if not isinstance(want, (int, float)) or isinstance(want, bool):
            problems.append("%s: %s: prints %s for %s, which results.json does not hold as a number (%r)"
                            % (where, case, printed, what, want))
            return
        ok, shown = rounded(unit, want, lo, hi)
        if printed not in ok:
            problems.append("%s: %s: prints %s for %s; results.json has %s, which rounds to %s (%s)"
                            % (where, case, printed, what, want, shown, unit))

    with open(table) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            case, where, pattern, key, unit = line.split("\t")
            if case == "case" or (cases and case not in cases):
                continue
            want = lookup(results, key)
            for w in (["md", "html"] if where == "both" else [where]):
                found = re.findall(pattern, texts[w], re.M)
                if not found:
                    problems.append("report.%s: %s: nothing matches /%s/ (the figure of %s is not printed so)"
                                    % (w, case, pattern, key))
                for printed in found:
                    check("report." + w, case, printed, key, want, unit)

    if not cases or "sweep" in cases:
        tests = results.get("tests", {})
        for w, text in texts.items():
            # Each test's headline where it is printed: its summary row
            # and the Result line of its section.
            seen = {"summary": set(), "result": set()}
            for part, label, where_re in (
                    ("summary", "summary", r"^\| \d+ \| \[[^\]]*\]\(#(\w+)\) \(`\w+`\) \| (-?[0-9.]+) (\S+)"),
                    ("result", "Result line", r"^## .*\(`(\w+)`\): \w+ ?\n+\*\*Result:\*\* (-?[0-9.]+) (\S+)")):
                for name, printed, unit in re.findall(where_re, text, re.M):
                    seen[part].add(name)
                    t = tests.get(name, {})
                    lo, hi = (None, None) if t.get("figure_method") == "model" else (t.get("figure_lo"), t.get("figure_hi"))
                    check("report." + w, "sweep (%s, %s)" % (label, unit), printed, "tests.%s.figure" % name,
                          t.get("figure"), t.get("unit", unit), lo, hi)
            with_figure = {n for n, t in tests.items() if isinstance(t.get("figure"), (int, float))}
            for part, names in seen.items():
                if with_figure - names:
                    problems.append("report.%s: sweep: no %s figure found for %s"
                                    % (w, part, " ".join(sorted(with_figure - names))))
    if not cases or "charts" in cases:
        # Every value a chart names in its bars' titles has the decimals
        # of its unit at most, as the tables print it; and the login
        # chart's percentiles are the login's, each label and title.
        import glob
        import os
        for svg in sorted(glob.glob(run + "/charts/*.svg")):
            with open(svg) as f:
                drawing = f.read()
            name = os.path.basename(svg)
            for printed, unit in re.findall(r"<title>[^<]*: (-?[0-9.]+) ([^<]+)</title>", drawing):
                if "." in printed and len(printed.split(".")[1]) > decimals(unit):
                    problems.append("charts/%s: charts: prints %s %s, finer than the unit's %d decimals"
                                    % (name, printed, unit, decimals(unit)))
        svg = run + "/charts/login-latency.svg"
        login = results.get("tests", {}).get("login", {})
        if os.path.exists(svg):
            with open(svg) as f:
                drawing = f.read()
            for p in ("p50", "p90", "p95", "p99", "max"):
                m = re.search(r"<title>%s login: (-?[0-9.]+) ms</title></rect>\s*<text[^>]*>(-?[0-9.]+)</text>" % p, drawing)
                if not m:
                    problems.append("charts/login-latency.svg: charts: no bar of the %s login" % p)
                    continue
                for printed in m.groups():
                    check("charts/login-latency.svg", "charts", printed, "tests.login.total_" + p,
                          login.get("total_" + p), "ms")
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
