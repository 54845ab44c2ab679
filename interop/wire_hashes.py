#!/usr/bin/env python3
"""Compares what two mcp-raw transcripts say crossed the wire, direction by direction.

    interop/wire_hashes.py A.jsonl B.jsonl

Read independently of mcp-raw (a transcript is JSON Lines: a header, then events with
the bytes in "text" or "base64"; fact lines are skipped). For each direction (c2s,
s2c), each lane's bytes are concatenated (stderr aside) and hashed; the two files must
hold the same set of per-lane hashes, so two recorders that numbered connections
differently still compare. Prints both sides' hashes; exit 1 if they differ.

One allowance, for A only (the tap): bytes that reached the tap on a lane after the
client had closed that connection (the tap's record shows the client's close first)
never reached the client, so a B stream may equal A's stream without them. They are
counted and printed, never silently dropped.
"""
import base64
import hashlib
import json
import sys


def read(path):
    """Per (dir, lane): all its bytes, and those that came before the client closed
    the lane (its c2s close)."""
    lanes, before = {}, {}
    closed = set()
    with open(path, encoding="utf-8") as f:
        header = json.loads(f.readline())
        assert header.get("transcript") == "mcp-raw", f"{path}: not a transcript"
        for line in f:
            e = json.loads(line)
            if "fact" in e or e.get("lane") == "stderr":
                continue
            if "close" in e and e["dir"] == "c2s":
                closed.add(e["lane"])
            if "text" in e:
                data = e["text"].encode("utf-8")
            elif "base64" in e:
                data = base64.b64decode(e["base64"])
            else:
                continue
            key = (e["dir"], e["lane"])
            lanes.setdefault(key, bytearray()).extend(data)
            if e["lane"] not in closed:
                before.setdefault(key, bytearray()).extend(data)
    return lanes, before


def h(data):
    return hashlib.sha256(data).hexdigest()


a_all, a_before = read(sys.argv[1])
b_all, _ = read(sys.argv[2])
same = True
for d in ("c2s", "s2c"):
    a_lanes = {lane: data for (dd, lane), data in a_all.items() if dd == d}
    b_streams = [bytes(data) for (dd, _), data in b_all.items() if dd == d]
    unmatched = dict(a_lanes)
    late = 0
    missing = []
    for data in b_streams:
        lane = next((l for l, x in unmatched.items() if bytes(x) == data), None)
        if lane is None:
            # The allowance: equal to what reached the tap before the client closed.
            lane = next((l for l in unmatched if bytes(a_before.get((d, l), b"")) == data), None)
            if lane is not None:
                late += len(unmatched[lane]) - len(data)
        if lane is None:
            missing.append((h(data), len(data)))
        else:
            del unmatched[lane]
    ok = not missing and not unmatched and bool(b_streams)
    same &= ok
    total = sum(len(x) for x in a_lanes.values())
    digest = h("".join(sorted(h(bytes(x)) for x in a_lanes.values())).encode())[:16]
    note = f" ({late} bytes reached the tap after the client had closed)" if late else ""
    print(f"  {d}: {len(a_lanes)} stream(s), {total} bytes, sha256 {digest}: {'same' if ok else 'DIFFERENT'}{note}")
    if not ok:
        print(f"    only in {sys.argv[1]}: {[(h(bytes(x)), len(x)) for x in unmatched.values()]}")
        print(f"    only in {sys.argv[2]}: {missing}")
sys.exit(0 if same else 1)
