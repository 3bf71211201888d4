#!/usr/bin/env python3
"""results-check.py SCHEMA RUN_DIR [--full]: checks RUN_DIR/results.json.

- against SCHEMA with python3-jsonschema when it knows draft 2020-12, and
  always with the strict subset below (type, enum, const, required,
  properties, patternProperties, additionalProperties, items, maxItems,
  propertyNames, $ref), so a host without it still checks every type;
- no value of a test is a string that reads as a number (the typing rule
  of docs/results-json.md: numbers are JSON numbers);
- every table of a test equals the raw table it comes from (read by the
  header names, "-" is null, a number equals the cell's number);
- with --full (a full run): every test measured (PASS, FAIL, INCONCLUSIVE)
  has every table the schema declares for it.

Prints one line per problem (what, where, what it saw) and exits 1 when
there is one. RESULTS_CHECK_STRICT_ONLY=1: the strict subset alone (as on
a host without python3-jsonschema). For the tests only (tests/t80-render.sh, tests/t57-order.sh).
"""
import json
import os
import re
import sys

problems = []


def problem(msg):
    problems.append(msg)


def resolve(schema, root):
    ref = schema.get("$ref")
    if ref is None:
        return None
    if not ref.startswith("#/"):
        raise SystemExit("results-check.py: cannot follow $ref " + ref)
    node = root
    for part in ref[2:].split("/"):
        node = node[part]
    return node


def type_ok(value, t):
    if t == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if t == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if t == "string":
        return isinstance(value, str)
    if t == "null":
        return value is None
    if t == "boolean":
        return isinstance(value, bool)
    if t == "object":
        return isinstance(value, dict)
    if t == "array":
        return isinstance(value, list)
    raise SystemExit("results-check.py: unknown type " + t)


def check(value, schema, root, path):
    if schema is True or schema is None:
        return
    if schema is False:
        problem("%s: not allowed here (saw %r)" % (path, value))
        return
    target = resolve(schema, root)
    if target is not None:
        check(value, target, root, path)
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(type_ok(value, t) for t in types):
            problem("%s: %r is not %s" % (path, value, " or ".join(types)))
            return
    if "const" in schema and value != schema["const"]:
        problem("%s: %r is not %r" % (path, value, schema["const"]))
    if "enum" in schema and value not in schema["enum"]:
        problem("%s: %r is not one of %s" % (path, value, schema["enum"]))
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                problem("%s: the key %s is missing" % (path, key))
        names = schema.get("propertyNames", {}).get("pattern")
        props = schema.get("properties", {})
        patterns = schema.get("patternProperties", {})
        for key, v in value.items():
            if names and not re.search(names, key):
                problem("%s: the key %s does not match %s" % (path, key, names))
            sub = "%s.%s" % (path, key)
            matched = False
            if key in props:
                check(v, props[key], root, sub)
                matched = True
            for pat, s in patterns.items():
                if re.search(pat, key):
                    check(v, s, root, sub)
                    matched = True
            if not matched and "additionalProperties" in schema:
                check(v, schema["additionalProperties"], root, sub)
    if isinstance(value, list):
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            problem("%s: %d items, at most %d allowed" % (path, len(value), schema["maxItems"]))
        if "items" in schema:
            for i, v in enumerate(value):
                check(v, schema["items"], root, "%s[%d]" % (path, i))


NUMBER = re.compile(r"^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$")


def declared_types(s, root):
    """The JSON types a schema node allows: its "type" (a name or a
    list), through "$ref" and every branch of anyOf / oneOf / allOf; a
    description that happens to say "number" is not a type."""
    target = resolve(s, root)
    if target is not None:
        s = target
    t = s.get("type")
    types = set([t] if isinstance(t, str) else (t or []))
    for branch in ("anyOf", "oneOf", "allOf"):
        for sub in s.get(branch, []):
            types |= declared_types(sub, root)
    return types


def declared_string(schema, root, key):
    s = schema["$defs"]["test"]["properties"].get(key)
    return s is not None and not (declared_types(s, root) & {"number", "integer"})


def table_file(row_def):
    m = re.search(r"raw/[a-z0-9-]+\.tsv", row_def.get("description", ""))
    return m.group(0) if m else None


def read_tsv(path):
    """The rows of a raw table as dicts by header name, lines split at
    newlines only, as lib/data.sh reads them (a carriage return inside
    a message is part of the cell)."""
    with open(path, encoding="utf-8", errors="replace", newline="") as fh:
        lines = fh.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines:
        return []
    head = lines[0].split("\t")
    return [dict(zip(head, line.split("\t"))) for line in lines[1:] if line != ""]


def cell_equal(json_value, cell):
    if cell == "-":
        return json_value is None
    if isinstance(json_value, (int, float)) and not isinstance(json_value, bool):
        try:
            return float(cell) == float(json_value)
        except ValueError:
            return False
    return json_value == cell


def main(argv):
    full = "--full" in argv
    args = [a for a in argv if a != "--full"]
    if len(args) != 2:
        raise SystemExit("usage: results-check.py SCHEMA RUN_DIR [--full]")
    schema = json.load(open(args[0]))
    run = args[1]
    path = os.path.join(run, "results.json")
    raw = open(path, "rb").read()
    try:
        doc = json.loads(raw.decode("utf-8"))
    except ValueError as e:
        print("%s: not JSON in UTF-8: %s" % (path, e))
        return 1

    validator = None
    if not os.environ.get("RESULTS_CHECK_STRICT_ONLY"):
        try:
            import jsonschema
            validator = getattr(jsonschema, "Draft202012Validator", None)
        except ImportError:
            pass
    if validator is not None:
        validator.check_schema(schema)
        for e in validator(schema).iter_errors(doc):
            problem("jsonschema: %s: %s" % ("/".join(str(p) for p in e.absolute_path), e.message))
    check(doc, schema, schema, "results.json")

    tests_schema = schema["properties"]["tests"]
    for name, test in doc.get("tests", {}).items():
        for key, v in test.items():
            if isinstance(v, str) and NUMBER.match(v) and not declared_string(schema, schema, key):
                problem("tests.%s.%s: the number %r is a string" % (name, key, v))
        declared = tests_schema.get("properties", {}).get(name, {})
        declared = declared.get("properties", {}).get("tables", {}).get("properties", {})
        tables = test.get("tables", {})
        for table, tschema in declared.items():
            row_def = resolve(tschema["items"], schema)
            rel = table_file(row_def)
            if rel is None:
                f = None
            else:
                f = os.path.join(run, rel)
            if table not in tables:
                if full and test.get("status") in ("PASS", "FAIL", "INCONCLUSIVE"):
                    problem("tests.%s.tables.%s is missing in a full run (%s %s)" % (name, table, test.get("status"), rel or "keys"))
                elif f and os.path.isfile(f):
                    problem("tests.%s.tables.%s is missing, though %s exists" % (name, table, rel))
                continue
            if f is None:
                continue
            rows = read_tsv(f)
            got = tables[table]
            if len(rows) != len(got):
                problem("tests.%s.tables.%s: %d rows, %s has %d" % (name, table, len(got), rel, len(rows)))
                continue
            for i, (row, obj) in enumerate(zip(rows, got)):
                for col in row_def["properties"]:
                    if col not in row:
                        # A column declared after the run was made: null.
                        if obj.get(col) is not None:
                            problem("tests.%s.tables.%s[%d].%s: %r, %s has no such column" % (name, table, i, col, obj.get(col), rel))
                    elif not cell_equal(obj.get(col), row[col]):
                        problem("tests.%s.tables.%s[%d].%s: %r, %s says %r" % (name, table, i, col, obj.get(col), rel, row[col]))

    for p in problems[:40]:
        print(p)
    if len(problems) > 40:
        print("... and %d more" % (len(problems) - 40))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
