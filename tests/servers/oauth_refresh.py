#!/usr/bin/env python3
"""A protected legacy (2025-11-25) MCP server and its authorization server on one port,
for the client's OAuth tests. Standard library only; binds 127.0.0.1 on a free port
and prints "listening on http://127.0.0.1:PORT/mcp".

  /.well-known/oauth-protected-resource/mcp   RFC 9728 metadata naming this origin
  /.well-known/oauth-authorization-server     RFC 8414 metadata
  /authorize                                  approves at once: 302 to the redirect
  /token                                      authorization_code, refresh_token,
                                              client_credentials, jwt-bearer
  /idp/token                                  an identity provider's token exchange
  /mcp                                        initialize, tools/list, tools/call

Tokens are short-lived by use, not by time, so tests need no clock: an access token
serves --token-uses MCP requests, then the server answers 401 invalid_token. Each
refresh token works once and is replaced (rotation, OAuth 2.1 §4.3.1).
--refuse-refresh answers every refresh with 400 invalid_grant;
--refreshed-tokens-refused issues tokens on refresh that the resource then refuses (as
after a move to another authorization server). --dpop makes the
resource challenge with the DPoP scheme and the token endpoint issue DPoP tokens when
a proof comes with the request; --dpop-nonce also asks for a nonce at both (RFC 9449
§8, §9). --scope-refused METHOD answers every METHOD request with 403
insufficient_scope, whatever token comes (a scope the authorization server never
grants). --https names this origin https:// in every URL it hands out, for a TLS
front (tests/servers/tls_relay.py) to stand before it. Signatures are not checked here (the conformance suite does that): the
shape of each request is, and anything missing is refused with the reason.
"""
import base64
import hashlib
import http.server
import json
import sys
import urllib.parse

ARGS = sys.argv[1:]
TOKEN_USES = int(ARGS[ARGS.index("--token-uses") + 1]) if "--token-uses" in ARGS else 2
REFUSE_REFRESH = "--refuse-refresh" in ARGS
REFRESHED_REFUSED = "--refreshed-tokens-refused" in ARGS
DPOP = "--dpop" in ARGS or "--dpop-nonce" in ARGS
NONCE = "server-nonce-1" if "--dpop-nonce" in ARGS else None
SCOPE_REFUSED = ARGS[ARGS.index("--scope-refused") + 1] if "--scope-refused" in ARGS else None
# --token-endpoint URL names another token endpoint in the metadata, --resource URL
# another resource in the protected resource metadata (the client must refuse both
# when they are not what the rules allow).
TOKEN_ENDPOINT = ARGS[ARGS.index("--token-endpoint") + 1] if "--token-endpoint" in ARGS else None
RESOURCE = ARGS[ARGS.index("--resource") + 1] if "--resource" in ARGS else None
SCHEME = "https://" if "--https" in ARGS else "http://"
CLIENT = ("test-client", "test-secret")
state = {"n": 0, "access": {}, "refresh": set()}


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def jwt_part(jwt, i):
    part = jwt.split(".")[i]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def origin(self):
        return SCHEME + self.headers["host"]

    def send(self, status, body=None, headers=()):
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        if body is not None:
            self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        o = self.origin()
        if url.path == "/.well-known/oauth-protected-resource/mcp":
            self.send(200, {"resource": RESOURCE or o + "/mcp", "authorization_servers": [o]})
        elif url.path == "/.well-known/oauth-authorization-server":
            meta = {
                "issuer": o,
                "authorization_endpoint": o + "/authorize",
                "token_endpoint": TOKEN_ENDPOINT or o + "/token",
                "response_types_supported": ["code"],
                "grant_types_supported": ["authorization_code", "refresh_token",
                                          "client_credentials",
                                          "urn:ietf:params:oauth:grant-type:jwt-bearer"],
                "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": ["client_secret_basic",
                                                          "private_key_jwt"],
            }
            if DPOP:
                meta["dpop_signing_alg_values_supported"] = ["ES256"]
            self.send(200, meta)
        elif url.path == "/authorize":
            q = dict(urllib.parse.parse_qsl(url.query))
            back = q["redirect_uri"] + "?" + urllib.parse.urlencode(
                {"code": "code-1", "state": q.get("state", "")})
            self.send(302, None, [("location", back)])
        else:
            self.send(405 if url.path == "/mcp" else 404, {"error": "no such page"})

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        if self.path == "/mcp":
            return self.mcp(json.loads(body))
        form = dict(urllib.parse.parse_qsl(body.decode()))
        if self.path == "/idp/token":
            return self.idp(form)
        if self.path == "/token":
            return self.token(form)
        self.send(404, {"error": "no such page"})

    def client_ok(self, form):
        auth = self.headers.get("authorization", "")
        if auth.startswith("Basic "):
            pair = base64.b64decode(auth[6:]).decode().split(":", 1)
            return tuple(urllib.parse.unquote(p) for p in pair) == CLIENT
        if form.get("client_assertion_type", "").endswith(":client-assertion-type:jwt-bearer"):
            claims = jwt_part(form["client_assertion"], 1)
            return claims["iss"] == claims["sub"] == CLIENT[0] and claims["aud"] == self.origin()
        return form.get("client_id") == CLIENT[0] and form.get("grant_type", "").endswith("jwt-bearer")

    def token(self, form):
        if not self.client_ok(form):
            return self.send(401, {"error": "invalid_client"})
        if form.get("resource") != self.origin() + "/mcp":
            return self.send(400, {"error": "invalid_target", "error_description": "resource"})
        grant = form.get("grant_type")
        if grant == "authorization_code" and form.get("code") == "code-1" and form.get("code_verifier"):
            pass
        elif grant == "refresh_token":
            if REFUSE_REFRESH or form.get("refresh_token") not in state["refresh"]:
                return self.send(400, {"error": "invalid_grant",
                                       "error_description": "refresh token not known"})
            state["refresh"].discard(form["refresh_token"])
        elif grant == "client_credentials":
            pass
        elif grant == "urn:ietf:params:oauth:grant-type:jwt-bearer" and form.get("assertion"):
            pass
        else:
            return self.send(400, {"error": "unsupported_grant_type", "error_description": grant})
        token_type = "Bearer"
        proof = self.headers.get("dpop")
        if DPOP and proof:
            claims = jwt_part(proof, 1)
            if NONCE and claims.get("nonce") != NONCE:
                return self.send(400, {"error": "use_dpop_nonce"}, [("dpop-nonce", NONCE)])
            if claims["htm"] != "POST" or claims["htu"] != self.origin() + "/token":
                return self.send(400, {"error": "invalid_dpop_proof"})
            token_type = "DPoP"
        state["n"] += 1
        n = state["n"]
        access, refresh = "at-%d" % n, "rt-%d" % n
        state["access"][access] = 0 if REFRESHED_REFUSED and grant == "refresh_token" else TOKEN_USES
        answer = {"access_token": access, "token_type": token_type, "expires_in": 60}
        if grant in ("authorization_code", "refresh_token"):
            state["refresh"].add(refresh)
            answer["refresh_token"] = refresh
        self.send(200, answer)

    def idp(self, form):
        # RFC 8693: an ID token in, an ID-JAG out (unsigned here: "alg": "none").
        if form.get("subject_token_type") != "urn:ietf:params:oauth:token-type:id_token" \
                or form.get("requested_token_type") != "urn:ietf:params:oauth:token-type:id-jag" \
                or form.get("audience") != self.origin() or not form.get("subject_token"):
            return self.send(400, {"error": "invalid_request", "error_description": str(form)})
        jag = ".".join([b64url(b'{"alg":"none","typ":"oauth-id-jag+jwt"}'),
                        b64url(json.dumps({"aud": form["audience"],
                                           "resource": form.get("resource")}).encode()), ""])
        self.send(200, {"access_token": jag, "token_type": "N_A",
                        "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag"})

    def refuse(self, error):
        scheme = "DPoP" if DPOP else "Bearer"
        meta = self.origin() + "/.well-known/oauth-protected-resource/mcp"
        value = '%s resource_metadata="%s"' % (scheme, meta)
        if error:
            value += ', error="%s"' % error
        headers = [("www-authenticate", value)]
        if error == "use_dpop_nonce":
            headers.append(("dpop-nonce", NONCE))
        self.send(401, {"error": error or "unauthorized"}, headers)

    def mcp(self, message):
        scheme, _, token = self.headers.get("authorization", "").partition(" ")
        if token not in state["access"]:
            return self.refuse("invalid_token" if token else None)
        if DPOP:
            proof = self.headers.get("dpop")
            if scheme != "DPoP" or not proof:
                return self.refuse("invalid_token")
            claims = jwt_part(proof, 1)
            ath = b64url(hashlib.sha256(token.encode()).digest())
            if claims.get("ath") != ath or claims.get("htu") != self.origin() + "/mcp":
                return self.refuse("invalid_dpop_proof")
            if NONCE and claims.get("nonce") != NONCE:
                return self.refuse("use_dpop_nonce")
        if state["access"][token] <= 0:
            return self.refuse("invalid_token")
        state["access"][token] -= 1
        method, rid = message.get("method"), message.get("id")
        if rid is None:
            return self.send(202)
        if method == SCOPE_REFUSED:
            meta = self.origin() + "/.well-known/oauth-protected-resource/mcp"
            value = 'Bearer error="insufficient_scope", scope="tools:admin", resource_metadata="%s"' % meta
            return self.send(403, {"error": "insufficient_scope"}, [("www-authenticate", value)])
        if method == "initialize":
            result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                      "serverInfo": {"name": "oauth-refresh", "version": "0"}}
        elif method == "tools/list":
            result = {"tools": [{"name": "whoami", "inputSchema": {"type": "object"}}]}
        elif method == "tools/call":
            result = {"content": [{"type": "text", "text": "token " + token}]}
        else:
            result = {}
        self.send(200, {"jsonrpc": "2.0", "id": rid, "result": result})


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print("listening on http://127.0.0.1:%d/mcp" % server.server_address[1], flush=True)
server.serve_forever()
