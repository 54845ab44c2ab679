#!/usr/bin/env python3
"""Holding on HTTP taps and the forward proxy's page, in a real browser (Debian's
chromium over the DevTools protocol, scripts/cdp.py), with real clients and servers.

    python3 scripts/ui_tap_http.py BIN CHROMIUM

1. `tap --http --ui --intercept tool:get-sum` in front of
   @modelcontextprotocol/server-everything (Streamable HTTP), the TypeScript SDK v1
   client (interop/ts/everything_client.mjs) through it: the get-sum POST waits on
   the page, is opened there, its arguments edited (1000 + 234) and "forward as
   edited" clicked; the TS client's answer is 1234, the recording marks the hold as
   held then changed, the request the server got (the lane's c2s bytes) carries the
   edited arguments under a Content-Length that counts them, and the page's message
   rows equal the recording's messages one for one (ui_everything.check_page).
2. `tap --proxy --ui --intercept tool:add`: the official Python SDK client
   (interop/.venv, as tests/tap_proxy.rs runs it) reaches `mcp-raw serve --http`
   through the proxy named in HTTP_PROXY (httpx sends absolute-form requests to it,
   the proxy's plain-HTTP path); its add call (2 + 40) is held, edited on the page to
   1000 + 234, and the client prints 1234; the page's rows equal the recording's
   messages one for one.
3. The same over HTTPS: HTTPS_PROXY, `serve --http --tls-cert` (a leaf for localhost
   from a test CA made with openssl, which the proxy trusts with --cacert), the
   client trusting the proxy's CA (SSL_CERT_FILE): the call held and edited inside
   the decrypted tunnel, the recording's TLS facts naming localhost.
4. A screenshot of each page (UI_SHOTS, else target/ui-shots); no exception thrown.

Needs interop/ts/node_modules (scripts/ui.sh installs it) and, for 2, interop/.venv
(interop/run.sh makes it; without it 2 is skipped, said, unless
MCP_RAW_REQUIRE_SDK=1, as CI sets).
"""
import json
import os
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Browser  # noqa: E402
import ui_everything as ue  # noqa: E402

ROOT = ue.ROOT
PYTHON = os.environ.get("MCP_RAW_SDK_PYTHON") or os.path.join(ROOT, "interop/.venv/bin/python")
SDK_CLIENT = os.path.join(ROOT, "tests/servers/proxy_sdk_client.py")


def hold_and_edit(tab, arguments, name):
    """The held call: opened on the page, its arguments set, forwarded as edited."""
    if not tab.wait("document.body.dataset.waiting === '1'", within=30):
        ue.fail(f"{name}: the page never showed a held message")
        return False
    i = tab.eval("window.mcpRawRows.findIndex((r) => r.kind === 'intercept' && r.step === 'held')")
    tab.eval(f"location.hash = 'row={i}'; location.reload()")
    if not tab.wait("document.getElementById('hold-text') !== null", within=10):
        ue.fail(f"{name}: the held row offers no decision")
        return False
    os.makedirs(ue.SHOTS, exist_ok=True)
    tab.screenshot(os.path.join(ue.SHOTS, f"ui-{name}-held.png"))
    tab.eval("""(() => {
        const box = document.getElementById('hold-text');
        const m = JSON.parse(box.value);
        m.params.arguments = %s;
        box.value = JSON.stringify(m, null, 2);
        document.getElementById('hold-change').click();
    })()""" % json.dumps(arguments))
    if not tab.wait("document.body.dataset.waiting === '0'", within=10):
        ue.fail(f"{name}: the tap did not say the hold was decided")
        return False
    return True


def steps_of(record):
    return [json.loads(line)["intercept"]["step"] for line in open(record) if '"intercept"' in line]


def held_then_changed(record, name):
    """The recording marks one hold, held then changed."""
    if steps_of(record) != ["held", "changed"]:
        ue.fail(f"{name}: the recording marks {steps_of(record)}, not held then changed")


def edited_request_sent(record, name, needle):
    """The c2s bytes of the lane the hold was on: the edited call, its
    Content-Length the edited body's."""
    wire = ue.carried(record)
    for (lane, direction), data in wire.items():
        if direction != "c2s" or needle not in data:
            continue
        text = bytes(data).decode("utf-8", "replace")
        at = text.find(needle.decode())
        head_start = text.rfind("POST ", 0, at)
        head_end = text.find("\r\n\r\n", head_start) + 4
        length = [int(line.split(":", 1)[1]) for line in text[head_start:head_end].split("\r\n") if line.lower().startswith("content-length:")]
        body = text[head_end:head_end + length[0]] if length else ""
        try:
            json.loads(body)
        except ValueError:
            ue.fail(f"{name}: the edited request's Content-Length {length} does not frame its JSON body: {body[:200]!r}")
            return
        print(f"{name}: the server got the edited call on {lane}, Content-Length {length[0]} framing {body[:120]}")
        return
    ue.fail(f"{name}: no c2s lane carried the edited arguments {needle!r}")


def stop(procs):
    for p in procs:
        if p is not None and p.poll() is None:
            p.send_signal(signal.SIGINT)
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()


def http_intercept(binary, chromium, work):
    name = "http-intercept"
    record = os.path.join(work, "tap-http-intercept.jsonl")
    port = ue.free_port()
    env = dict(os.environ, PORT=str(port), NODE_OPTIONS=f"--require {ue.LOOPBACK}")
    server_log = os.path.join(work, "everything-http-intercept.log")
    server = subprocess.Popen(["node", ue.EV, "streamableHttp"], env=env, stdout=open(server_log, "w"), stderr=subprocess.STDOUT)
    tap_log = os.path.join(work, "tap-http-intercept.log")
    tap = client = None
    try:
        if not ue.wait_for(server_log, r"(listening on port)"):
            ue.fail(f"{name}: server-everything did not start")
            return
        tap, url, mcp = ue.start_tap(
            binary,
            ["--http", "--listen", "127.0.0.1:0", "--target", f"http://127.0.0.1:{port}/mcp",
             "--ui", "--intercept", "tool:get-sum", "--record", record],
            tap_log, name, "the tap",
        )
        if not url:
            return
        with Browser(chromium) as browser:
            tab = ue.live_tab(browser, url, name)
            client = subprocess.Popen(["node", ue.CLIENT, "http", mcp], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            decided = hold_and_edit(tab, {"a": 1000, "b": 234}, name)
            out, err = client.communicate(timeout=120)
            if client.returncode != 0:
                ue.fail(f"{name}: the TS client failed: {err[-2000:]}")
                return
            if decided:
                sums = [c.get("text") for c in json.loads(out).get("sum", {}).get("content", [])]
                print(f"{name}: the TS client's get-sum answer after the edit: {sums}")
                if not any("1234" in (t or "") for t in sums):
                    ue.fail(f"{name}: the client's answer is {sums}, not the edited call's 1234")
                held_then_changed(record, name)
                edited_request_sent(record, name, b'"arguments":{"a":1000,"b":234}')
            ue.check_page(binary, browser, tab, record, name)
    finally:
        if client is not None and client.poll() is None:
            client.kill()
        stop([tap, server])


def server_pki(work):
    """A test CA and a leaf for localhost (openssl), for `serve --http --tls-cert`."""
    pki = os.path.join(work, "server-pki")
    os.makedirs(pki, exist_ok=True)
    p = lambda f: os.path.join(pki, f)  # noqa: E731
    ext = p("leaf.ext")
    with open(ext, "w") as f:
        f.write("subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n")
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
    for cmd in (
        ["openssl", "req", "-x509", *ec, "-keyout", p("ca.key"), "-out", p("ca.pem"), "-days", "2", "-subj", "/CN=ui_tap_http test server CA"],
        ["openssl", "req", *ec, "-keyout", p("server.key"), "-out", p("server.csr"), "-subj", "/CN=localhost"],
        ["openssl", "x509", "-req", "-in", p("server.csr"), "-CA", p("ca.pem"), "-CAkey", p("ca.key"), "-CAcreateserial",
         "-out", p("server.pem"), "-days", "2", "-extfile", ext],
    ):
        made = subprocess.run(cmd, capture_output=True, text=True)
        if made.returncode != 0:
            raise SystemExit(f"openssl failed: {' '.join(cmd)}: {made.stderr}")
    return p("ca.pem"), p("server.pem"), p("server.key")


def proxy_page(binary, chromium, work, tls):
    """The Python SDK client through `tap --proxy --ui --intercept tool:add`: in plain
    HTTP (HTTP_PROXY, absolute-form requests), or over HTTPS (HTTPS_PROXY: CONNECT,
    the TLS inside decrypted with the proxy's CA, which SSL_CERT_FILE trusts)."""
    name = "proxy-tls" if tls else "proxy"
    if not os.path.exists(PYTHON):
        if os.environ.get("MCP_RAW_REQUIRE_SDK") == "1":
            ue.fail(f"{name}: MCP_RAW_REQUIRE_SDK=1 but there is no {PYTHON}")
        else:
            print(f"{name}: skipped: no {PYTHON} (interop/run.sh py-http makes it)")
        return
    record = os.path.join(work, f"tap-{name}.jsonl")
    ca = os.path.join(work, f"ca-{name}")
    made = subprocess.run([binary, "ca", "--dir", ca], capture_output=True, text=True)
    if made.returncode != 0:
        ue.fail(f"{name}: mcp-raw ca failed: {made.stderr}")
        return
    port = ue.free_port()
    server_log = os.path.join(work, f"serve-{name}.log")
    tap_log = os.path.join(work, f"tap-{name}.log")
    serve = [binary, "serve", "--http", "--port", str(port)]
    proxy_flags = []
    if tls:
        server_ca, cert, key = server_pki(work)
        serve += ["--tls-cert", cert, "--tls-key", key]
        proxy_flags = ["--cacert", server_ca, "--decrypt-host", "localhost"]
    server = tap = None
    try:
        server = subprocess.Popen(serve, stdout=subprocess.DEVNULL, stderr=open(server_log, "w"))
        if not ue.wait_for(server_log, r"(listening on)"):
            ue.fail(f"{name}: serve --http did not start: {open(server_log).read()[-500:]}")
            return
        tap, url, proxy = ue.start_tap(
            binary,
            ["--proxy", "--listen", "127.0.0.1:0", "--ca-dir", ca, *proxy_flags,
             "--ui", "--intercept", "tool:add", "--record", record],
            tap_log, name, "the proxy",
        )
        if not url:
            return
        with Browser(chromium) as browser:
            tab = ue.live_tab(browser, url, name)
            env = {k: v for k, v in os.environ.items()
                   if k.lower() not in ("http_proxy", "https_proxy", "no_proxy", "all_proxy", "ssl_cert_dir", "ssl_cert_file")}
            env["PYTHONDONTWRITEBYTECODE"] = "1"
            if tls:
                env.update(HTTPS_PROXY=proxy, SSL_CERT_FILE=os.path.join(ca, "ca.pem"))
                target = f"https://localhost:{port}/mcp"
            else:
                env.update(HTTP_PROXY=proxy)
                target = f"http://127.0.0.1:{port}/mcp"
            client = subprocess.Popen([PYTHON, SDK_CLIENT, target], env=env,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            decided = hold_and_edit(tab, {"a": 1000, "b": 234}, name)
            out, err = client.communicate(timeout=120)
            if client.returncode != 0:
                ue.fail(f"{name}: the Python SDK client failed: {err[-2000:]}")
                return
            print(f"{name}: the Python SDK client through the proxy said: {out.strip()}")
            if decided:
                if not out.strip().endswith(" 1234"):
                    ue.fail(f"{name}: the client's answer is {out.strip()!r}, not the edited call's 1234")
                held_then_changed(record, name)
            lines = [json.loads(line) for line in open(record)][1:]
            opened = [e.get("open", "") for e in lines if "open" in e]
            if tls:
                sni = [e["tls"].get("sni") for e in lines if "tls" in e]
                if "localhost" not in sni or not any("decrypt" in o for o in opened):
                    ue.fail(f"{name}: no decrypted connection to localhost recorded: {opened} {sni}")
            elif not any("relayed in plain HTTP" in o for o in opened):
                ue.fail(f"{name}: no connection relayed in plain HTTP by the proxy: {opened}")
            ue.check_page(binary, browser, tab, record, name)
    finally:
        stop([tap, server])


def main():
    binary, chromium = sys.argv[1:3]
    if not os.path.exists(ue.EV):
        raise SystemExit(f"server-everything is not installed ({ue.EV}): npm ci in interop/ts")
    work = tempfile.mkdtemp(prefix="mcp-raw-ui-tap-http-")
    http_intercept(binary, chromium, work)
    proxy_page(binary, chromium, work, tls=False)
    proxy_page(binary, chromium, work, tls=True)
    if ue.FAILED:
        print(f"ui tap http: {len(ue.FAILED)} check(s) failed")
        sys.exit(1)
    print("ui tap http: OK")


if __name__ == "__main__":
    main()
