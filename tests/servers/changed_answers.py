#!/usr/bin/env python3
"""A "changed server" for replay tests: runs the stdio server given as arguments and
passes every line through both ways, except that on the way out a tool result text
"5" becomes "6" -- the kind of regression `mcp-raw diff` must name.
Standard library only.

    changed_answers.py mcp-raw serve
"""
import subprocess
import sys
import threading

child = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)


def pump_in():
    for line in sys.stdin.buffer:
        child.stdin.write(line)
        child.stdin.flush()
    child.stdin.close()


threading.Thread(target=pump_in, daemon=True).start()
for line in child.stdout:
    sys.stdout.buffer.write(line.replace(b'"text":"5"', b'"text":"6"'))
    sys.stdout.buffer.flush()
sys.exit(child.wait())
