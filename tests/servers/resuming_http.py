#!/usr/bin/env python3
"""A legacy (2025-11-25) Streamable HTTP server, shaped like the conformance suite's
sse-retry scenario: the tools/call POST gets an event stream with one priming event
(`id`, `retry: 300`, empty data) and is closed cleanly, without the response; a GET
with that Last-Event-ID gets the response, and that GET stream then stays open (it is
also the session's stream) and is never closed. A GET without Last-Event-ID is the
session's stream: a priming event, then nothing, never closed (2025-11-25
basic/transports "Resumability and Redelivery", "Listening for Messages from the
Server"). --keep-alive sends a comment line on open streams every second.

--huge-list answers tools/list with a 4 MB JSON body (Content-Length given);
--huge-stream with an event stream of 4 MB of events, chunked, no length given.

--on-session-stream: the tools/call stream closes with no event id (nothing to
resume), and 0.3 s later the response comes on the session's GET stream instead
(which 2025-11-25 forbids; a client should still take it).

--empty-discover answers `server/discover` with `{"result": {}}` (as some legacy
servers answer any method they do not know), not with a method-not-found error.

Standard library only; binds 127.0.0.1 on a free port and prints the port.
"""
import json
import socket
import sys
import threading
import time

from rawhttp import read_request, respond, chunk, SSE_HEAD

SESSION = "resume-session-1"
EMPTY_DISCOVER = "--empty-discover" in sys.argv[1:]
KEEP_ALIVE = "--keep-alive" in sys.argv[1:]
HUGE_LIST = "--huge-list" in sys.argv[1:]
HUGE_STREAM = "--huge-stream" in sys.argv[1:]
ON_SESSION = "--on-session-stream" in sys.argv[1:]
session_stream = {"conn": None}
pending = {"id": None}


# The same, for a stream after which the server closes the connection.
SSE_HEAD_CLOSE = (b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                  b"connection: close\r\ntransfer-encoding: chunked\r\n\r\n")


def keep_open(conn):
    """An open stream: a keep-alive comment every second (--keep-alive), or nothing,
    until the client goes."""
    try:
        while True:
            time.sleep(1)
            if KEEP_ALIVE:
                conn.sendall(chunk(b": keep-alive\n\n"))
            elif not conn.recv(1):
                return
    except OSError:
        return


def serve(conn):
    with conn:
        while True:
            req = read_request(conn)
            if req is None:
                return
            method, headers, body = req
            if method == "GET":
                conn.sendall(SSE_HEAD)
                if headers.get("last-event-id") == "e1" and pending["id"] is not None:
                    result = {"jsonrpc": "2.0", "id": pending["id"],
                              "result": {"content": [{"type": "text", "text": "delivered on the resumed stream"}]}}
                    conn.sendall(chunk(b"id: e2\ndata: " + json.dumps(result).encode() + b"\n\n"))
                else:
                    conn.sendall(chunk(b"id: g1\nretry: 300\ndata: \n\n"))
                    session_stream["conn"] = conn
                keep_open(conn)
                return
            if method == "DELETE":
                respond(conn, "204 No Content", [])
                continue
            msg = json.loads(body)
            m, mid = msg.get("method"), msg.get("id")
            if mid is None:
                respond(conn, "202 Accepted", [])
            elif m == "server/discover" and EMPTY_DISCOVER:
                respond(conn, "200 OK", [("content-type", "application/json")],
                        json.dumps({"jsonrpc": "2.0", "id": mid, "result": {}}).encode())
            elif m == "initialize":
                result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                          "serverInfo": {"name": "resuming", "version": "1"}}
                respond(conn, "200 OK", [("content-type", "application/json"), ("mcp-session-id", SESSION)],
                        json.dumps({"jsonrpc": "2.0", "id": mid, "result": result}).encode())
            elif m == "tools/list" and HUGE_LIST:
                pad = "x" * (4 << 20)
                result = {"tools": [{"name": "big", "description": pad, "inputSchema": {"type": "object"}}]}
                respond(conn, "200 OK", [("content-type", "application/json")],
                        json.dumps({"jsonrpc": "2.0", "id": mid, "result": result}).encode())
            elif m == "tools/list" and HUGE_STREAM:
                note = {"jsonrpc": "2.0", "method": "notifications/message",
                        "params": {"level": "info", "data": "y" * 65536}}
                event = b"data: " + json.dumps(note).encode() + b"\n\n"
                try:
                    conn.sendall(SSE_HEAD)
                    for _ in range(64):
                        conn.sendall(chunk(event))
                except OSError:
                    return
                return
            elif m == "tools/list":
                result = {"tools": [{"name": "test_reconnection", "inputSchema": {"type": "object"}}]}
                respond(conn, "200 OK", [("content-type", "application/json")],
                        json.dumps({"jsonrpc": "2.0", "id": mid, "result": result}).encode())
            elif m == "tools/call" and ON_SESSION:
                conn.sendall(SSE_HEAD_CLOSE + chunk(b": working on it\n\n") + b"0\r\n\r\n")
                result = {"jsonrpc": "2.0", "id": mid,
                          "result": {"content": [{"type": "text", "text": "delivered on the session stream"}]}}
                time.sleep(0.3)
                session_stream["conn"].sendall(chunk(b"data: " + json.dumps(result).encode() + b"\n\n"))
                return
            elif m == "tools/call":
                pending["id"] = mid
                # The priming event, then a clean close: the last chunk, and the
                # connection shut.
                conn.sendall(SSE_HEAD_CLOSE + chunk(b"id: e1\nretry: 300\ndata: \n\n") + b"0\r\n\r\n")
                return
            else:
                err = {"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "Method not found: %s" % m}}
                respond(conn, "200 OK", [("content-type", "application/json")], json.dumps(err).encode())


listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen(16)
print(listener.getsockname()[1], flush=True)
while True:
    c, _ = listener.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
