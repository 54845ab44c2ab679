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
5. No exception was thrown in the page.

Exit status 0 when every check passes.
"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Browser  # noqa: E402

FAILED = []


def fail(what):
    FAILED.append(what)
    print("FAILED:", what)


def messages_in(binary, record):
    out = subprocess.run([binary, "show", record, "--json"], stdout=subprocess.PIPE, text=True, check=True).stdout
    return sum(1 for l in out.splitlines() if '"fact":"message"' in l)


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
            thrown = tab.console_errors()
            if thrown:
                fail(f"the page threw: {thrown}")
    finally:
        server.kill()
        server.wait()
    if FAILED:
        print(f"ui live: {len(FAILED)} check(s) failed")
        sys.exit(1)
    print("ui live: OK")


if __name__ == "__main__":
    main()
