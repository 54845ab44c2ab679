#!/usr/bin/env python3
"""A stdio MCP server (2025-11-25) that breaks rules on purpose, one or more per
message it reads, for `mcp-raw check`'s tests. Standard library only; one JSON-RPC
message per line in, replies out; exits at EOF. What it breaks, by what it reads:

- initialize: writes a line of plain text first (stdout pollution), then answers,
  declaring only `logging` (no tools).
- notifications/initialized: answers it (id 99, a response to nothing), asks
  sampling/createMessage (the client declared no sampling), sends a batch (removed
  in 2025-06-18) and a message without "jsonrpc".
- tools/list: answers twice. ping: answers {"pong": true}, not {}.
- tools/call: progress for a token nobody gave, then its own token going 5 -> 3,
  a log line that starts with a byte order mark, then the result.
- a second ping (id 6): never answered.
Anything else (responses, other notifications) gets no reply.
"""
import json
import sys


def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


def raw(text):
    sys.stdout.buffer.write(text)
    sys.stdout.buffer.flush()


for line in sys.stdin:
    line = line.strip()
    if not line:
        continue
    msg = json.loads(line)
    method, mid = msg.get("method"), msg.get("id")
    if method == "initialize":
        raw(b"hello from the server\n")
        send({"jsonrpc": "2.0", "id": mid, "result": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"logging": {}},
            "serverInfo": {"name": "rule-breaker", "version": "1"}}})
    elif method == "notifications/initialized":
        send({"jsonrpc": "2.0", "id": 99, "result": {}})
        send({"jsonrpc": "2.0", "id": "s1", "method": "sampling/createMessage",
              "params": {"messages": [], "maxTokens": 1}})
        send([{"jsonrpc": "2.0", "method": "notifications/message",
               "params": {"level": "info", "data": "batched"}}])
        send({"id": 5, "result": {}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": mid, "result": {"tools": []}})
        if mid != 1:
            send({"jsonrpc": "2.0", "id": mid, "result": {"tools": []}})
    elif method == "ping" and mid == 6:
        pass
    elif method == "ping":
        send({"jsonrpc": "2.0", "id": mid, "result": {"pong": True}})
    elif method == "tools/call":
        token = msg["params"]["_meta"]["progressToken"]
        send({"jsonrpc": "2.0", "method": "notifications/progress",
              "params": {"progressToken": "zzz", "progress": 1}})
        for p in (5, 3):
            send({"jsonrpc": "2.0", "method": "notifications/progress",
                  "params": {"progressToken": token, "progress": p}})
        raw(b"\xef\xbb\xbf" + json.dumps({"jsonrpc": "2.0", "method": "notifications/message",
                                          "params": {"level": "info", "data": "bom"}}).encode() + b"\n")
        send({"jsonrpc": "2.0", "id": mid, "result": {"content": []}})
