#!/usr/bin/env python3
"""`mcp-raw ui`, checked in a real browser (Debian's chromium, headless; standard
library only). Called by scripts/ui.sh with the binary and the browser:

    python3 scripts/ui_check.py [--frozen] BIN CHROMIUM RECORDING...

For each recording (a transcript made by --record), it starts `BIN ui RECORDING`
(with --frozen, by scripts/html.sh: writes `BIN show RECORDING --html PAGE` and
opens the file, with no listener and no network), loads the page in headless
Chromium (`--dump-dom` after the page's own script has run), and checks:

1. the page holds every message of the recording: its count equals the message
   facts of `show --json` (the library's reading, another program's output), it
   says the recording is whole, its script logged that count, and its console
   logged no error;
2. the filters, taken from the URL: `#messages=1&method=tools/call` keeps exactly
   the messages `show --method tools/call` keeps;
3. the sequence view (`#view=sequence`) is drawn;
4. a row opened from the URL (`#row=N`, the first tools/call request or else the first
   request, and the first
   HTTP head) shows bytes found verbatim in what its lane carried in that direction,
   read from the transcript file here (base64 or text, joined); the invisible bytes
   are badges (`<span class="mark" data-mark="0d">CR</span>`), each matched as the
   byte it names (a head's CRs: at least two);
4b. a session over HTTP (legacy `Mcp-Session-Id`): `#session=ID` keeps exactly the
   rows of that session, and the lane list groups its connections under it;
4c. the recording of `demo-http --auth` (a file named http-auth*.jsonl): the page's
   first OAuth flow is one line naming MCP's authorization steps in order (2025-11-25
   basic/authorization: challenge, resource metadata, server metadata, registration,
   authorize, token, retry, on the demo's connections c1 to c7), each with the status
   the transcript holds for its connection; folded (`#fold=1`), no row of the steps'
   own connections (c2 to c6) is drawn and fewer rows are shown;
5. (live) a page from another origin (a second listener on another loopback port),
   even one that knows the token, cannot read the stream;
4d. check's findings: the page counts as many as `mcp-raw check --format json`
   reports, and `#findings=1` keeps exactly the rows of the events they were found
   at; the first such row, opened, lists each of its event's rules (the recording
   of hostile input, stdio-hostile*.jsonl, has some);
4e. a 2026-07-28 call retried with requestState (stdio-mrtr*.jsonl, three rounds of
   test_input_required_result_multi_round): the third request, opened, is attempt 3
   of the operation begun by the first, and the final answer's time is the whole
   operation's, from the first request's time to its own, both read from the
   transcript here;
6. (live) the stream refuses a missing token and a foreign Origin, with a 403 that
   says why.

Exit status 0 when every check passes; each failure is printed.
"""
import base64
import html
import http.server
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

FAILED = []


def fail(what):
    FAILED.append(what)
    print("FAILED:", what)


def start_ui(binary, recording):
    proc = subprocess.Popen(
        [binary, "ui", recording], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    line = proc.stderr.readline()
    m = re.search(r"ui: (http://\S+)", line)
    if not m:
        proc.kill()
        raise SystemExit(f"no URL from `mcp-raw ui {recording}`: {line!r}")
    return proc, m.group(1)


def dump(browser, url, log_path, *extra):
    """The DOM after the page's script ran (virtual time lets its stream finish),
    without the page's own scripts (a frozen page has them inline: their text is no
    part of what the page shows)."""
    with open(log_path, "w") as log:
        out = subprocess.run(
            [
                browser, "--headless", "--no-sandbox", "--disable-gpu",
                "--enable-logging=stderr", "--v=0", "--virtual-time-budget=15000",
                *extra, "--dump-dom", url,
            ],
            stdout=subprocess.PIPE, stderr=log, text=True, timeout=120,
        )
    return re.sub(r"<script\b.*?</script>", "", out.stdout, flags=re.S)


# Screenshots of the main views go here (UI_SHOTS, else target/ui-shots), to be
# looked at: a check in a browser proves what the DOM holds, not how it reads.
SHOTS = os.environ.get("UI_SHOTS") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target", "ui-shots")


def shot(browser, url, name):
    os.makedirs(SHOTS, exist_ok=True)
    path = os.path.join(SHOTS, name + ".png")
    subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         "--virtual-time-budget=15000", "--window-size=1400,900", f"--screenshot={path}", url],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120,
    )
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        fail(f"no screenshot written to {path}")


def logged_count(log_path):
    """The message count the page's script logged when it had the whole recording."""
    with open(log_path) as f:
        m = re.search(r'"mcp-raw ui: (\d+) messages, \d+ rows"', f.read())
    return int(m.group(1)) if m else None


def console_errors(log_path):
    with open(log_path) as f:
        return [l for l in f if re.search(r"CONSOLE.*(Uncaught|Error)|:ERROR:CONSOLE", l)]


def check_findings(binary, browser, url, recording, rows, work, name):
    out = subprocess.run([binary, "check", "--format", "json", recording], stdout=subprocess.PIPE, text=True)
    report = json.loads(out.stdout)
    findings = report["findings"]
    dom = dump(browser, url + "#findings=1", f"{work}/{name}.findings.log")
    got = re.search(r'data-shown="(\d+)" data-flows="\d+" data-findings="(\d+)"', dom)
    # Each finding sits on the rows of its event (check counts events from 1, rows
    # from 0), or of the last event before it that brought rows.
    ns = sorted({r["n"] for r in rows})
    at = set()
    for f in findings:
        before = [n for n in ns if n <= f["event"] - 1]
        if before:
            at.add(before[-1])
    want_rows = sum(1 for r in rows if r["n"] in at)
    print(f"{name}: check found {len(findings)} on {len(at)} events ({want_rows} rows); the page: {got and got.group(2)} findings, {got and got.group(1)} rows kept by findings only")
    if not got or int(got.group(2)) != len(findings) or int(got.group(1)) != want_rows:
        fail(f"{name}: the page's findings {got and got.groups()} are not check's {len(findings)} on {want_rows} rows")
    if not findings:
        return
    first = next(i for i, r in enumerate(rows) if r["n"] in at)
    dom = dump(browser, url + f"#row={first}", f"{work}/{name}.finding.log")
    shot(browser, url + f"#findings=1&row={first}", f"{name}.findings")
    listed = re.findall(r'<li class="(?:error|warning)" data-rule="([^"]+)"', dom)
    want = [f["rule"] for f in findings if f["event"] - 1 == rows[first]["n"]]
    print(f"{name}: row {first} (event {rows[first]['n']}) lists {listed}; check: {want}")
    if not want or sorted(listed) != sorted(want):
        fail(f"{name}: row {first} lists the findings {listed}, check {want}")


def check_retry(browser, url, rows, work, name):
    calls = [i for i, r in enumerate(rows) if r.get("shape") == "request" and r.get("method") == "tools/call"]
    if len(calls) != 3:
        fail(f"{name}: {len(calls)} tools/call requests, not the 3 rounds")
        return
    first, third = calls[0], calls[2]
    dom = dump(browser, url + f"#row={third}", f"{work}/{name}.retry.log")
    shot(browser, url + f"#messages=1&row={third}", f"{name}.retry")
    m = re.search(r'<p class="retry">attempt (\d+) of the operation begun by <a data-go="(\d+)">', dom)
    print(f"{name}: the third tools/call (row {third}) reads {m and m.group(0)}")
    if not m or m.group(1) != "3" or int(m.group(2)) != first:
        fail(f"{name}: the third tools/call is not linked as attempt 3 of row {first}: {m and m.group(0)}")
    answer = next(i for i, r in enumerate(rows) if i > third and r.get("shape") == "response" and r.get("id") == rows[third]["id"])
    want = f"{(rows[answer]['t'] - rows[first]['t']) * 1000:.1f}"
    dom = dump(browser, url + f"#row={answer}", f"{work}/{name}.op.log")
    m = re.search(r"the whole operation, from its first attempt: ([\d.]+) ms", dom)
    print(f"{name}: the final answer's operation time: {m and m.group(1)} ms (the transcript's times: {want} ms)")
    if not m or m.group(1) != want:
        fail(f"{name}: the operation took {m and m.group(1)} ms on the page, {want} ms by the transcript")


def counts(dom):
    m = re.search(r'<output id="counts" data-rows="(\d+)" data-messages="(\d+)" data-shown="(\d+)"', dom)
    return tuple(map(int, m.groups())) if m else None


def show_count(binary, recording, *flags):
    out = subprocess.run(
        [binary, "show", recording, "--json", *flags], stdout=subprocess.PIPE, text=True, check=True
    ).stdout
    return sum(1 for l in out.splitlines() if '"fact":"message"' in l)


def stream_rows(url):
    """Every row the page's stream carries (the same stream the page reads)."""
    events = url.replace("/?token=", "/events?token=")
    rows = []
    with urllib.request.urlopen(events, timeout=30) as r:
        for raw in r:
            line = raw.decode()
            if line.startswith("event: end"):
                break
            if line.startswith("data: ") and line.strip() != "data: {}":
                rows.extend(json.loads(line[6:])["rows"])
    return rows


def frozen_page(binary, recording, work):
    """`show RECORDING --html PAGE`: the page's file URL and the rows it holds."""
    page = os.path.join(work, os.path.basename(recording) + ".html")
    subprocess.run([binary, "show", recording, "--html", page], check=True)
    with open(page) as f:
        text = f.read()
    m = re.search(r'<script type="application/json" id="recording">(.*?)</script>', text, re.S)
    if not m:
        raise SystemExit(f"{page}: no recording block")
    return "file://" + page, json.loads(m.group(1))["rows"]


MARK = re.compile(r'<span class="mark" data-mark="([0-9a-f]+|bom)"[^>]*>[^<]*</span>')


def unmark(inner):
    """The bytes an exact-bytes view shows, as a pattern over bytes: its text as
    UTF-8, each mark badge (`data-mark`: `0d` a CR, `bom`, or the hex of a byte or a
    control character) as the byte(s) it stands for. A mark of 80-ff may be a byte
    that is not UTF-8 or a C1 control character: either is accepted."""
    pattern = b""
    pieces = MARK.split(inner)
    for k, piece in enumerate(pieces):
        if k % 2 == 0:
            if "<" in piece:
                raise ValueError(f"markup other than marks in the bytes: {piece!r}")
            pattern += re.escape(html.unescape(piece).encode())
        elif piece == "bom":
            pattern += re.escape(b"\xef\xbb\xbf")
        else:
            code = int(piece, 16)
            char = re.escape(chr(code).encode())
            if 0x80 <= code <= 0xFF:
                pattern += b"(?:" + re.escape(bytes([code])) + b"|" + char + b")"
            else:
                pattern += char
    return pattern


def carried(recording, lane, direction):
    """Everything a lane carried in one direction, as bytes, from the transcript."""
    out = bytearray()
    with open(recording) as f:
        next(f)
        for line in f:
            e = json.loads(line)
            if e.get("lane") != lane or e.get("dir") != direction:
                continue
            if "text" in e:
                out += e["text"].encode()
            elif "base64" in e:
                out += base64.b64decode(e["base64"])
    return bytes(out)


def status_of(url, headers):
    req = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def check_recording(binary, browser, recording, work, frozen):
    name = os.path.basename(recording)
    if frozen:
        proc = None
        url, page_rows = frozen_page(binary, recording, work)
    else:
        proc, url = start_ui(binary, recording)
    try:
        want = show_count(binary, recording)
        dom = dump(browser, url, f"{work}/{name}.log")
        got = counts(dom)
        errors = console_errors(f"{work}/{name}.log")
        logged = logged_count(f"{work}/{name}.log")
        print(f"{name}: {want} messages recorded; the page: {got and got[1]} messages, {got and got[0]} rows; its script logged {logged}")
        if not got or got[1] != want:
            fail(f"{name}: the page shows {got and got[1]} messages, the recording has {want}")
        if logged != want:
            fail(f"{name}: the page's script logged {logged} messages, the recording has {want}")
        if 'data-loaded="whole"' not in dom:
            fail(f"{name}: the page never said the recording was whole")
        if errors:
            fail(f"{name}: console errors: {errors}")

        calls = show_count(binary, recording, "--method", "tools/call")
        dom = dump(browser, url + "#messages=1&method=tools%2Fcall", f"{work}/{name}.filter.log")
        got = counts(dom)
        print(f"{name}: tools/call kept by show --method: {calls}; shown by the page's filter: {got and got[2]}")
        if not got or got[2] != calls:
            fail(f"{name}: the filter keeps {got and got[2]} rows, show --method tools/call {calls}")

        dom = dump(browser, url + "#view=sequence", f"{work}/{name}.seq.log")
        shot(browser, url + "#view=sequence&messages=1", f"{name}.{'frozen' if frozen else 'live'}.sequence")
        if 'class="seq"' not in dom or 'class="seq-heads"' not in dom:
            fail(f"{name}: the sequence view was not drawn")

        rows = page_rows if frozen else stream_rows(url)
        requests = [i for i, r in enumerate(rows) if r.get("shape") == "request"]
        first = next((i for i in requests if rows[i].get("method") == "tools/call"), requests[0] if requests else None)
        if first is None:
            fail(f"{name}: no request among the stream's rows")
        else:
            check_bytes(browser, url, recording, rows, first, work, name, 0)
        # An HTTP head: its CRs are marks, each standing for a CR the lane carried.
        head = next((i for i, r in enumerate(rows) if r.get("kind") == "head"), None)
        if head is not None:
            check_bytes(browser, url, recording, rows, head, work, name, 2)

        if name.startswith("http-auth"):
            check_oauth(browser, url, recording, work, name)
        check_findings(binary, browser, url, recording, rows, work, name)
        if name.startswith("stdio-mrtr"):
            check_retry(browser, url, rows, work, name)

        # A session over HTTP: its filter keeps its rows, and the lane list groups its
        # connections under it.
        ids = [r["session"] for r in rows if r.get("session")]
        if ids:
            session = max(set(ids), key=ids.count)
            dom = dump(browser, url + f"#session={session}", f"{work}/{name}.session.log")
            got = counts(dom)
            lanes = sorted({r["lane"] for r in rows if r.get("session") == session})
            group = re.search(r'<optgroup label="session ([^"]*)">(.*?)</optgroup>', dom, re.S)
            grouped = re.findall(r'<option value="([^"]*)"', group.group(2)) if group else []
            print(f"{name}: session {session}: {ids.count(session)} rows, shown by its filter: {got and got[2]}; lanes grouped under it: {grouped}")
            if not got or got[2] != ids.count(session):
                fail(f"{name}: the session filter shows {got and got[2]} rows, not {ids.count(session)}")
            if not group or not set(grouped) <= set(lanes) or not grouped:
                fail(f"{name}: the lane list does not group {lanes} under session {session}: {group and group.group(0)}")
        return url
    finally:
        if proc:
            proc.kill()
            proc.wait()


AUTH_STEPS = ["challenge", "resource metadata", "server metadata", "registration", "authorize", "token", "retry"]


def flow_line(dom, n):
    """The text of OAuth flow n's line, its markup stripped."""
    m = re.search(r'<div class="row flow( folded)?" data-flow="%d"[^>]*>(.*?)</div>' % n, dom, re.S)
    return (bool(m.group(1)), html.unescape(re.sub(r"<[^>]+>", "", m.group(2)))) if m else (None, None)


def check_oauth(browser, url, recording, work, name):
    # Each step's status, read here from what its connection carried back: the
    # status line of its first response.
    want = []
    for k, step in enumerate(AUTH_STEPS):
        back = carried(recording, f"c{k + 1}", "s2c")
        status = re.match(rb"HTTP/1\.1 (\d{3}) ", back)
        want.append(f"{step} {status.group(1).decode() if status else '?'}")
    want = "OAuth flow 1: " + " → ".join(want)
    # A window tall enough for every row: a live page follows the end as rows come.
    tall = "--window-size=1400,2400"
    dom = dump(browser, url, f"{work}/{name}.oauth.log", tall)
    is_folded, line = flow_line(dom, 1)
    whole = counts(dom)
    print(f"{name}: the first OAuth flow's line: {line!r}")
    if line is None or line[1:].strip() != want or is_folded:
        fail(f"{name}: the first OAuth flow reads {line!r}, not {want!r}")
    shot(browser, url, f"{name}.list")
    dom = dump(browser, url + "#fold=1", f"{work}/{name}.fold.log", tall)
    shot(browser, url + "#fold=1", f"{name}.folded")
    is_folded, line = flow_line(dom, 1)
    folded = counts(dom)
    lanes = set(re.findall(r'<span class="lane">(c\d+)</span>', dom))
    print(f"{name}: folded: {folded and folded[2]} of {whole and whole[2]} rows shown; lanes drawn: {sorted(lanes)}")
    if not is_folded or not folded or not whole or folded[2] >= whole[2] or lanes & {"c2", "c3", "c4", "c5", "c6"}:
        fail(f"{name}: folding flow 1 left {folded and folded[2]} of {whole and whole[2]} rows, lanes {sorted(lanes)}")


def check_bytes(browser, url, recording, rows, i, work, name, min_marks):
    """Row i opened from the URL: its exact bytes are found in what its lane carried
    in its direction, each mark standing for the byte it says."""
    dom = dump(browser, url + f"#row={i}", f"{work}/{name}.row{i}.log")
    m = re.search(r'<pre id="bytes">(.*?)</pre>', dom, re.S)
    shown = unmark(m.group(1)) if m else None
    marks = len(MARK.findall(m.group(1))) if m else 0
    r = rows[i]
    wire = carried(recording, r["lane"], r["dir"])
    ok = bool(shown) and re.search(shown, wire) is not None
    print(f"{name}: row {i} ({r['kind']}) opened from the URL shows {len(m.group(1)) if m else 0} characters ({marks} marks); found in {r['lane']} {r['dir']}: {ok}")
    if not ok:
        fail(f"{name}: row {i}'s bytes are not what {r['lane']} carried: {m and m.group(1)!r}")
    if marks < min_marks:
        fail(f"{name}: row {i} ({r['kind']}) shows {marks} marks, fewer than {min_marks}")


def check_other_origin(binary, browser, recording, work):
    """A page served from another loopback port tries to read the stream with the token."""
    proc, url = start_ui(binary, recording)
    try:
        info = url.replace("/?token=", "/info?token=")
        page = (
            "<!DOCTYPE html><html><body><script>"
            f"fetch({json.dumps(info)}).then(r => r.text())"
            ".then(t => { document.body.dataset.read = 'read:' + t; })"
            ".catch(e => { document.body.dataset.read = 'blocked:' + e; });"
            "</script></body></html>"
        )

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                body = page.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        other = f"http://127.0.0.1:{server.server_address[1]}/"
        dom = dump(browser, other, f"{work}/other-origin.log")
        server.shutdown()
        m = re.search(r'data-read="([^"]*)"', dom)
        read = html.unescape(m.group(1)) if m else None
        print(f"a page at {other} fetching the stream with the token: {read!r}")
        if not read or not read.startswith("blocked:"):
            fail(f"a page from another origin read the stream: {read!r}")
        # The server's own refusal, whatever a browser would do.
        origin = f"http://127.0.0.1:{server.server_address[1]}"
        status, body = status_of(info, {"Origin": origin})
        host = url.split("/")[2]
        want = f'Forbidden: Origin "{origin}" is not this page\'s own (http://{host}); another page may not read the stream\n'
        if (status, body) != (403, want):
            fail(f"a foreign Origin got {status} {body!r}, not 403 {want!r}")
        status, body = status_of(url.split("?")[0] + "events?token=wrong", {})
        want = "Forbidden: the token is missing or wrong; open the URL printed when the ui started\n"
        if (status, body) != (403, want):
            fail(f"a wrong token got {status} {body!r}")
    finally:
        proc.kill()
        proc.wait()


def main():
    args = sys.argv[1:]
    frozen = args[:1] == ["--frozen"]
    binary, browser, *recordings = args[1:] if frozen else args
    work = tempfile.mkdtemp(prefix="mcp-raw-ui-")
    for recording in recordings:
        check_recording(binary, browser, recording, work, frozen)
    if not frozen:
        check_other_origin(binary, browser, recordings[0], work)
    what = "html" if frozen else "ui"
    if FAILED:
        print(f"{what}: {len(FAILED)} check(s) failed")
        sys.exit(1)
    print(f"{what}: OK")


if __name__ == "__main__":
    main()
