#!/usr/bin/env python3
"""`serve --http --ui`, live, in a real browser driven over the DevTools protocol
(scripts/cdp.py; standard library only):

    python3 scripts/ui_live.py BIN CHROMIUM

1. The server runs with `--ui` and `--record`; the page is opened before any client
   comes, so everything it shows arrives live.
2. A client session (`mcp-raw client URL --call add=…`): the page must come to show
   exactly the messages the server's own recording holds (`show --json`'s message
   facts), no more.
3. A reload mid-run: the new page shows the same count again (nothing lost, nothing
   twice).
4. A second session: the page grows by exactly its messages.
5. Export, clicked in the page (downloads into a scratch directory): the whole
   recording as .jsonl is the server's --record file byte for byte; what the
   filters show (`tools/call` requests) as .jsonl is a smaller transcript in which
   `show --method tools/call` counts every tools/call message the whole one holds;
   the whole as .html is a frozen page of every row.
6. No exception was thrown in the page.
7. A client's page (`client URL --ui --era legacy|modern --call add=…`, against the
   same server): after its calls the client keeps the session open; the tools/call
   request row opened (`#row=N`), its arguments edited on the page (40 + 2), "send
   again" clicked: the answer (42) arrives as a new row paired with the request, the
   client's own --record holds the request as edited (with the session's next id)
   and that answer, byte for byte as the page shows them; Ctrl-C then closes the
   session (legacy: the last request is its DELETE) and the client exits 0.
   Screenshots in target/ui-shots (UI_SHOTS).

Exit status 0 when every check passes.
"""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Browser  # noqa: E402

FAILED = []


def fail(what):
    FAILED.append(what)
    print("FAILED:", what)


def messages_in(binary, record):
    out = subprocess.run([binary, "show", record, "--json"], stdout=subprocess.PIPE, text=True, check=True).stdout
    return sum(1 for l in out.splitlines() if '"fact":"message"' in l)


def method_count(binary, record, method):
    out = subprocess.run([binary, "show", record, "--json", "--method", method], stdout=subprocess.PIPE, text=True, check=True).stdout
    return sum(1 for l in out.splitlines() if '"fact":"message"' in l)


def lines_in(path):
    with open(path, "rb") as f:
        return f.read().count(b"\n")


def download(browser, tab, folder, what, button):
    """Clicks an export button with `what` chosen; the file it downloads."""
    before = set(os.listdir(folder))
    tab.eval(f"document.getElementById('ex-what').value = '{what}'")
    tab.eval(f"document.getElementById('{button}').click()")
    deadline = time.time() + 20
    while time.time() < deadline:
        new = [f for f in set(os.listdir(folder)) - before if not f.endswith(".crdownload")]
        if new:
            time.sleep(0.2)  # the rename is the last step; the bytes are written
            return os.path.join(folder, new[0])
        time.sleep(0.05)
    status = tab.eval("document.getElementById('status').textContent")
    fail(f"no file downloaded for {what} {button}; the page says {status!r}")
    return None


def check_export(binary, browser, tab, record, work):
    folder = os.path.join(work, "downloads")
    os.makedirs(folder)
    browser.call("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": folder})
    whole = download(browser, tab, folder, "whole", "ex-jsonl")
    if whole:
        same = open(whole, "rb").read() == open(record, "rb").read()
        print(f"export of the whole: {os.path.basename(whole)}, {lines_in(whole)} lines; the --record file: {lines_in(record)}; {'byte for byte the same' if same else 'DIFFERENT'}")
        if not same:
            fail("the whole export is not the server's --record file")
    tab.eval("(() => { const m = document.getElementById('method'); m.value = 'tools/call'; m.dispatchEvent(new Event('input')); })()")
    shown = download(browser, tab, folder, "shown", "ex-jsonl")
    if shown:
        want = method_count(binary, record, "tools/call")
        got = method_count(binary, shown, "tools/call")
        print(f"export of what is shown (method tools/call): {lines_in(shown)} lines; tools/call messages {got}, the whole has {want}")
        if got != want or want == 0 or lines_in(shown) >= lines_in(record):
            fail(f"the filtered export holds {got} tools/call messages (want {want}) in {lines_in(shown)} lines (the whole: {lines_in(record)})")
    page = download(browser, tab, folder, "whole", "ex-html")
    if page:
        text = open(page, encoding="utf-8").read()
        if not text.startswith("<!DOCTYPE html>") or 'id="recording"' not in text:
            fail(f"the .html export is not a frozen page: {text[:80]!r}")
        else:
            print(f"export as a page: {os.path.basename(page)}, {len(text)} bytes, the rows inside")


SHOTS = os.environ.get("UI_SHOTS") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target", "ui-shots")


def edit_resend(tab, arguments):
    """The open row's resend box, its tools/call `arguments` set to `arguments` (a
    dict): the box's new text."""
    return tab.eval("""(() => {
        const box = document.getElementById('resend-text');
        const m = JSON.parse(box.value);
        m.params.arguments = %s;
        box.value = JSON.stringify(m);
        return box.value;
    })()""" % json.dumps(arguments))


def resend_go(tab):
    """The resend button clicked, then up to 20 s for the page to mark what it sent:
    (`data-resent`, None), or (None, what the page said instead)."""
    tab.eval("document.getElementById('resend-go').click()")
    if not tab.wait("document.body.dataset.resent !== undefined", within=20):
        return None, tab.eval("document.getElementById('resend-said').textContent")
    return tab.eval("document.body.dataset.resent"), None


def client_resend(binary, browser, mcp, era, work):
    """A client's page resends an edited call on the client's live session."""
    record = os.path.join(work, f"client-{era}.jsonl")
    client = subprocess.Popen(
        [binary, "client", mcp, "--ui", "--color", "never", "--era", era, "--record", record, "--call", 'add={"a":1,"b":2}'],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    try:
        page = None
        kept = False
        deadline = time.time() + 30
        while time.time() < deadline and not kept:
            line = client.stderr.readline()
            if not line:
                break
            m = re.search(r"ui: (http://\S+)", line)
            if m and page is None:
                page = m.group(1)
            kept = "the session open for its resends" in line
        if not page or not kept:
            fail(f"client {era}: no page kept with its session open")
            return
        tab = browser.open(page)
        row = "window.mcpRawRows.findIndex((r) => r.kind === 'msg' && r.dir === 'c2s' && r.method === 'tools/call')"
        if not tab.wait(f"{row} >= 0"):
            fail(f"client {era}: no tools/call request row")
            return
        tab.eval(f"location.hash = 'row=' + {row}; location.reload()")
        if not tab.wait("document.getElementById('resend-text') !== null", within=10):
            fail(f"client {era}: the tools/call request offers no resend")
            return
        edit_resend(tab, {"a": 40, "b": 2})
        os.makedirs(SHOTS, exist_ok=True)
        tab.screenshot(os.path.join(SHOTS, f"ui-client-resend-{era}-edited.png"))
        sent, said = resend_go(tab)
        if sent is None:
            fail(f"client {era}: not sent: {said}")
            return
        answer = f"window.mcpRawRows.find((r) => r.kind === 'msg' && r.dir === 's2c' && r.id === '{sent}')"
        if not tab.wait(f"{answer} !== undefined", within=20):
            fail(f"client {era}: no answer row for id {sent}")
            return
        shown = tab.eval(f"{answer}.bytes")
        request = tab.eval(f"window.mcpRawRows[{answer}.pair].bytes")
        said = tab.eval("document.getElementById('resend-said').textContent")
        tab.eval(f"location.hash = 'row=' + window.mcpRawRows.indexOf({answer}); location.reload()")
        tab.wait("document.getElementById('detail').dataset.row !== undefined", within=10)
        tab.screenshot(os.path.join(SHOTS, f"ui-client-resend-{era}.png"))
        client.send_signal(signal.SIGINT)
        code = client.wait(timeout=20)
        if code != 0:
            fail(f"client {era}: exited {code} after Ctrl-C")
        text = open(record, encoding="utf-8").read()
        lanes = "".join(json.loads(l).get("text", "") for l in text.splitlines()[1:] if '"fact"' not in l)
        starts = [json.loads(l)["start"] for l in text.splitlines() if '"fact":"head"' in l and '"dir":"c2s"' in l]
        print(f"client {era}: {said}; the answer row: {shown[:120]}")
        if '"a":40' not in request or f'"id":{sent}' not in request:
            fail(f"client {era}: the resent request row is {request!r}")
        if '42' not in shown:
            fail(f"client {era}: the answer is not 40 + 2: {shown}")
        if request not in lanes or shown not in lanes:
            fail(f"client {era}: the page's request or answer is not in the client's recording byte for byte")
        if era == "legacy" and (not starts or not starts[-1].startswith("DELETE ")):
            fail(f"client {era}: the session was not DELETEd on Ctrl-C: {starts[-3:]}")
        print(f"client {era}: the resent request and its answer are the client's --record's bytes; Ctrl-C closed the session ({starts[-1] if starts else '?'}) and the client exited {code}")
    finally:
        if client.poll() is None:
            client.kill()
            client.wait()


def main():
    binary, chromium = sys.argv[1:3]
    work = tempfile.mkdtemp(prefix="mcp-raw-ui-live-")
    record = os.path.join(work, "server.jsonl")
    server = subprocess.Popen(
        [binary, "serve", "--http", "--port", "0", "--ui", "--record", record],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    try:
        page = re.search(r"ui: (http://\S+)", server.stderr.readline()).group(1)
        mcp = re.search(r"listening on (http://\S+/mcp)", server.stderr.readline()).group(1)
        shown = "Number(document.getElementById('counts').dataset.messages)"
        with Browser(chromium) as browser:
            tab = browser.open(page)
            if not tab.wait("document.getElementById('status').textContent === 'live'"):
                fail("the page never said it was live")

            def session(n):
                out = subprocess.run(
                    [binary, "client", mcp, "--color", "never", "--call", f'add={{"a":{n},"b":1}}'],
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60,
                )
                if out.returncode != 0:
                    fail(f"the client failed: {out.stderr}")

            session(1)
            want = messages_in(binary, record)
            ok = tab.wait(f"{shown} === {want}")
            print(f"after one session: the server recorded {want} messages; the page shows {tab.eval(shown)}")
            if not ok:
                fail(f"the page shows {tab.eval(shown)} messages, the server recorded {want}")

            tab.reload()
            ok = tab.wait(f"{shown} === {want}")
            print(f"after a reload: the page shows {tab.eval(shown)}")
            if not ok:
                fail(f"after a reload the page shows {tab.eval(shown)} messages, not {want}")

            session(2)
            grown = messages_in(binary, record)
            ok = tab.wait(f"{shown} === {grown}")
            print(f"after a second session: the server recorded {grown}; the page shows {tab.eval(shown)}")
            if not ok or grown <= want:
                fail(f"the page shows {tab.eval(shown)} messages, the server recorded {grown}")
            check_export(binary, browser, tab, record, work)
            thrown = tab.console_errors()
            if thrown:
                fail(f"the page threw: {thrown}")
            for era in ("legacy", "modern"):
                client_resend(binary, browser, mcp, era, work)
    finally:
        server.kill()
        server.wait()
    if FAILED:
        print(f"ui live: {len(FAILED)} check(s) failed")
        sys.exit(1)
    print("ui live: OK")


if __name__ == "__main__":
    main()
