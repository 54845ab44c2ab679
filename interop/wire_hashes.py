#!/usr/bin/env python3
"""Compares what two mcp-raw transcripts say crossed the wire, direction by direction.

    interop/wire_hashes.py A.jsonl B.jsonl

Read independently of mcp-raw (a transcript is JSON Lines: a header, then events with
the bytes in "text" or "base64"; fact lines are skipped). For each direction (c2s,
s2c), each lane's bytes are concatenated (stderr aside) and hashed; the two files must
hold the same set of per-lane hashes, so two recorders that numbered connections
differently still compare. Prints both sides' hashes; exit 1 if they differ.
"""
import base64
import hashlib
import json
import sys


def streams(path):
    lanes = {}
    with open(path, encoding="utf-8") as f:
        header = json.loads(f.readline())
        assert header.get("transcript") == "mcp-raw", f"{path}: not a transcript"
        for line in f:
            e = json.loads(line)
            if "fact" in e or e.get("lane") == "stderr":
                continue
            if "text" in e:
                data = e["text"].encode("utf-8")
            elif "base64" in e:
                data = base64.b64decode(e["base64"])
            else:
                continue
            lanes.setdefault((e["dir"], e["lane"]), bytearray()).extend(data)
    out = {}
    for (d, _lane), data in lanes.items():
        out.setdefault(d, []).append((hashlib.sha256(data).hexdigest(), len(data)))
    return {d: sorted(v) for d, v in out.items()}


a, b = streams(sys.argv[1]), streams(sys.argv[2])
same = True
for d in ("c2s", "s2c"):
    ha, hb = a.get(d, []), b.get(d, [])
    total = sum(n for _, n in ha)
    mark = "same" if ha == hb else "DIFFERENT"
    same &= ha == hb and bool(ha)
    digest = hashlib.sha256("".join(h for h, _ in ha).encode()).hexdigest()[:16]
    print(f"  {d}: {len(ha)} stream(s), {total} bytes, sha256 {digest}: {mark}")
    if ha != hb:
        print(f"    {sys.argv[1]}: {ha}\n    {sys.argv[2]}: {hb}")
sys.exit(0 if same else 1)
