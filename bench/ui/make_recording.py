#!/usr/bin/env python3
"""A big, valid recording for measuring `mcp-raw ui`: N messages over stdio.

    python3 bench/ui/make_recording.py 100000 /tmp/big.jsonl
    python3 bench/ui/make_recording.py 100000 /tmp/big-http.jsonl --http

With --http, the same session as a client records it over Streamable HTTP
(2025-11-25, one keep-alive connection): each request POSTed and answered with a
JSON body, the notifications answered 202, a DELETE at the end: `export har` has
an entry per request, and `mcp-raw check` finds nothing.

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
    if len(sys.argv) not in (3, 4) or sys.argv[3:] not in ([], ["--http"]):
        sys.exit("usage: make_recording.py N OUT.jsonl [--http]")
    n = int(sys.argv[1])
    out = open(sys.argv[2], "w", encoding="utf-8")
    if sys.argv[3:] == ["--http"]:
        return http(n, out)
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


def http(n, out):
    """N messages over one HTTP/1.1 connection, as the client's recording has them."""
    t = 0.0

    def line(obj):
        out.write(json.dumps(obj, separators=(",", ":")) + "\n")

    def crossed(direction, text):
        nonlocal t
        t += 0.000137
        line({"t": round(t, 6), "lane": "c1", "dir": direction, "text": text})

    def post(msg, answer, session):
        body = json.dumps(msg, separators=(",", ":"))
        head = ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:3000\r\nContent-Type: application/json\r\n"
                "Accept: application/json, text/event-stream\r\n")
        if session:
            head += "Mcp-Session-Id: 7f3a\r\nMCP-Protocol-Version: 2025-11-25\r\n"
        crossed("c2s", head + "Content-Length: %d\r\n\r\n" % len(body.encode()) + body)
        if answer is None:
            crossed("s2c", "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n")
        else:
            text = json.dumps(answer, separators=(",", ":"))
            extra = "" if session else "Mcp-Session-Id: 7f3a\r\n"
            crossed("s2c", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" + extra
                    + "Content-Length: %d\r\n\r\n" % len(text.encode()) + text)

    line({"transcript": "mcp-raw", "version": 4, "role": "client", "transport": "http",
          "started": "2026-12-05T05:00:00.000Z"})
    line({"t": 0.0001, "lane": "c1", "dir": "c2s", "open": "connected to 127.0.0.1:3000"})
    sent = 0
    if n >= 3:
        post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "bench", "version": "1"}}},
            {"jsonrpc": "2.0", "id": 0, "result": {
                "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                "serverInfo": {"name": "mcp-raw", "version": "0.1.0"}}}, False)
        post({"jsonrpc": "2.0", "method": "notifications/initialized"}, None, True)
        sent = 3
    i = 1
    if (n - sent) % 2:
        post({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}, None, True)
        sent += 1
    while sent < n:
        post({"jsonrpc": "2.0", "id": i, "method": "tools/call",
              "params": {"name": "echo", "arguments": {"text": "message %d" % i}}},
             {"jsonrpc": "2.0", "id": i, "result": {"content": [{"type": "text", "text": "message %d" % i}]}},
             True)
        sent += 2
        i += 1
    # The session ended as the client ends it (2025-11-25 "Session Management").
    crossed("c2s", "DELETE /mcp HTTP/1.1\r\nHost: 127.0.0.1:3000\r\nMcp-Session-Id: 7f3a\r\n"
            "MCP-Protocol-Version: 2025-11-25\r\n\r\n")
    crossed("s2c", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
    t += 0.0001
    line({"t": round(t, 6), "lane": "c1", "dir": "c2s", "close": "EOF"})
    out.close()


if __name__ == "__main__":
    main()
