#!/usr/bin/env python3
"""Checks names against PyPI's opentelemetry-semantic-conventions: reads
{"attributes": [...], "metrics": [...]} on stdin; prints one line per name that the
package does not define, or defines spelled differently (its constant for the same
words names another string), and exits 1 if there is any.
"""
import importlib
import json
import pkgutil
import sys



PACKAGES = (
    "opentelemetry.semconv.attributes",
    "opentelemetry.semconv.metrics",
    "opentelemetry.semconv._incubating.attributes",
    "opentelemetry.semconv._incubating.metrics",
)


def constants():
    """Every UPPER_CASE string constant of the attribute and metric modules, stable
    and incubating."""
    out = {}
    for name in PACKAGES:
        package = importlib.import_module(name)
        for info in pkgutil.iter_modules(package.__path__, name + "."):
            mod = importlib.import_module(info.name)
            for k, v in vars(mod).items():
                if k.isupper() and isinstance(v, str):
                    out.setdefault(k, set()).add(v)
    return out


def main():
    want = json.load(sys.stdin)
    consts = constants()
    values = set().union(*consts.values())
    bad = []
    for name in sorted(set(want.get("attributes", [])) | set(want.get("metrics", []))):
        const = name.upper().replace(".", "_")
        if name in values:
            continue
        if const in consts:
            bad.append(f"{name}: the package spells it {sorted(consts[const])}")
        else:
            bad.append(f"{name}: not defined by opentelemetry-semantic-conventions")
    for b in bad:
        print(b)
    print(json.dumps({"checked": len(set(want.get("attributes", [])) | set(want.get("metrics", []))), "bad": len(bad)}))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
