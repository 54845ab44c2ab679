#!/usr/bin/env python3
"""A small Chrome DevTools Protocol driver (standard library only) for the page's
live tests: headless Chromium started with a debugging port, one tab, JavaScript
evaluated in it, and waits on what the page shows. A live page keeps its
EventSource open, so `--dump-dom` cannot wait for it; this can.

    with Browser("/usr/bin/chromium") as b:
        tab = b.open("http://127.0.0.1:PORT/?token=…")
        tab.wait("document.getElementById('counts').dataset.messages === '19'")
        print(tab.eval("document.title"))

The WebSocket is RFC 6455 written by hand: a client frame is masked, a text frame
carries one JSON message, a continuation frame extends it, ping is answered.
"""
import base64
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import tempfile
import time


class Socket:
    """One WebSocket connection (RFC 6455) to `ws://HOST:PORT/PATH`."""

    def __init__(self, url):
        m = re.match(r"ws://([^/:]+):(\d+)(/.*)", url)
        host, port, path = m.group(1), int(m.group(2)), m.group(3)
        self.sock = socket.create_connection((host, port), timeout=30)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            (
                f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError("the browser closed the WebSocket handshake")
            head += chunk
        head, self.buf = head.split(b"\r\n\r\n", 1)
        if not head.startswith(b"HTTP/1.1 101"):
            raise ConnectionError(f"no WebSocket upgrade: {head[:200]!r}")

    def send(self, text):
        data = text.encode()
        header = bytearray([0x81])  # FIN, text
        n = len(data)
        if n < 126:
            header.append(0x80 | n)
        elif n < 1 << 16:
            header.append(0x80 | 126)
            header += struct.pack(">H", n)
        else:
            header.append(0x80 | 127)
            header += struct.pack(">Q", n)
        mask = os.urandom(4)
        header += mask
        self.sock.sendall(bytes(header) + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def _read(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("the browser closed the WebSocket")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def recv(self):
        """The next whole text message."""
        message = b""
        while True:
            b0, b1 = self._read(2)
            opcode, n = b0 & 0x0F, b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._read(8))[0]
            payload = self._read(n)  # a server's frames are not masked
            if opcode == 0x9:  # ping: answer with pong, masked
                mask = os.urandom(4)
                self.sock.sendall(bytes([0x8A, 0x80 | len(payload)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))
                continue
            if opcode == 0x8:
                raise ConnectionError("the browser closed the WebSocket")
            message += payload
            if b0 & 0x80:
                return message.decode()


class Browser:
    """Headless Chromium with a DevTools port, closed on exit."""

    def __init__(self, chromium):
        # A start that fails (on a loaded machine Chromium has exited before saying
        # where DevTools listen) is tried once more; the error says what it printed.
        said = []
        for attempt in range(2):
            self.profile = tempfile.mkdtemp(prefix="mcp-raw-cdp-")
            self.proc = subprocess.Popen(
                [
                    chromium, "--headless", "--no-sandbox", "--disable-gpu",
                    "--remote-debugging-port=0", f"--user-data-dir={self.profile}", "about:blank",
                ],
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            )
            deadline = time.time() + 30
            m = None
            while True:
                line = self.proc.stderr.readline()
                m = re.search(r"DevTools listening on (ws://\S+)", line)
                if m:
                    break
                said.append(line.rstrip())
                if not line and self.proc.poll() is not None or time.time() > deadline:
                    break
            if m:
                break
            self.proc.kill()
            self.proc.wait()
            shutil.rmtree(self.profile, ignore_errors=True)
        if not m:
            tail = "\n".join(l for l in said if l)[-2000:]
            raise RuntimeError(
                f"chromium did not say where its DevTools listen (two starts; exit {self.proc.returncode}); it said:\n{tail}"
            )
        self.ws = Socket(m.group(1))
        self.next_id = 0
        self.events = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.proc.kill()
        self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)

    def call(self, method, params=None, session=None):
        self.next_id += 1
        mid = self.next_id
        msg = {"id": mid, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        self.ws.send(json.dumps(msg))
        while True:
            reply = json.loads(self.ws.recv())
            if reply.get("id") == mid:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def open(self, url):
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        tab = Tab(self, session)
        tab.call("Runtime.enable")
        tab.call("Page.enable")
        tab.call("Page.navigate", {"url": url})
        return tab


class Tab:
    """One page of the browser."""

    def __init__(self, browser, session):
        self.browser = browser
        self.session = session

    def call(self, method, params=None):
        return self.browser.call(method, params, self.session)

    def eval(self, expression):
        """The value of a JavaScript expression in the page (JSON-able)."""
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait(self, expression, within=20.0):
        """Waits until the expression is true in the page; its last value otherwise."""
        deadline = time.time() + within
        while True:
            try:
                if self.eval(expression):
                    return True
            except RuntimeError:
                pass  # the page is still loading
            if time.time() > deadline:
                return False
            time.sleep(0.05)

    def screenshot(self, path, width=1400, height=900):
        """A PNG of the page as drawn, at this size."""
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        data = self.call("Page.captureScreenshot", {"format": "png"})["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def reload(self):
        self.call("Page.reload", {"ignoreCache": True})

    def console_errors(self):
        """Exceptions the page threw, as DevTools reported them."""
        return [
            e for e in self.browser.events
            if e.get("sessionId") == self.session and e.get("method") == "Runtime.exceptionThrown"
        ]
