#!/usr/bin/env python3
"""mcp-raw as a protected resource, against a real authorization server.

Starts panva's oidc-provider (interop/ts/oidc_provider.mjs) and two mcp-raw servers that
trust it: one verifying JWT access tokens against its key set, one introspecting opaque
tokens (RFC 7662). Gets real tokens from the provider (client_credentials with a
`resource` indicator, RFC 8707) and checks what each server answers, status and
WWW-Authenticate, for a good token and for every way a token can be wrong. Standard
library only.

With `https`, everything speaks TLS with a CA and leaf made here by openssl
(interop/lib.sh): the provider serves HTTPS (node's https module), the mcp-raw servers
listen with --tls-cert and fetch the provider's metadata, key set and introspection
with --auth-cacert, and mcp-raw's client trusts the CA with --cacert; the same answers
are checked, and the servers' and the client's records must hold `tls` events.

    interop/oauth_check.py MCP_RAW_BIN NODE WORKDIR [https]
"""

import base64
import json
import re
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

BIN, NODE, WORK = sys.argv[1:4]
TLS = sys.argv[4:5] == ["https"]
CA = f"{WORK}/ca.pem"
if TLS:
    subprocess.run(["bash", "-c", 'source interop/lib.sh && make_pki "$1"', "-", WORK], check=True)
# Trusts the CA made above (over https), or nothing beyond the defaults.
CONTEXT = ssl.create_default_context(cafile=CA) if TLS else None
SECRET = "interop-secret-not-for-production"
procs = []
failures = []


def start(name, argv):
    """Starts argv with stderr to WORK/name.log; returns the URL of its 'listening on' line."""
    log = open(f"{WORK}/{name}.log", "w+")
    procs.append(subprocess.Popen(argv, stderr=log, stdout=subprocess.DEVNULL))
    for _ in range(150):
        log.seek(0)
        m = re.search(r"listening on (https?://127\.0\.0\.1:\d+\S*)", log.read())
        if m:
            return m.group(1).rstrip(",")
        time.sleep(0.1)
    log.seek(0)
    sys.exit(f"{name} printed no 'listening on' line:\n{log.read()}")


def check(what, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + what + ("" if ok else f": {detail}"))
    if not ok:
        failures.append(what)


def http(method, url, body=None, headers=None):
    """(status, headers, body) of one request; HTTP errors are answers too."""
    req = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=10, context=CONTEXT) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def token(issuer, client, scope, resource):
    """A client_credentials token from the provider, for `resource`."""
    basic = base64.b64encode(f"{client}:{SECRET}".encode()).decode()
    form = urllib.parse.urlencode(
        {"grant_type": "client_credentials", "scope": scope, "resource": resource}
    ).encode()
    status, _, body = http(
        "POST",
        f"{issuer}/token",
        form,
        {"Authorization": f"Basic {basic}", "Content-Type": "application/x-www-form-urlencoded"},
    )
    if status != 200:
        sys.exit(f"the provider refused a token ({client}, {scope}, {resource}): {status} {body!r}")
    return json.loads(body)["access_token"]


INIT = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "oauth_check", "version": "1"},
        },
    }
).encode()


def post(url, bearer=None):
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if bearer is not None:
        headers["Authorization"] = f"Bearer {bearer}"
    return http("POST", url, INIT, headers)


def challenge(headers):
    return headers.get("WWW-Authenticate") or ""


try:
    pem = [f"{WORK}/leaf.pem", f"{WORK}/leaf.key"] if TLS else []
    issuer = start("oidc-provider", [NODE, "interop/ts/oidc_provider.mjs", "0", *pem])
    record = f"{WORK}/protected.jsonl"
    # Over https: the servers listen with TLS and trust the CA for their own fetches.
    serve_tls = ["--tls-cert", pem[0], "--tls-key", pem[1], "--auth-cacert", CA] if TLS else []
    client_tls = ["--cacert", CA, "--record", f"{WORK}/client.jsonl"] if TLS else []
    jwt_mcp = start(
        "serve-jwt",
        [BIN, "serve", "--http", "--port", "0", "--auth-server", issuer,
         "--required-scope", "mcp:tools", "--token-leeway", "0", "--record", record, *serve_tls],
    )
    opaque_mcp = start(
        "serve-introspect",
        [BIN, "serve", "--http", "--port", "0", "--auth-server", issuer,
         "--introspection-client-id", "resource-server", "--introspection-client-secret", SECRET,
         *serve_tls],
    )
    print(f"oidc-provider at {issuer}; mcp-raw (JWT) at {jwt_mcp}; mcp-raw (introspection) at {opaque_mcp}")
    origin = jwt_mcp.rsplit("/mcp", 1)[0]

    # No token: 401 and a challenge that names the metadata and the scope.
    status, headers, body = post(jwt_mcp)
    ch = challenge(headers)
    check("no token: 401", status == 401, f"{status} {body!r}")
    check("no token: challenge without an error code (RFC 6750 §3.1)",
          ch.startswith("Bearer ") and "error=" not in ch, ch)
    check("no token: challenge names resource_metadata and scope",
          f'resource_metadata="{origin}/.well-known/oauth-protected-resource/mcp"' in ch
          and 'scope="mcp:tools"' in ch, ch)

    # The metadata document, at both well-known paths.
    for path in ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]:
        status, _, body = http("GET", origin + path)
        doc = json.loads(body) if status == 200 else {}
        check(f"metadata at {path}", status == 200 and doc.get("resource") == jwt_mcp
              and doc.get("authorization_servers") == [issuer]
              and doc.get("scopes_supported") == ["mcp:tools"], f"{status} {body!r}")

    # A good JWT: served.
    good = token(issuer, "jwt-client", "mcp:tools", jwt_mcp)
    status, headers, body = post(jwt_mcp, good)
    check("a JWT for this resource with the scope: 200 and a session",
          status == 200 and headers.get("Mcp-Session-Id") and b'"serverInfo"' in body, f"{status} {body!r}")

    # Every way a token can be wrong.
    def refused(what, bearer, want_status, want_error, want_words, url=jwt_mcp):
        status, headers, body = post(url, bearer)
        ch = challenge(headers)
        check(f"{what}: {want_status} {want_error}",
              status == want_status and f'error="{want_error}"' in ch and want_words in ch,
              f"{status} {ch} {body!r}")

    refused("a token for another resource", token(issuer, "jwt-client", "mcp:tools", "http://127.0.0.1:1/mcp"),
            401, "invalid_token", "not for this resource")
    refused("a token without the scope", token(issuer, "jwt-client", "mcp:other", jwt_mcp),
            403, "insufficient_scope", "lacks the scope mcp:tools")
    head, payload, sig = good.split(".")
    forged = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    forged["scope"] = "mcp:tools mcp:admin"
    forged_payload = base64.urlsafe_b64encode(json.dumps(forged).encode()).decode().rstrip("=")
    refused("a token whose claims were changed", f"{head}.{forged_payload}.{sig}",
            401, "invalid_token", "signature does not verify")
    none_head = base64.urlsafe_b64encode(b'{"alg":"none","typ":"at+jwt"}').decode().rstrip("=")
    refused("an unsigned token (alg none)", f"{none_head}.{payload}.", 401, "invalid_token", "")
    short = token(issuer, "short-client", "mcp:tools", jwt_mcp)
    time.sleep(2.2)
    refused("an expired token", short, 401, "invalid_token", "expired")
    refused("an opaque token where JWTs are expected", token(issuer, "opaque-client", "mcp:tools", jwt_mcp),
            401, "invalid_token", "not a JWT")
    status, headers, _ = http("POST", jwt_mcp, INIT, {"Authorization": "Basic " + base64.b64encode(b"a:b").decode()})
    check("another scheme: 401, plain challenge", status == 401 and "error=" not in challenge(headers),
          f"{status} {challenge(headers)}")

    # Introspection: opaque tokens, asked about at the provider.
    status, _, body = post(opaque_mcp, token(issuer, "opaque-client", "mcp:tools", opaque_mcp))
    check("introspection: an opaque token for this resource: 200", status == 200, f"{status} {body!r}")
    refused("introspection: an opaque token for another resource",
            token(issuer, "opaque-client", "mcp:tools", jwt_mcp), 401, "invalid_token", "not for this resource",
            url=opaque_mcp)
    refused("introspection: a made-up token", "made-up-token", 401, "invalid_token", "not active", url=opaque_mcp)

    # mcp-raw's own client, end to end: it reads the 401, discovers the provider from
    # the metadata, gets a token with client_credentials and calls a tool, against
    # both servers (a JWT for one, an opaque token for the other).
    for url, client in [(jwt_mcp, "jwt-client"), (opaque_mcp, "opaque-client")]:
        run = subprocess.run(
            [BIN, "client", url, "--grant", "client-credentials", "--client-id", client,
             "--client-secret", SECRET, "--call", "add={\"a\": 2, \"b\": 40}", "--color", "never",
             *client_tls],
            capture_output=True, text=True, timeout=30)
        view = run.stdout + run.stderr
        hops = ["401 Unauthorized", "GET /.well-known/oauth-protected-resource/mcp",
                "POST /token HTTP/1.1", "grant_type=client_credentials", '"text": "42"']
        at, missing = 0, None
        for hop in hops:
            found = view.find(hop, at)
            if found < 0:
                missing = hop
                break
            at = found + len(hop)
        check(f"mcp-raw client --grant client-credentials as {client}: every hop, then the call",
              run.returncode == 0 and missing is None, f"rc {run.returncode}, no {missing!r} in order:\n{view[-3000:]}")

    # The server's record: its own fetches of the provider's metadata and keys are lanes
    # of it, and the tokens it was sent are masked.
    for p in procs[1:]:
        p.terminate()
        p.wait(5)
    text = open(record).read()
    check("the record shows the key-set fetch", "GET /jwks HTTP/1.1" in text, "no GET /jwks")
    check("the record masks the tokens", good not in text and "Bearer ****" in text, "a token in clear")
    if TLS:
        # The handshakes, as each end recorded them: the server's fetches of the provider
        # (its client side) and the client's connections to the resource and the provider.
        # `accepted: false`: a handshake the server made as a client, i.e. a fetch of the
        # provider's metadata, key set or introspection endpoint.
        check("the server's record holds the TLS facts of its fetches of the provider",
              re.search(r'"tls":\{"version":"TLSv1\.[23]"[^}]*"accepted":false', text) is not None,
              "no client-side tls event")
        client_text = open(f"{WORK}/client.jsonl").read()
        check("the client's record holds tls events",
              re.search(r'"tls":\{"version":"TLSv1\.[23]"', client_text) is not None, "no tls event")
finally:
    for p in procs:
        p.terminate()
    for p in procs:
        try:
            p.wait(5)
        except subprocess.TimeoutExpired:
            p.kill()

print(f"oauth: {'FAILED ' + str(len(failures)) if failures else 'all ok'}")
sys.exit(1 if failures else 0)
