"""The client matrix's scenario columns (scripts/client_matrix.py), read from the
recordings `mcp-raw serve --fixture conformance --record` made while a client ran its
scenario driver (interop/ts/scenarios.mjs, interop/py/scenarios.py, or a command line
for mcp-raw's client and the Inspector's CLI). Standard library only.

Every cell is what the server's recording shows, never what a driver printed:

- resumption: the server ends the stream of `test_reconnection`'s POST with an SSE
  event holding an `id` and `retry: 500` (legacy HTTP, SEP-1699). Did the client then
  GET with `Last-Event-ID` naming that id, and no sooner than `retry` said
  (`check`'s `sse/retry-ignored` decides "too soon")? A dash when the server never
  dropped a stream (stdio, 2026-07-28).
- server requests: `test_sampling` and `test_elicitation` ask the client. Legacy: a
  request on the call's stream, and the client's JSON-RPC response (a result, or an
  error and its code). 2026-07-28: an `input_required` result, and whether the client
  called again with `inputResponses`. "not declared" when the client's capabilities
  lacked it (the server may not ask, 2025-11-25 `client/sampling`).
- tasks: `slow_compute` called as a task. Legacy: the client's `params.task`
  (2025-11-25 experimental tasks); 2026-07-28: the tasks extension in the request's
  client capabilities, then the `tasks/get` polls until a final status.
- after errors: after `test_error_handling` (a result with isError) and an unknown
  tool (a JSON-RPC error), did the client send another request on the same session,
  answered with a result?
A dash in a scenario column also means the client's driver did not run that scenario
(the page's prose says why).
"""
import json

DASH = "—"
TASKS_EXT = "io.modelcontextprotocol/tasks"
CAPS_META = "io.modelcontextprotocol/clientCapabilities"


def code(s):
    return f"`{s}`"


def _json(text):
    """The first JSON value in text (a body may carry chunk framing around it)."""
    start = text.find("{")
    if start < 0:
        return None
    try:
        value, _ = json.JSONDecoder().raw_decode(text[start:])
        return value
    except ValueError:
        return None


def messages(evs):
    """Every JSON-RPC message of a recording, in order, as dicts: t, lane, dir, msg
    (the parsed message), session (the request's Mcp-Session-Id, HTTP legacy), head
    (the HTTP start line of the request or response carrying it)."""
    last_text, last_sse, heads, sessions = {}, {}, {}, {}
    out = []
    for e in evs:
        key = (e.get("lane"), e.get("dir"))
        if "text" in e:
            last_text[key] = e["text"]
        fact = e.get("fact")
        if fact == "head":
            heads[key] = e.get("start", "")
            if e.get("dir") == "c2s":
                hs = dict((k.lower(), v) for k, v in e.get("headers", []))
                sessions[e.get("lane")] = hs.get("mcp-session-id")
        elif fact == "sse":
            last_sse[key] = "\n".join(v for k, v in e.get("lines", []) if k == "data")
        elif fact == "message":
            src = e.get("source")
            if src == "sse-data":
                msg = _json(last_sse.get(key, ""))
            elif src == "body":
                text = last_text.get(key, "")
                msg = _json(text.split("\r\n\r\n", 1)[1] if "\r\n\r\n" in text else text)
            else:
                msg = _json(last_text.get(key, ""))
            if isinstance(msg, dict):
                out.append({"t": e.get("t", 0.0), "lane": e.get("lane"), "dir": e.get("dir"),
                            "msg": msg, "session": sessions.get(e.get("lane")),
                            "head": heads.get(key, "")})
    return out


def _tool_calls(msgs, tool):
    return [m for m in msgs if m["dir"] == "c2s" and m["msg"].get("method") == "tools/call"
            and (m["msg"].get("params") or {}).get("name") == tool]


def _answer(msgs, dir_, id_, after):
    """The response travelling dir_ to the request id_ sent at index `after`."""
    for m in msgs[after + 1:]:
        if m["dir"] == dir_ and "method" not in m["msg"] and m["msg"].get("id") == id_:
            return m["msg"]
    return None


def resumption(evs, rules):
    drops = []  # (t, event id, retry ms) of an event with retry: on a POST's stream
    heads = {}
    for e in evs:
        if e.get("fact") == "head":
            heads[(e.get("lane"), e.get("dir"))] = e
        if e.get("fact") == "sse" and e.get("dir") == "s2c":
            fields = dict(e.get("lines", []))
            if "retry" in fields and "id" in fields:
                drops.append((e.get("t", 0.0), fields["id"], fields["retry"]))
    said = set()
    for t, eid, retry in drops:
        gets = [e for e in evs if e.get("fact") == "head" and e.get("dir") == "c2s"
                and e.get("start", "").startswith("GET ") and e.get("t", 0.0) >= t]
        resumed = [g for g in gets
                   if dict((k.lower(), v) for k, v in g.get("headers", [])).get("last-event-id") == eid]
        if resumed:
            said.add("too soon for `retry`" if "sse/retry-ignored" in rules
                     else f"`Last-Event-ID`, after `retry: {retry}`")
        elif gets:
            said.add("GET without `Last-Event-ID`")
        else:
            said.add("not resumed")
    return {"": said}


def _declared(msgs, index, cap):
    """Whether the client declared capability `cap` for the request at index: its
    initialize (legacy, the latest before it) or the request's own `_meta` (modern)."""
    m = msgs[index]["msg"]
    meta = ((m.get("params") or {}).get("_meta") or {})
    if CAPS_META in meta:
        return cap in (meta[CAPS_META] or {})
    for prev in reversed(msgs[:index]):
        if prev["dir"] == "c2s" and prev["msg"].get("method") == "initialize":
            return cap in ((prev["msg"].get("params") or {}).get("capabilities") or {})
    return False


def server_requests(msgs):
    cells = {}
    for tool, method, cap, word in [("test_sampling", "sampling/createMessage", "sampling", "sampling"),
                                    ("test_elicitation", "elicitation/create", "elicitation", "elicitation")]:
        calls = _tool_calls(msgs, tool)
        if not calls:
            continue
        said = set()
        for call in calls:
            i = msgs.index(call)
            if (call["msg"].get("params") or {}).get("inputResponses") is not None:
                continue  # a retry: judged with the call it answers
            if not _declared(msgs, i, cap):
                said.add("not declared")
                continue
            asked = next((j for j in range(i + 1, len(msgs)) if msgs[j]["dir"] == "s2c"
                          and msgs[j]["msg"].get("method") == method), None)
            result = _answer(msgs, "s2c", call["msg"].get("id"), i)
            if asked is not None and (result is None or msgs.index(next(
                    m for m in msgs if m["msg"] is result)) > asked):
                reply = _answer(msgs, "c2s", msgs[asked]["msg"].get("id"), asked)
                if reply is None:
                    said.add("not answered")
                elif "error" in reply:
                    said.add(f"error `{reply['error'].get('code')}`")
                else:
                    said.add("answered")
                continue
            if result is not None and (result.get("result") or {}).get("resultType") == "input_required":
                retried = any((m["msg"].get("params") or {}).get("inputResponses") is not None
                              for m in _tool_calls(msgs[i + 1:], tool))
                said.add("retried with `inputResponses`" if retried else "not retried")
                continue
            said.add("not asked")
        cells[word] = said
    return cells


def tasks(msgs):
    said = set()
    calls = _tool_calls(msgs, "slow_compute")
    for call in calls:
        i = msgs.index(call)
        params = call["msg"].get("params") or {}
        caps = ((params.get("_meta") or {}).get(CAPS_META) or {})
        result = (_answer(msgs, "s2c", call["msg"].get("id"), i) or {}).get("result") or {}
        era = "2026-07-28" if CAPS_META in (params.get("_meta") or {}) else "2025-11-25"
        if "task" in params:
            made = "task" in result
            said.add("sent `params.task`" + ("" if made else " (this server makes no 2025-11-25 task)"))
        elif TASKS_EXT in (caps.get("extensions") or {}):
            if result.get("resultType") != "task":
                said.add(f"{era}: declared the extension, no task made")
                continue
            tid = result.get("taskId")
            polls = [j for j, m in enumerate(msgs) if j > i and m["dir"] == "c2s"
                     and m["msg"].get("method") == "tasks/get"
                     and (m["msg"].get("params") or {}).get("taskId") == tid]
            final = [(_answer(msgs, "s2c", msgs[j]["msg"].get("id"), j) or {}).get("result", {}).get("status")
                     for j in polls]
            if not polls:
                said.add(f"{era}: task not polled")
            elif final[-1] in ("completed", "failed", "cancelled"):
                said.add(f"{era}: polled `tasks/get` to `{final[-1]}`")
            else:
                said.add(f"{era}: stopped polling early")
        else:
            said.add(f"{era}: plain call")
    return {"": said}


def after_errors(msgs):
    said = set()
    bad = _tool_calls(msgs, "no_such_tool")
    for call in bad:
        i = msgs.index(call)
        answer = _answer(msgs, "s2c", call["msg"].get("id"), i)
        if answer is None or "error" not in answer:
            said.add("no JSON-RPC error to test")
            continue
        later = [j for j in range(i + 1, len(msgs)) if msgs[j]["dir"] == "c2s"
                 and "method" in msgs[j]["msg"] and "id" in msgs[j]["msg"]
                 and msgs[j]["session"] == call["session"]]
        if not later:
            said.add("no later request")
            continue
        j = later[0]
        if msgs[j]["msg"]["method"] == "initialize":
            said.add("started a new session")
            continue
        reply = _answer(msgs, "s2c", msgs[j]["msg"].get("id"), j)
        if reply is None or "result" not in reply:
            said.add("next request failed")
        else:
            # A 2026-07-28 client has no session to keep: it carries on.
            said.add("kept the session" if call["session"] else "carried on")
    return {"": said}


def cells(evs, rules):
    """What one recording shows for the four scenarios: per column, a dict from a
    label ("" or the server request's name) to the set of what was seen."""
    msgs = messages(evs)
    return [resumption(evs, rules), server_requests(msgs), tasks(msgs), after_errors(msgs)]


def render(per_file):
    """A row's four cells from its recordings' (several on stdio, one per session):
    the union of what each showed; a dash where none showed anything."""
    out = []
    for column in zip(*per_file):
        merged = {}
        for found in column:
            for label, said in found.items():
                merged.setdefault(label, set()).update(said)
        parts = [(f"{label}: " if label else "") + ", ".join(sorted(said))
                 for label, said in sorted(merged.items()) if said]
        out.append("; ".join(parts) or DASH)
    return out
