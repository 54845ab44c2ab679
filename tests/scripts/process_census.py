#!/usr/bin/env python3
"""How the integration tests reach the code they test (standard library only):

    python3 tests/scripts/process_census.py [--by-file]

- binary starts: call sites that start `target/debug/mcp-raw` as a process:
  `Command::new(BIN)` (or `common::BIN`), `Command::new(bin)` (a helper handed the
  binary's path, or a copy of it: tests/wrap.rs) and `HttpServer::start(` (which
  builds its own `Command::new(BIN)`); `HttpServer::spawn(cmd)` is not counted
  again, its command was counted where it was built;
- in-process: call sites that run the server inside the test process, on port 0
  (`InProcess::…(`, `serve_here(`), a tool run in-process as the peer of a test
  (`AuthPeer::…(`, `MockPeer::…(`, `TapPeer::…(`, `ProxyPeer::…(`, tests/common/
  tools_inproc.rs), or the library's client driven as the CLI drives it
  (`drive_http…(`, tests/common/client_inproc.rs), or the command line itself run
  in-process, `mcp_raw::run` on a captured console (`cli_here(`,
  tests/common/cli_inproc.rs);
- real sleeps: `thread::sleep(` calls (a test waiting on the wall clock);
  `tokio::time::sleep(` is listed apart: under a paused clock
  (`start_paused = true`) it costs no time.

It counts call sites in the source, not runs: a site in a loop counts once.
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
KINDS = {
    "binary starts": re.compile(r"Command::new\((common::)?BIN\)|Command::new\(bin\)|HttpServer::start\("),
    "in-process": re.compile(
        r"InProcess::\w+\(|serve_here\(|(Auth|Mock|Tap|Proxy)Peer::\w+\(|drive_http\w*\(|cli_here\("
    ),
    "real sleeps": re.compile(r"thread::sleep\("),
    "tokio sleeps": re.compile(r"time::sleep\("),
}


def code(text):
    return "\n".join(line.split("//")[0] if not line.lstrip().startswith("//") else "" for line in text.splitlines())


def main():
    by_file = "--by-file" in sys.argv
    tests = os.path.join(ROOT, "tests")
    files = sorted(
        os.path.join(d, f)
        for d in (tests, os.path.join(tests, "common"))
        for f in os.listdir(d)
        if f.endswith(".rs")
    )
    total = {k: 0 for k in KINDS}
    for path in files:
        with open(path, encoding="utf-8") as f:
            text = code(f.read())
        counts = {k: len(r.findall(text)) for k, r in KINDS.items()}
        for k, n in counts.items():
            total[k] += n
        if by_file and any(counts.values()):
            print(f"{os.path.relpath(path, ROOT):40} " + "  ".join(f"{k}={n}" for k, n in counts.items()))
    for k, n in total.items():
        print(f"  {k:14} {n}")


if __name__ == "__main__":
    main()
