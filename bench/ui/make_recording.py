#!/usr/bin/env python3
"""A big, valid recording for measuring `mcp-raw ui`: N messages over stdio.

    python3 bench/ui/make_recording.py 100000 /tmp/big.jsonl

The lines are shaped as a server's `--record` writes them (event lines, each message's
fact line after it), for a client that initializes
(2025-11-25: initialize, its result, notifications/initialized) and then calls a tool
again and again (tools/call "echo" and its result), so N messages are 3 + pairs (and a
notifications/roots/list_changed when N is even): `mcp-raw check` finds nothing. The
transcript format is the book's docs/en/src/reference/transcript.md (version 2 then). Standard library only.
"""
import json
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: make_recording.py N OUT.jsonl")
    n = int(sys.argv[1])
    out = open(sys.argv[2], "w", encoding="utf-8")
    t = 0.0

    def line(obj):
        out.write(json.dumps(obj, separators=(",", ":")) + "\n")

    def message(direction, msg, fact):
        nonlocal t
        t += 0.000137
        text = json.dumps(msg, separators=(",", ":")) + "\n"
        stamp = round(t, 6)
        line({"t": stamp, "lane": "stdio", "dir": direction, "text": text})
        line(dict({"t": stamp, "lane": "stdio", "dir": direction, "fact": "message", "source": "line"}, **fact))

    line({"transcript": "mcp-raw", "version": 2, "role": "server", "transport": "stdio",
          "started": "2026-12-05T05:00:00.000Z"})
    line({"t": 0.0001, "lane": "stdio", "dir": "c2s", "open": "stdin and stdout"})
    sent = 0
    if n >= 3:
        message("c2s", {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {"roots": {"listChanged": True}},
            "clientInfo": {"name": "bench", "version": "1"}}},
            {"shape": "request", "method": "initialize", "id": 0})
        message("s2c", {"jsonrpc": "2.0", "id": 0, "result": {
            "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
            "serverInfo": {"name": "mcp-raw", "version": "0.1.0"}}},
            {"shape": "response", "id": 0})
        message("c2s", {"jsonrpc": "2.0", "method": "notifications/initialized"},
                {"shape": "notification", "method": "notifications/initialized"})
        sent = 3
    i = 1
    if (n - sent) % 2:
        # One message short of whole pairs: a notification, so no request is left unanswered.
        message("c2s", {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"},
                {"shape": "notification", "method": "notifications/roots/list_changed"})
        sent += 1
    while sent < n:
        message("c2s", {"jsonrpc": "2.0", "id": i, "method": "tools/call",
                        "params": {"name": "echo", "arguments": {"text": "message %d" % i}}},
                {"shape": "request", "method": "tools/call", "id": i})
        message("s2c", {"jsonrpc": "2.0", "id": i, "result": {
            "content": [{"type": "text", "text": "message %d" % i}]}},
            {"shape": "response", "id": i})
        sent += 2
        i += 1
    t += 0.0001
    line({"t": round(t, 6), "lane": "stdio", "dir": "c2s", "close": "EOF"})
    out.close()


if __name__ == "__main__":
    main()
