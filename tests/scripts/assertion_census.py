#!/usr/bin/env python3
"""A rough census of the assertions in tests/*.rs and tests/common/*.rs (standard
library only): how many compare exact bytes, how many look for a substring.

    python3 tests/scripts/assertion_census.py [--by-file]

An assertion is one call of `assert!`, `assert_eq!`, `assert_ne!` or
`debug_assert*!`, read from its `(` to the matching `)` (strings and comments
skipped), plus one per file under tests/golden/ (each compared byte for byte once;
the `golden::check`/`golden::compare` calls themselves are not counted, and
show/recording.jsonl is an input, not an expectation).
It is sorted into the first class that fits:

- golden: a file under tests/golden/ compared byte for byte (counted per file);
- substring: its text calls `.contains(`, `.starts_with(`, `.ends_with(`,
  `.find(` or `.matches(` (a part of the output checked, the rest free);
- exact bytes: an `assert_eq!`/`assert_ne!` one of whose two sides is a string or
  byte-string literal, a `format!`, `concat!` or `.as_bytes()` (a whole text
  compared);
- other: everything else (numbers, status codes, JSON values, booleans).

The last line shares exact bytes among the assertions that look at text at all
(golden + exact + substring), the "other" ones (numbers, status codes, JSON
values) left out: the nearest this count gets to the assertions about wire output.

It counts text, not meaning: a helper that asserts inside a loop counts once, and
an `assert!(a == "x")` is "other". Good enough to follow a share over time.
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
MACRO = re.compile(r"\b(debug_)?assert(_eq|_ne)?!\s*\(")
SUBSTRING = re.compile(r"\.(contains|starts_with|ends_with|find|matches)\(")
LITERAL = re.compile(r'^\s*&?\s*(b?r#*"|b?"|format!|concat!|&?\*?\s*\w+\.as_bytes\(\))')


def strip(src):
    """The source with comments blanked and string contents kept (but their
    parentheses hidden), so that parentheses can be matched."""
    out = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c == "r" and re.match(r'r#*"', src[i:]) and (i == 0 or not (src[i - 1].isalnum() or src[i - 1] == "_")) or (c == "b" and re.match(r'br#*"', src[i:])):
            m = re.match(r'b?r(#*)"', src[i:])
            end = src.find('"' + m.group(1), i + len(m.group(0)))
            end = n if end < 0 else end + 1 + len(m.group(1))
            out.append(src[i:end].replace("(", "\x01").replace(")", "\x02"))
            i = end
        elif c == '"':
            j = i + 1
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            out.append(src[i : j + 1].replace("(", "\x01").replace(")", "\x02"))
            i = j + 1
        elif c == "'" and re.match(r"'(\\.|[^\\'])'", src[i:]):
            m = re.match(r"'(\\.|[^\\'])'", src[i:])
            out.append(m.group(0).replace("(", "\x01").replace(")", "\x02"))
            i += len(m.group(0))
        else:
            out.append(c)
            i += 1
    return "".join(out)


def top_level_args(body):
    """The comma-separated arguments of a macro call's body, at depth 0."""
    args, depth, cur = [], 0, []
    for c in body:
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if c == "," and depth == 0:
            args.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    args.append("".join(cur))
    return args


def classify(kind, body):
    if SUBSTRING.search(body):
        return "substring"
    if kind in ("_eq", "_ne"):
        args = top_level_args(body)
        if any(LITERAL.match(a) for a in args[:2]):
            return "exact"
    return "other"


def census(path):
    src = strip(open(path, encoding="utf-8").read())
    counts = {"golden": 0, "exact": 0, "substring": 0, "other": 0, "contains": 0}
    for m in MACRO.finditer(src):
        depth, j = 1, m.end()
        while j < len(src) and depth:
            depth += {"(": 1, ")": -1}.get(src[j], 0)
            j += 1
        body = src[m.end() : j - 1]
        counts[classify(m.group(2) or "", body)] += 1
        counts["contains"] += ".contains(" in body
    return counts


def main():
    files = []
    for folder in ("tests", os.path.join("tests", "common")):
        d = os.path.join(ROOT, folder)
        files += [os.path.join(d, f) for f in sorted(os.listdir(d)) if f.endswith(".rs")]
    total = {"golden": 0, "exact": 0, "substring": 0, "other": 0, "contains": 0}
    for f in files:
        c = census(f)
        for k in total:
            total[k] += c[k]
        if "--by-file" in sys.argv:
            print(f"{os.path.relpath(f, ROOT):40} {c}")
    golden = os.path.join(ROOT, "tests", "golden")
    if os.path.isdir(golden):
        for _, _, names in os.walk(golden):
            # show/recording.jsonl is an input (a kept recording), not an expectation.
            total["golden"] += sum(1 for n in names if n != "recording.jsonl")
    n = sum(v for k, v in total.items() if k != "contains")
    print(f"{n} assertions in {len(files)} files")
    for k in ("golden", "exact", "substring", "other"):
        print(f"  {k:10} {total[k]:5}  {100 * total[k] / n:5.1f}%")
    both = total["golden"] + total["exact"]
    print(f"  exact bytes (golden + exact): {both} ({100 * both / n:.1f}%)")
    print(f"  of which call .contains(: {total['contains']} ({100 * total['contains'] / n:.1f}%)")
    # The assertions that look at text (an output's bytes, whole or in part), the
    # nearest this count gets to "assertions about wire output": how many of them
    # compare the whole text.
    text = both + total["substring"]
    print(f"  of the {text} that look at text (golden + exact + substring): {100 * both / text:.1f}% compare it whole")


if __name__ == "__main__":
    main()
