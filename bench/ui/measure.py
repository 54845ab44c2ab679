#!/usr/bin/env python3
"""How `mcp-raw ui` copes with a big recording, measured in Debian's headless chromium.

    python3 bench/ui/measure.py target/release/mcp-raw /usr/bin/chromium 10000 100000

(a debug build turns rows about seven times slower: measure a release one).

For each N: a recording of N messages (make_recording.py, beside this file), served by
`mcp-raw ui`, opened with `&measure=1` (ui.js then logs its marks on the console, read
here from chromium's stderr), in wall-clock time (no virtual time: real time is what is
measured). Twice: first as a user sees it (the browser opens the page as the server
starts reading the file): first rows drawn and the whole recording loaded, in ms since
navigation; then with a fresh server whose stream a plain client has read whole first
(server ms: the file read and turned into rows, rows.rs), so the page's own part shows:
loaded with the rows ready, of it the time the page's script spent parsing and adding
rows, a scroll to the end drawn (draw and layout), one filter keystroke over every row,
the page's JS heap (performance.memory, precise) and the server's RSS (/proc) once the
page has everything. Standard library only.
"""
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def page(browser, url, tmp, ui_pid):
    """The page's marks, read from chromium's console lines until it says it is done;
    with the server's RSS at that moment."""
    marks = {}
    profile = tempfile.mkdtemp(dir=tmp)
    browser_proc = subprocess.Popen(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr",
         "--v=0", "--enable-precise-memory-info", "--window-size=1280,800",
         f"--user-data-dir={profile}", url],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    try:
        for line in browser_proc.stderr:
            m = re.search(r'"mcp-raw measure (\S+) ([\d.]+)(?: took ([\d.]+))?(?: busy ([\d.]+))?(?: heap (-?\d+))?"', line)
            if m:
                what, at, took, busy, heap = m.groups()
                marks[what] = float(took) if took else float(at)
                if busy:
                    marks["busy"] = float(busy)
                if what == "done":
                    marks["heap"] = int(heap) / 1024 / 1024
                    marks["rss"] = rss_mib(ui_pid)
                    break
            if re.search(r"CONSOLE.*(Uncaught|Error)", line):
                print("page error:", line.strip(), file=sys.stderr)
            if time.monotonic() > deadline:
                break
    finally:
        browser_proc.kill()
        browser_proc.wait()
    if "done" not in marks:
        raise SystemExit(f"the page never said it was done (marks: {marks})")
    return marks


def served(binary, recording, then):
    """`then(url, pid)` while `mcp-raw ui recording` serves it."""
    ui = subprocess.Popen([binary, "ui", recording], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    try:
        line = ui.stderr.readline()
        m = re.search(r"ui: (http://\S+)", line)
        if not m:
            raise SystemExit(f"no URL from `mcp-raw ui`: {line!r}")
        return then(m.group(1) + "&measure=1", ui.pid)
    finally:
        ui.kill()
        ui.wait()


def measure(binary, browser, n, tmp):
    recording = os.path.join(tmp, f"rec-{n}.jsonl")
    subprocess.run([sys.executable, os.path.join(HERE, "make_recording.py"), str(n), recording], check=True)
    # As a user sees it: the browser opens the page as the server starts reading.
    cold = served(binary, recording, lambda url, pid: page(browser, url, tmp, pid))

    # The server's part alone: the whole stream read by a plain client, so the file is
    # read and turned into rows (rows.rs) before the browser comes; the page's numbers
    # are then the page's own (and the transfer's).
    def warm(url, pid):
        start = time.monotonic()
        with urllib.request.urlopen(url.replace("/?", "/events?"), timeout=600) as events:
            for chunk in iter(lambda: events.read(1 << 20), b""):
                if b"event: end" in chunk[-64:]:
                    break
        server = (time.monotonic() - start) * 1000
        marks = page(browser, url, tmp, pid)
        marks["server"] = server
        return marks

    marks = served(binary, recording, warm)
    marks["first-rows"] = cold["first-rows"]
    marks["cold"] = cold["loaded"]
    marks["size"] = os.path.getsize(recording) / 1024 / 1024
    os.remove(recording)
    return marks


def main():
    if len(sys.argv) < 4:
        sys.exit("usage: measure.py MCP_RAW CHROMIUM N...")
    binary, browser, *counts = sys.argv[1:]
    with tempfile.TemporaryDirectory() as tmp:
        results = [(int(n), measure(binary, browser, int(n), tmp)) for n in counts]
    print(f"{'messages':>9} {'file MiB':>9} {'server ms':>10} {'first rows ms':>14} {'loaded ms':>10} {'ready, loaded ms':>17} {'of it JS ms':>12} "
          f"{'scroll end ms':>14} {'filter ms':>10} {'JS heap MiB':>12} {'server RSS MiB':>15}")
    for n, m in results:
        print(f"{n:>9} {m['size']:>9.1f} {m['server']:>10.0f} {m['first-rows']:>14.0f} {m['cold']:>10.0f} {m['loaded']:>17.0f} {m['busy']:>12.0f} "
              f"{m['scrolled']:>14.1f} {m['filtered']:>10.1f} {m['heap']:>12.1f} {m['rss']:>15.1f}")


if __name__ == "__main__":
    main()
