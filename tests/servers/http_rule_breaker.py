#!/usr/bin/env python3
"""A legacy (2025-11-25) Streamable HTTP server that breaks the transport's rules on
purpose, for `mcp-raw check`'s tests. Standard library only; binds 127.0.0.1 on a
free port and prints "listening on http://127.0.0.1:PORT/mcp". What it breaks:

- notifications (initialized): 200 with a body, not 202 Accepted.
- tools/list: an SSE stream that primes an event id, then sends the response without
  one, under a different Mcp-Session-Id than the session's.
- GET: a JSON-RPC response on the stream (no Last-Event-ID was sent), under an
  event id it already used, answering an id nobody sent.
- ping: the answer as Content-Type text/plain.
"""
import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, ctype, body, session="s-1"):
        data = body.encode()
        self.send_response(status)
        if ctype:
            self.send_header("Content-Type", ctype)
        if session:
            self.send_header("Mcp-Session-Id", session)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.reply(200, "text/event-stream",
                   'id: e1\ndata: {"jsonrpc":"2.0","id":7,"result":{}}\n\n')

    def do_DELETE(self):
        self.reply(204, None, "")

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        msg = json.loads(self.rfile.read(length))
        method, mid = msg.get("method"), msg.get("id")
        ok = lambda result: json.dumps({"jsonrpc": "2.0", "id": mid, "result": result})
        if method == "initialize":
            self.reply(200, "application/json", ok({
                "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                "serverInfo": {"name": "http-rule-breaker", "version": "1"}}))
        elif mid is None:
            self.reply(200, "application/json", "{}")
        elif method == "tools/list":
            self.reply(200, "text/event-stream",
                       "id: e1\ndata:\n\ndata: " + ok({"tools": []}) + "\n\n", session="s-2")
        else:
            self.reply(200, "text/plain", ok({}))


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(f"listening on http://127.0.0.1:{server.server_address[1]}/mcp", flush=True)
server.serve_forever()
