#!/usr/bin/env python3
"""Compares what two mcp-raw transcripts say crossed the wire, direction by direction.

    interop/wire_hashes.py A.jsonl B.jsonl
    interop/wire_hashes.py --target HOST:PORT A.jsonl B.jsonl

Read independently of mcp-raw (a transcript is JSON Lines: a header, then events with
the bytes in "text" or "base64"; fact lines are skipped). For each direction (c2s,
s2c), each lane's bytes are concatenated (stderr aside) and hashed; the two files must
hold the same set of per-lane hashes, so two recorders that numbered connections
differently still compare. Prints both sides' hashes; exit 1 if they differ.

One allowance, for A only (the tap): bytes that reached the tap on a lane after the
client had closed that connection (the tap's record shows the client's close first)
never reached the client, so a B stream may equal A's stream without them. They are
counted and printed, never silently dropped.

With --target HOST:PORT, A is a `tap --proxy` recording whose lanes went to several
servers, and B the record of the one listening at HOST:PORT, which may have lanes of its
own besides (fetches it made, other clients): only A's lanes whose target side the tap
connected to HOST:PORT are compared, with only B's lanes accepted from the address the tap
connected from (the tap's `open` says "target side: connected FROM → HOST:PORT"; B's names
FROM). B's other lanes are counted and printed as left aside.
"""
import base64
import hashlib
import json
import re
import sys

# The first ADDRESS:PORT in an `open` event's text: IPv4, or IPv6 in brackets.
ADDRESS = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}:\d+|\[[0-9A-Fa-f:.]+\]:\d+")
# A `tap --proxy` lane's target side: "target side: connected FROM → TO".
TARGET_SIDE = re.compile(r"target side: connected (\S+) → (\S+)")


def read(path):
    """Per (dir, lane): all its bytes, and those that came before the client closed
    the lane (its c2s close); and per lane, the texts of its `open` events."""
    lanes, before = {}, {}
    opens = {}
    closed = set()
    with open(path, encoding="utf-8") as f:
        header = json.loads(f.readline())
        assert header.get("transcript") == "mcp-raw", f"{path}: not a transcript"
        for line in f:
            e = json.loads(line)
            if "fact" in e or e.get("lane") == "stderr":
                continue
            if "open" in e:
                opens.setdefault(e["lane"], []).append(e["open"])
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
    return lanes, before, opens


def h(data):
    return hashlib.sha256(data).hexdigest()


args = sys.argv[1:]
target = None
if args[:1] == ["--target"]:
    target, args = args[1], args[2:]
a_path, b_path = args
a_all, a_before, a_opens = read(a_path)
b_all, _, b_opens = read(b_path)
if target is not None:
    # The tap's connections to the target, by the address they came from.
    via = {}
    for lane, texts in a_opens.items():
        for text in texts:
            m = TARGET_SIDE.search(text)
            if m and m.group(2) == target:
                via[lane] = m.group(1)
    froms = set(via.values())

    def accepted_from_tap(lane):
        return any((m := ADDRESS.search(t)) and m.group(0) in froms for t in b_opens.get(lane, []))

    aside = sorted({lane for (_, lane) in b_all if not accepted_from_tap(lane)})
    a_all = {k: v for k, v in a_all.items() if k[1] in via}
    b_all = {k: v for k, v in b_all.items() if k[1] not in aside}
    print(f"  to {target}: {len(via)} of the tap's lane(s); {b_path}'s other lane(s), left aside: "
          + (", ".join(f"{lane} ({b_opens.get(lane, ['?'])[0]})" for lane in aside) or "none"))
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
        print(f"    only in {a_path}: {[(h(bytes(x)), len(x)) for x in unmatched.values()]}")
        print(f"    only in {b_path}: {missing}")
sys.exit(0 if same else 1)
