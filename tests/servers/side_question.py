#!/usr/bin/env python3
"""A legacy (2025-11-25) Streamable HTTP server that asks its question on the side:
its tool `ask` sends `elicitation/create` on the session's GET stream (not on the
call's own stream), then keeps the call's event stream open with a keep-alive comment
every second until the client's answer comes, and only then answers the call, as the
Python SDK's HTTP server can. A client that does not follow the GET stream never sees
the question; one that counts keep-alives as progress waits for ever.

--never: the tool never asks and never answers; its stream carries only keep-alives.

Standard library only; binds 127.0.0.1 on a free port and prints the port.
"""
import json
import socket
import sys
import threading
import time

from rawhttp import read_request, respond, chunk, SSE_HEAD

SESSION = "side-session-1"
NEVER = "--never" in sys.argv[1:]
lock = threading.Condition()
state = {"side": None, "answer": None}


def event(message):
    return chunk(b"data: " + json.dumps(message).encode() + b"\n\n")


def call_ask(conn, mid):
    conn.sendall(SSE_HEAD)
    question = {"jsonrpc": "2.0", "id": "q1", "method": "elicitation/create",
                "params": {"mode": "form", "message": "Your name?",
                           "requestedSchema": {"type": "object",
                                               "properties": {"name": {"type": "string"}}}}}
    asked = False
    while True:
        with lock:
            if not asked and not NEVER and state["side"] is not None:
                state["side"].sendall(event(question))
                asked = True
            answer = state["answer"]
            if answer is None:
                lock.wait(1)
                answer = state["answer"]
        if answer is not None:
            break
        conn.sendall(chunk(b": keep-alive\n\n"))
    name = (answer.get("result") or {}).get("content", {}).get("name", "?")
    result = {"jsonrpc": "2.0", "id": mid,
              "result": {"content": [{"type": "text", "text": "hello " + str(name)}]}}
    conn.sendall(event(result) + b"0\r\n\r\n")


def serve(conn):
    with conn:
        while True:
            req = read_request(conn)
            if req is None:
                return
            method, headers, body = req
            if method == "GET":
                conn.sendall(SSE_HEAD)
                with lock:
                    state["side"] = conn
                    lock.notify_all()
                # The session's stream stays open until the client goes.
                while conn.recv(1):
                    pass
                return
            if method == "DELETE":
                respond(conn, "204 No Content", [])
                continue
            msg = json.loads(body)
            m, mid = msg.get("method"), msg.get("id")
            if m is None and mid is not None:
                with lock:
                    state["answer"] = msg
                    lock.notify_all()
                respond(conn, "202 Accepted", [])
            elif mid is None:
                respond(conn, "202 Accepted", [])
            elif m == "initialize":
                result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                          "serverInfo": {"name": "side-question", "version": "1"}}
                respond(conn, "200 OK", [("content-type", "application/json"), ("mcp-session-id", SESSION)],
                        json.dumps({"jsonrpc": "2.0", "id": mid, "result": result}).encode())
            elif m == "tools/list":
                result = {"tools": [{"name": "ask", "inputSchema": {"type": "object"}}]}
                respond(conn, "200 OK", [("content-type", "application/json")],
                        json.dumps({"jsonrpc": "2.0", "id": mid, "result": result}).encode())
            elif m == "tools/call":
                with lock:
                    state["answer"] = None
                call_ask(conn, mid)
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
