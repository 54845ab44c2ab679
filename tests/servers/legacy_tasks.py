#!/usr/bin/env python3
"""A legacy (2025-11-25) stdio server with experimental tasks, both ways, written
from the spec for mcp-raw's client tests (standard library only):

- tool `research` has execution.taskSupport "required": tools/call must carry
  `task`; the task goes working -> input_required, and tasks/result first asks an
  elicitation/create (tied to the task by _meta related-task), then answers.
- tool `ask_as_task` sends the client a task-augmented sampling/createMessage,
  then polls the client's tasks/get and fetches its tasks/result.
Each line it reads is one JSON-RPC message; it exits at EOF.
"""
import json
import sys

RELATED = "io.modelcontextprotocol/related-task"
out_id = 0
tasks = {}
pending = []  # lines that arrived while waiting for an answer of ours


def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


def read():
    if pending:
        return pending.pop(0)
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)
    return json.loads(line)


def ask(method, params):
    """Sends a request to the client and returns its response (others wait)."""
    global out_id
    out_id += 1
    mine = "srv-%d" % out_id
    send({"jsonrpc": "2.0", "id": mine, "method": method, "params": params})
    while True:
        line = sys.stdin.readline()
        if not line:
            sys.exit(0)
        msg = json.loads(line)
        if msg.get("id") == mine and "method" not in msg:
            return msg
        pending.append(msg)


def task(tid, status):
    return {"taskId": tid, "status": status, "createdAt": "2026-12-02T00:00:00Z",
            "lastUpdatedAt": "2026-12-02T00:00:00Z", "ttl": 60000, "pollInterval": 50}


def handle(msg):
    method, mid, params = msg.get("method"), msg.get("id"), msg.get("params") or {}
    if mid is None:
        return
    ok = lambda result: send({"jsonrpc": "2.0", "id": mid, "result": result})
    err = lambda code, text: send({"jsonrpc": "2.0", "id": mid, "error": {"code": code, "message": text}})
    if method == "initialize":
        ok({"protocolVersion": "2025-11-25", "serverInfo": {"name": "legacy-tasks", "version": "1"},
            "capabilities": {"tools": {}, "tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}}})
    elif method == "tools/list":
        ok({"tools": [
            {"name": "research", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}},
            {"name": "ask_as_task", "inputSchema": {"type": "object"}},
        ]})
    elif method == "tools/call" and params.get("name") == "research":
        if "task" not in params:
            return err(-32602, "research requires task augmentation")
        tid = "t%d" % (len(tasks) + 1)
        tasks[tid] = {"polls": 0}
        ok({"task": task(tid, "working")})
    elif method == "tasks/get":
        t = tasks.get(params.get("taskId"))
        if t is None:
            return err(-32602, "no such task")
        t["polls"] += 1
        ok(task(params["taskId"], "working" if t["polls"] < 2 else "input_required"))
    elif method == "tasks/result":
        tid = params.get("taskId")
        if tid not in tasks:
            return err(-32602, "no such task")
        answer = ask("elicitation/create", {
            "message": "Which one?", "_meta": {RELATED: {"taskId": tid}},
            "requestedSchema": {"type": "object", "properties": {"pick": {"type": "string"}}}})
        pick = answer.get("result", {}).get("content", {}).get("pick", "nothing")
        ok({"content": [{"type": "text", "text": "researched: " + pick}], "_meta": {RELATED: {"taskId": tid}}})
    elif method == "tools/call" and params.get("name") == "ask_as_task":
        created = ask("sampling/createMessage", {"task": {"ttl": 30000}, "maxTokens": 10,
                                                 "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}]})
        tid = created["result"]["task"]["taskId"]
        status = ask("tasks/get", {"taskId": tid})["result"]["status"]
        result = ask("tasks/result", {"taskId": tid})["result"]
        ok({"content": [{"type": "text", "text": "client task %s: %s" % (status, result["content"]["text"])}]})
    elif method == "ping":
        ok({})
    else:
        err(-32601, "Method not found: %s" % method)


while True:
    handle(read())
