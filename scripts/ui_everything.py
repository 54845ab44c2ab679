#!/usr/bin/env python3
"""A real client and a real server through `tap --ui`, the page open in a real
browser (Debian's chromium over the DevTools protocol, scripts/cdp.py): the
TypeScript SDK v1 client (interop/ts/everything_client.mjs) against
@modelcontextprotocol/server-everything, over stdio and over Streamable HTTP.

    python3 scripts/ui_everything.py BIN CHROMIUM

For each transport:
1. the page is open while the client runs (over HTTP before it starts; over stdio the
   client starts the tap, and the page opens as soon as the tap says its URL);
2. the page comes to show as many messages as the tap's own --record holds
   (`show --json`'s message facts);
3. one for one: the page's message rows, in order, each found (its shown bytes, the
   marks read back as the bytes they stand for) in what its lane carried in its
   direction in the transcript file, each after the one before: the bytes shown are
   the transcript's, none missing, none made up;
4. a screenshot of the page (UI_SHOTS, else target/ui-shots); no exception thrown;
5. (stdio) intercept: the tap runs with `--intercept tool:get-sum`; the client's
   get-sum call waits on the page, is opened there, its arguments edited
   (1000 + 234) and "forward as edited" clicked: the TS client's answer is 1234, the
   recording marks the hold as held then changed, and what the server got is the
   edited call;
   (stdio) resend, while that call waits (the session is live): the client's
   tools/list request opened (`#row=N`), edited on the page into a get-sum call of
   its own (id "page-1", 20 + 22), "send again" clicked: its answer (42) arrives as
   a new row, which is the recording's `answered` mark byte for byte, the line the
   server got is the edited text, and the TS client never sees that answer;
6. (HTTP) resend from the page: the get-sum request opened (`#row=N`), its arguments
   edited in the page's text box, "send again" clicked: the tap opens a new
   connection from the address the page's server names, whose request body is the
   edited text byte for byte, and the server's answer arrives as that connection's
   rows (the session has ended by then, so server-everything answers what it answers
   a request of an ended session; its status is printed).

Needs interop/ts/node_modules (interop/run.sh or scripts/ui.sh installs it).
"""
import base64
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Browser  # noqa: E402
from ui_live import edit_resend, messages_in, resend_go  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
EV = os.path.join(ROOT, "interop/ts/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
CLIENT = os.path.join(ROOT, "interop/ts/everything_client.mjs")
LOOPBACK = os.path.join(ROOT, "scripts/conformance/loopback-only.cjs")
SHOTS = os.environ.get("UI_SHOTS") or os.path.join(ROOT, "target", "ui-shots")
FAILED = []


def fail(what):
    FAILED.append(what)
    print("FAILED:", what)


def carried(record):
    """(lane, dir) -> every byte it carried, from the transcript's event lines."""
    out = {}
    with open(record) as f:
        next(f)
        for line in f:
            e = json.loads(line)
            if "fact" in e:
                continue
            key = (e["lane"], e["dir"])
            if "text" in e:
                out.setdefault(key, bytearray()).extend(e["text"].encode())
            elif "base64" in e:
                out.setdefault(key, bytearray()).extend(base64.b64decode(e["base64"]))
    return out


def unmarked(shown):
    """A row's bytes as the page holds them, its marks (`␍`, `⟨BOM⟩`, `⟨xx⟩`) read
    back as the bytes they stand for."""
    out = bytearray()
    for k, part in enumerate(re.split(r"(␍|⟨BOM⟩|⟨[0-9a-f]{2,6}⟩)", shown)):
        if k % 2 == 0:
            out += part.encode()
        elif part == "␍":
            out += b"\r"
        elif part == "⟨BOM⟩":
            out += b"\xef\xbb\xbf"
        else:
            code = int(part[1:-1], 16)
            out += bytes([code]) if code >= 0x80 and code <= 0xFF else chr(code).encode()
    return bytes(out)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_for(path_or_proc, pattern, within=30):
    """The first match of `pattern` in a file's text as it grows."""
    deadline = time.time() + within
    while time.time() < deadline:
        try:
            with open(path_or_proc) as f:
                m = re.search(pattern, f.read())
            if m:
                return m.group(1)
        except FileNotFoundError:
            pass
        time.sleep(0.05)
    return None


def check_page(binary, browser, tab, record, name):
    want = messages_in(binary, record)
    shown = "Number(document.getElementById('counts').dataset.messages)"
    if not tab.wait(f"{shown} === {want}", within=30):
        fail(f"{name}: the page shows {tab.eval(shown)} messages, the tap recorded {want}")
        return
    rows = tab.eval("window.mcpRawRows.filter((r) => r.kind === 'msg').map((r) => [r.lane, r.dir, r.bytes || ''])")
    wire = carried(record)
    at = {}
    matched = 0
    for lane, direction, text in rows:
        b = unmarked(text)
        stream = bytes(wire.get((lane, direction), b""))
        i = stream.find(b, at.get((lane, direction), 0))
        if not b or i < 0:
            fail(f"{name}: a {direction} row on {lane} shows bytes its lane did not carry next: {text[:120]!r}")
            return
        at[(lane, direction)] = i + len(b)
        matched += 1
    print(f"{name}: the tap recorded {want} messages; the page shows {len(rows)} message rows, each one's bytes found in order in its lane's transcript")
    if matched != want:
        fail(f"{name}: {matched} message rows for {want} recorded messages")
    os.makedirs(SHOTS, exist_ok=True)
    tab.screenshot(os.path.join(SHOTS, f"ui-everything-{name}.png"))
    thrown = tab.console_errors()
    if thrown:
        fail(f"{name}: the page threw: {thrown}")


def stdio(binary, chromium, work):
    record = os.path.join(work, "tap-stdio.jsonl")
    log = os.path.join(work, "tap-stdio.log")
    # The client starts the tap (its stderr, where the page's URL is said, to a file).
    shim = 'exec "$0" tap --ui --intercept tool:get-sum --record "$1" -- node "$2" stdio 2>"$3"'
    client = subprocess.Popen(
        ["node", CLIENT, "stdio", "sh", "-c", shim, binary, record, EV, log],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        url = wait_for(log, r"ui: (http://\S+)")
        if not url:
            fail("stdio: the tap never said its page's URL")
            return
        with Browser(chromium) as browser:
            tab = browser.open(url)
            resent = None
            if tab.wait("document.body.dataset.waiting === '1'", within=30):
                resent = resend_while_held(tab)
            intercepted = hold_and_edit(tab)
            out, err = client.communicate(timeout=120)
            if client.returncode != 0:
                fail(f"stdio: the TS client failed: {err[-2000:]}")
                return
            if intercepted:
                seen = json.loads(out)
                sums = [c.get("text") for c in seen.get("sum", {}).get("content", [])]
                print(f"intercept: the TS client's get-sum answer after the edit: {sums}")
                if not any("1234" in (t or "") for t in sums):
                    fail(f"intercept: the client's answer is {sums}, not the edited call's 1234")
                marks = [json.loads(l)["intercept"] for l in open(record) if '"intercept"' in l]
                steps = [m["step"] for m in marks if m["step"] in ("held", "changed")]
                if steps != ["held", "changed"]:
                    fail(f"intercept: the recording marks {steps}, not held then changed")
                if resent:
                    check_resent(marks, resent, out)
            check_page(binary, browser, tab, record, "stdio")
    finally:
        if client.poll() is None:
            client.kill()
        # The tap keeps its page served after the session (until Ctrl-C): end it.
        for pid in os.listdir("/proc"):
            if pid.isdigit():
                try:
                    cmd = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
                except OSError:
                    continue
                if b"tap" in cmd and record.encode() in cmd:
                    os.kill(int(pid), signal.SIGINT)


def hold_and_edit(tab):
    """The get-sum call the tap holds: opened on the page, edited, forwarded."""
    if not tab.wait("document.body.dataset.waiting === '1'", within=30):
        fail("intercept: the page never showed a held message")
        return False
    i = tab.eval("window.mcpRawRows.findIndex((r) => r.kind === 'intercept' && r.step === 'held')")
    tab.eval(f"location.hash = 'row={i}'; location.reload()")
    if not tab.wait("document.getElementById('hold-text') !== null", within=10):
        fail("intercept: the held row offers no decision")
        return False
    os.makedirs(SHOTS, exist_ok=True)
    tab.screenshot(os.path.join(SHOTS, "ui-intercept-held.png"))
    tab.eval("""(() => {
        const box = document.getElementById('hold-text');
        const m = JSON.parse(box.value);
        m.params.arguments = { a: 1000, b: 234 };
        box.value = JSON.stringify(m, null, 2);
        document.getElementById('hold-change').click();
    })()""")
    if not tab.wait("document.body.dataset.waiting === '0'", within=10):
        fail("intercept: the tap did not say the hold was decided")
        return False
    return True


def resend_while_held(tab):
    """The page's own get-sum, resent from the tools/list request's row while the
    client's call is held: (the text sent, the answer row's bytes) or None."""
    i = tab.eval("window.mcpRawRows.findIndex((r) => r.kind === 'msg' && r.dir === 'c2s' && r.method === 'tools/list')")
    if i is None or i < 0:
        fail("stdio resend: no tools/list request row")
        return None
    tab.eval(f"location.hash = 'row={i}'; location.reload()")
    if not tab.wait("document.getElementById('resend-text') !== null", within=10):
        fail("stdio resend: the opened tools/list request offers no resend")
        return None
    edited = tab.eval("""(() => {
        const box = document.getElementById('resend-text');
        const m = JSON.parse(box.value);
        m.id = 'page-1';
        m.method = 'tools/call';
        m.params = { name: 'get-sum', arguments: { a: 20, b: 22 } };
        box.value = JSON.stringify(m);
        return box.value;
    })()""")
    os.makedirs(SHOTS, exist_ok=True)
    tab.screenshot(os.path.join(SHOTS, "ui-resend-stdio-edited.png"))
    tab.eval("document.getElementById('resend-go').click()")
    answered = "window.mcpRawRows.find((r) => r.step === 'answered' && r.id === '\"page-1\"')"
    if not tab.wait(f"{answered} !== undefined", within=10):
        fail(f"stdio resend: no answer row: {tab.eval('document.getElementById(' + repr('resend-said') + ').textContent')}")
        return None
    answer = tab.eval(f"{answered}.bytes")
    paired = tab.eval(f"{answered}.pair !== undefined && window.mcpRawRows[{answered}.pair].id === '\"page-1\"'")
    said = tab.eval("document.getElementById('resend-said').textContent")
    os.makedirs(SHOTS, exist_ok=True)
    tab.eval(f"location.hash = 'row=' + window.mcpRawRows.indexOf({answered}); location.reload()")
    tab.wait("document.getElementById('detail').dataset.row !== undefined", within=10)
    tab.screenshot(os.path.join(SHOTS, "ui-resend-stdio.png"))
    print(f"stdio resend: {said}; the answer row (paired with its request: {paired}): {answer[:160]}")
    if not paired:
        fail("stdio resend: the answer row is not paired with the resent request")
    return edited, answer


def check_resent(marks, resent, client_out):
    """The recording's resend marks are what the page sent and showed; the client
    never saw the answer."""
    edited, answer = resent
    sent = [m.get("text") for m in marks if m["step"] == "resent"]
    got = [m.get("text") for m in marks if m["step"] == "answered"]
    if sent != [edited + "\n"]:
        fail(f"stdio resend: the recording's resent line is {sent}, not the edited text {edited!r}")
    if [unmarked(answer) + b"\n"] != [g.encode() for g in got]:
        fail(f"stdio resend: the page's answer row {answer!r} is not the recording's answered mark {got}")
    if '"42"' not in answer and "42" not in answer:
        fail(f"stdio resend: the answer is not 20 + 22: {answer}")
    if "page-1" in client_out:
        fail("stdio resend: the TS client saw the page's answer")
    print("stdio resend: the recording's resent and answered marks are the page's text and row byte for byte; the client never saw it")


def check_resend(tab):
    i = tab.eval("window.mcpRawRows.findIndex((r) => r.kind === 'msg' && r.tool === 'get-sum' && r.dir === 'c2s')")
    if i is None or i < 0:
        fail("resend: no get-sum request row")
        return
    tab.eval(f"location.hash = 'row={i}'; location.reload()")
    if not tab.wait("document.getElementById('resend-text') !== null"):
        fail("resend: the opened get-sum request offers no resend")
        return
    edited = edit_resend(tab, {"a": 1000, "b": 234})
    sent_from, said = resend_go(tab)
    if sent_from is None:
        fail(f"resend: not sent: {said}")
        return
    lane_of = f"(window.mcpRawRows.find((r) => r.kind === 'lane' && r.summary.startsWith('opened: accepted from {sent_from},')) || {{}}).lane"
    if not tab.wait(f"{lane_of} !== undefined && window.mcpRawRows.some((r) => r.lane === {lane_of} && r.dir === 's2c' && r.kind === 'head')", within=20):
        fail(f"resend: no answer on a connection from {sent_from}")
        return
    lane = tab.eval(lane_of)
    body = tab.eval(f"(window.mcpRawRows.find((r) => r.lane === '{lane}' && r.dir === 'c2s' && r.kind === 'msg') || {{}}).bytes")
    status = tab.eval(f"window.mcpRawRows.find((r) => r.lane === '{lane}' && r.dir === 's2c' && r.kind === 'head').summary")
    answer = tab.eval(f"(window.mcpRawRows.find((r) => r.lane === '{lane}' && r.dir === 's2c' && r.kind === 'msg') || {{}}).bytes")
    if body != edited:
        fail(f"resend: the request sent on {lane} is {body!r}, not the edited text {edited!r}")
        return
    print(f"resend: sent from {sent_from} as lane {lane}, body the edited text byte for byte; answered {status}: {(answer or '(no message)')[:160]}")


def start_tap(binary, flags, log, name, what):
    """`mcp-raw tap FLAGS…`, its stderr written to `log`: the process, and the page's
    URL and the address it listens on, as it says them there (both None, and a
    failure counted, when it did not say them in time)."""
    tap = subprocess.Popen([binary, "tap", *flags], stdout=subprocess.DEVNULL, stderr=open(log, "w"))
    url = wait_for(log, r"ui: (http://\S+)")
    addr = wait_for(log, r"listening on (http://[^\s,]+)")
    if not url or not addr:
        fail(f"{name}: {what} did not say its page and its address")
        return tap, None, None
    return tap, url, addr


def live_tab(browser, url, name):
    """The page at `url` opened in `browser`, once it says it is live (a failure is
    counted when it never does)."""
    tab = browser.open(url)
    if not tab.wait("document.getElementById('status').textContent === 'live'"):
        fail(f"{name}: the page never said it was live")
    return tab


def http(binary, chromium, work):
    record = os.path.join(work, "tap-http.jsonl")
    port = free_port()
    env = dict(os.environ, PORT=str(port), NODE_OPTIONS=f"--require {LOOPBACK}")
    server_log = os.path.join(work, "everything-http.log")
    server = subprocess.Popen(["node", EV, "streamableHttp"], env=env, stdout=open(server_log, "w"), stderr=subprocess.STDOUT)
    tap_log = os.path.join(work, "tap-http.log")
    tap = None
    try:
        if not wait_for(server_log, r"(listening on port)"):
            fail("http: server-everything did not start")
            return
        tap, url, mcp = start_tap(
            binary,
            ["--http", "--listen", "127.0.0.1:0", "--target", f"http://127.0.0.1:{port}/mcp", "--ui", "--record", record],
            tap_log, "http", "the tap",
        )
        if not url:
            return
        with Browser(chromium) as browser:
            tab = live_tab(browser, url, "http")
            out = subprocess.run(["node", CLIENT, "http", mcp], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
            if out.returncode != 0:
                fail(f"http: the TS client failed: {out.stderr[-2000:]}")
                return
            check_page(binary, browser, tab, record, "http")
            check_resend(tab)
    finally:
        for p in (tap, server):
            if p is not None:
                p.send_signal(signal.SIGINT)
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()


def main():
    binary, chromium = sys.argv[1:3]
    if not os.path.exists(EV):
        raise SystemExit(f"server-everything is not installed ({EV}): npm ci in interop/ts")
    work = tempfile.mkdtemp(prefix="mcp-raw-ui-everything-")
    stdio(binary, chromium, work)
    http(binary, chromium, work)
    if FAILED:
        print(f"ui everything: {len(FAILED)} check(s) failed")
        sys.exit(1)
    print("ui everything: OK")


if __name__ == "__main__":
    main()
