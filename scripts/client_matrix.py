#!/usr/bin/env python3
"""The client matrix's table, from the recordings scripts/client-matrix.sh made
(standard library only):

    python3 scripts/client_matrix.py MCP_RAW REC_DIR write|--check

REC_DIR holds NAME.jsonl (a `serve --http --record`) or NAME-PID.jsonl (a stdio
server's, one per session), NAME being CLIENT@VERSION-TRANSPORT. For each row: the
eras the client spoke (an `initialize` request: 2025-11-25; a request whose `_meta`
names 2026-07-28), what `mcp-raw check --format json` finds, and over HTTP whether it
opened the session's GET stream and sent DELETE. The cells name `check`'s rules, so a
client that changes shows as a changed cell. Written between the markers of
docs/en/src/reference/clients.md and docs/zh-CN/src/reference/clients.md; with
--check, the pages must already say it (a difference is printed and fails).
"""
import glob
import json
import os
import re
import subprocess
import sys

import matrix_scenarios

BEGIN, END = "<!-- client-matrix: begin -->", "<!-- client-matrix: end -->"
PAGES = {
    "docs/en/src/reference/clients.md": [
        "client", "transport", "spoke", "session id", "version header", "Accept",
        "GET stream", "DELETE", "resumption", "server requests", "tasks", "after errors",
        "check (errors; warnings)",
    ],
    "docs/zh-CN/src/reference/clients.md": [
        "client", "transport", "说的版本", "session id", "版本 header", "Accept",
        "GET 流", "DELETE", "恢复", "服务器请求", "任务", "出错之后",
        "check（错误；警告）",
    ],
}
SESSION_RULES = ["http/session-id-dropped", "http/session-id-changed", "http/session-id-unknown",
                 "http/session-id-charset"]


def events(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    return [json.loads(l) for l in lines[1:] if l.strip()]


def client_text(evs, http):
    """What the client sent: the stdio lane's c2s text, or every HTTP lane's."""
    return "".join(e.get("text", "") for e in evs
                   if e.get("dir") == "c2s" and (e.get("lane") != "stdio") == http
                   and e.get("lane") != "stderr")


def spoke(text):
    """The eras the client's messages declare: `initialize` (2025-11-25), a `_meta`
    naming 2026-07-28."""
    eras = set()
    if re.search(r'"method"\s*:\s*"initialize"', text):
        eras.add("2025-11-25")
    if re.search(r'"io\.modelcontextprotocol/protocolVersion"\s*:\s*"2026-07-28"', text):
        eras.add("2026-07-28")
    return eras


def check(bin_, path):
    out = subprocess.run([bin_, "check", "--format", "json", path], capture_output=True, text=True)
    doc = json.loads(out.stdout)
    return [(f["rule"], f["severity"]) for f in doc["findings"]]


def code(s):
    return f"`{s}`"


def row(bin_, name, files, scenario_files):
    client, transport = name.rsplit("-", 1)
    http = transport == "http"
    eras, findings, text = set(), [], ""
    for path in files:
        evs = events(path)
        t = client_text(evs, http)
        text += t
        eras |= spoke(t)
        findings += check(bin_, path)
    scenarios = []
    for path in scenario_files:
        found = check(bin_, path)
        findings += found
        scenarios.append(matrix_scenarios.cells(events(path), {r for r, _ in found}))
    scenario_cells = matrix_scenarios.render(scenarios) if scenarios else ["—"] * 4
    rules = {r for r, _ in findings}
    errors = sorted({r for r, s in findings if s == "error"})
    warnings = sorted({r for r, s in findings if s == "warning"})
    legacy_http = http and "2025-11-25" in eras
    dash = "—"
    session = dash
    if legacy_http:
        bad = [r for r in SESSION_RULES if r in rules]
        session = ", ".join(map(code, bad)) if bad else "kept"
    version = dash
    if legacy_http:
        version = code("http/protocol-version-header") if "http/protocol-version-header" in rules else "sent"
    accept = dash if not http else (code("http/accept") if "http/accept" in rules else "both types")
    get = dash if not legacy_http else ("opened" if re.search(r"^GET /", text, re.M) else "not opened")
    delete = dash
    if legacy_http:
        delete = code("http/session-not-deleted") if "http/session-not-deleted" in rules else "sent"
    said = "; ".join([", ".join(map(code, errors)) or "0", ", ".join(map(code, warnings)) or "0"])
    return [code(client), transport, ", ".join(map(code, sorted(eras))) or "none", session,
            version, accept, get, delete, *scenario_cells, said]


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


def grouped(rec):
    """REC's recordings by row name: NAME.jsonl, or NAME-PID.jsonl (a stdio server's)."""
    names = {}
    for path in sorted(glob.glob(os.path.join(rec, "*.jsonl"))):
        base = os.path.basename(path)[:-len(".jsonl")]
        name = re.sub(r"-\d+$", "", base) if not base.endswith(("-http", "-stdio")) else base
        names.setdefault(name, []).append(path)
    return names


def main():
    bin_, rec, mode = sys.argv[1:4]
    names, scenarios = grouped(rec), grouped(os.path.join(rec, "scenarios"))
    order = lambda n: (n.rsplit("-", 1)[0], n.rsplit("-", 1)[1])
    rows = [row(bin_, n, names[n], scenarios.get(n, [])) for n in sorted(names, key=order)]
    if not rows:
        sys.exit("no recordings in " + rec)
    failed = False
    for page, header in PAGES.items():
        with open(page, encoding="utf-8") as f:
            text = f.read()
        before, rest = text.split(BEGIN, 1)
        _, after = rest.split(END, 1)
        new = before + BEGIN + "\n" + table(header, rows) + "\n" + END + after
        if mode == "--check":
            if new != text:
                failed = True
                print(f"{page} differs from what the clients do now (scripts/client-matrix.sh rewrites it):")
                print(table(header, rows))
        else:
            with open(page, "w", encoding="utf-8") as f:
                f.write(new)
            print(f"wrote {page}: {len(rows)} rows")
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
