#!/usr/bin/env python3
"""Runs a command on a pseudo-terminal, as a user at a terminal would, and types
answers when prompts appear (standard library only).

    on_a_terminal.py TIMEOUT_SECS PROMPT ANSWER [PROMPT ANSWER ...] -- CMD ARG...

Each PROMPT is awaited in turn in what the command writes; then ANSWER and a newline
are typed. Everything the command wrote goes to stdout; the exit status is the
command's (124 if a prompt or the end did not come in time).
"""
import os
import pty
import select
import sys
import time

args = sys.argv[1:]
split = args.index("--")
timeout, pairs, cmd = float(args[0]), args[1:split], args[split + 1:]
script = list(zip(pairs[0::2], pairs[1::2]))

pid, fd = pty.fork()
if pid == 0:
    os.execvp(cmd[0], cmd)

seen = b""
deadline = time.time() + timeout
searched_from = 0


def pump():
    """Reads what is there; False at the end of output."""
    global seen
    ready, _, _ = select.select([fd], [], [], 0.1)
    if not ready:
        return True
    try:
        chunk = os.read(fd, 65536)
    except OSError:
        return False
    if not chunk:
        return False
    seen += chunk
    return True


status = None
for prompt, answer in script:
    while True:
        at = seen.find(prompt.encode(), searched_from)
        if at >= 0:
            searched_from = at + len(prompt)
            os.write(fd, answer.encode() + b"\n")
            break
        if time.time() > deadline or not pump():
            sys.stdout.write(seen.decode(errors="replace"))
            sys.stdout.write("\n[on_a_terminal] never saw the prompt %r\n" % prompt)
            os.kill(pid, 9)
            sys.exit(124)
while time.time() < deadline and pump():
    pass
# The output ended (or time ran out); the process may take a moment more to exit.
done, status = os.waitpid(pid, os.WNOHANG)
while done == 0 and time.time() < deadline:
    time.sleep(0.05)
    done, status = os.waitpid(pid, os.WNOHANG)
if done == 0:
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    sys.stdout.write(seen.decode(errors="replace") + "\n[on_a_terminal] still running\n")
    sys.exit(124)
sys.stdout.write(seen.decode(errors="replace"))
sys.exit(os.waitstatus_to_exitcode(status))
