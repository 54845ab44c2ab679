#!/usr/bin/env python3
"""A legacy (2025-11-25) Streamable HTTP server whose tools/call stream is cut: the
TCP connection is closed in the middle of the chunked event stream, after one event
with an id (no final chunk). A GET with that Last-Event-ID then delivers the
response (2025-11-25 basic/transports "Resumability and Redelivery"). Standard
library only; binds 127.0.0.1 on a free port and prints it.
"""
import json
import socket
import threading

from rawhttp import read_request, respond, chunk

SESSION = "drop-session-1"


def serve(conn):
    with conn:
        while True:
            req = read_request(conn)
            if req is None:
                return
            method, headers, body = req
            if method == "GET" and headers.get("last-event-id") == "e1":
                result = {"jsonrpc": "2.0", "id": pending_id[0],
                          "result": {"content": [{"type": "text", "text": "delivered after the drop"}]}}
                payload = b"id: e2\ndata: " + json.dumps(result).encode() + b"\n\n"
                conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                             b"transfer-encoding: chunked\r\n\r\n" + chunk(payload) + b"0\r\n\r\n")
                continue
            if method == "GET":
                respond(conn, "405 Method Not Allowed", [("allow", "POST, DELETE")])
                continue
            if method == "DELETE":
                respond(conn, "204 No Content", [])
                continue
            msg = json.loads(body)
            m, mid = msg.get("method"), msg.get("id")
            if mid is None:
                respond(conn, "202 Accepted", [])
            elif m == "initialize":
                result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                          "serverInfo": {"name": "dropping", "version": "1"}}
                respond(conn, "200 OK", [("content-type", "application/json"), ("mcp-session-id", SESSION)],
                        json.dumps({"jsonrpc": "2.0", "id": mid, "result": result}).encode())
            elif m == "tools/list":
                result = {"tools": [{"name": "cut", "inputSchema": {"type": "object"}}]}
                respond(conn, "200 OK", [("content-type", "application/json")],
                        json.dumps({"jsonrpc": "2.0", "id": mid, "result": result}).encode())
            elif m == "tools/call":
                pending_id[0] = mid
                conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                             b"transfer-encoding: chunked\r\n\r\n"
                             + chunk(b"id: e1\nretry: 100\ndata: \n\n"))
                # Cut: no final chunk, and a reset rather than a clean close.
                conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
                return
            else:
                err = {"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "Method not found: %s" % m}}
                respond(conn, "200 OK", [("content-type", "application/json")], json.dumps(err).encode())


pending_id = [None]
listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen(16)
print(listener.getsockname()[1], flush=True)
while True:
    c, _ = listener.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
