#!/usr/bin/env python3
"""A modern (2026-07-28) Streamable HTTP server with two tools a client must handle
with care:

  bad_header   its inputSchema carries an invalid x-mcp-header ("not a token"), so a
               client drops it from the list (2026-07-28 server/tools "x-mcp-header")
               and must not call it
  ask_user     wants to ask the client (elicitation) but, stateless, has no
               back-channel: it fails with isError true and says so, as an SDK server
               without input_required support does
  add          an ordinary tool

The method `broken/method` gets HTTP 500 with an empty body (no JSON-RPC response).
Every request must carry _meta's protocol version. Standard library only; binds
127.0.0.1 on a free port and prints the port.
"""
import http.server
import json

VERSION = "2026-07-28"
TOOLS = [
    {"name": "add", "inputSchema": {"type": "object", "properties": {"a": {"type": "integer"}}}},
    {"name": "bad_header", "inputSchema": {"type": "object", "properties": {
        "region": {"type": "string", "x-mcp-header": "not a token"}}}},
    {"name": "ask_user", "inputSchema": {"type": "object"}},
]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, body=None):
        data = json.dumps(body).encode() if body is not None else b""
        self.send_response(status)
        if body is not None:
            self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.send(405)

    def do_DELETE(self):
        self.send(405)

    def do_POST(self):
        msg = json.loads(self.rfile.read(int(self.headers.get("content-length", "0"))))
        method, rid = msg.get("method"), msg.get("id")
        if rid is None:
            return self.send(202)
        meta = (msg.get("params") or {}).get("_meta") or {}
        if meta.get("io.modelcontextprotocol/protocolVersion") != VERSION:
            return self.send(400, {"jsonrpc": "2.0", "id": rid, "error": {
                "code": -32022, "message": "Unsupported protocol version",
                "data": {"supported": [VERSION]}}})
        if method == "server/discover":
            result = {"supportedVersions": [VERSION], "capabilities": {"tools": {}},
                      "serverInfo": {"name": "modern-quirks", "version": "1"}}
        elif method == "broken/method":
            return self.send(500)
        elif method == "tools/list":
            result = {"tools": TOOLS}
        elif method == "tools/call":
            name = msg["params"]["name"]
            if name == "ask_user":
                text = ("Error executing tool ask_user: elicitation is not available: "
                        "this stateless request has no back-channel to the client")
                result = {"content": [{"type": "text", "text": text}], "isError": True}
            else:
                result = {"content": [{"type": "text", "text": "called " + name}]}
        else:
            return self.send(404, {"jsonrpc": "2.0", "id": rid, "error": {
                "code": -32601, "message": "Method not found"}})
        result["resultType"] = "complete"
        self.send(200, {"jsonrpc": "2.0", "id": rid, "result": result})


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
