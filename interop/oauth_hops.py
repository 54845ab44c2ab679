#!/usr/bin/env python3
"""Reads a full OAuth authorization-code flow out of one `mcp-raw tap --proxy` recording.

    interop/oauth_hops.py TAP.jsonl MCP_HOST:PORT AS_HOST:PORT

The recording must be made with --show-secrets (the code, the verifier and the token are
compared here). Read independently of mcp-raw: the bytes of each lane and direction
(`text`/`base64` events) are split into HTTP/1.1 messages here (Content-Length or chunked,
RFC 9112 §6), requests paired with responses in order on each lane; the facts mcp-raw
derived are not used. Each lane's server is the one the tap's `open` says it connected to.

Checks, in the order the client made them (MCP 2025-11-25, basic/authorization):
1. POST /mcp without a token: 401 with a Bearer challenge naming the resource metadata
   (RFC 9728 §5.1);
2. GET of that metadata at the MCP server: 200, naming the authorization server;
3. GET /.well-known/oauth-authorization-server at it (RFC 8414 §3): 200, same issuer;
4. POST of the registration endpoint (RFC 7591 §3): 201 and a client_id;
5. GET of the authorization endpoint with response_type=code, that client_id, a state and
   an S256 code_challenge (OAuth 2.1 §4.1.1, RFC 7636 §4.3): a redirect carrying a code and
   the same state;
6. POST of the token endpoint, grant_type=authorization_code with that code and a
   code_verifier whose S256 is the challenge (RFC 7636 §4.6): 200 and a Bearer token;
7. every later request to the MCP server carries `Authorization: Bearer` with that token
   (RFC 6750 §2.1) and is answered below 400 (a GET for a stream: 405 too); the add call
   and its 42 among them.
And every lane holds the tls events of both legs (the client's to the tap, the tap's to
the server). Exit 1 naming the first hop that is missing or wrong.
"""

import base64
import hashlib
import json
import re
import sys
import urllib.parse

path, mcp, auth = sys.argv[1:4]
TARGET_SIDE = re.compile(r"target side: connected (\S+) → (\S+)")


def fail(why):
    sys.exit(f"oauth hops: {why}")


# Per lane: the server it went to, its tls events, and per direction the chunks (t, bytes).
server_of, tls, chunks = {}, {}, {}
with open(path, encoding="utf-8") as f:
    header = json.loads(f.readline())
    if header.get("role") != "tap":
        fail(f"{path} is not a tap's recording")
    for line in f:
        e = json.loads(line)
        if "fact" in e:
            continue
        lane = e["lane"]
        if "open" in e and (m := TARGET_SIDE.search(e["open"])):
            server_of[lane] = m.group(2)
        if "tls" in e:
            tls.setdefault(lane, []).append(e["tls"])
        data = e["text"].encode() if "text" in e else base64.b64decode(e["base64"]) if "base64" in e else None
        if data:
            chunks.setdefault((lane, e["dir"]), []).append((e["t"], data))


def messages(parts, requests):
    """The HTTP/1.1 messages in one lane's direction: (t of the first byte, start line,
    headers as a lower-cased dict, body). A response to HEAD never comes here."""
    data = b"".join(d for _, d in parts)
    starts, at = [], 0
    for t, d in parts:
        starts.append((at, t))
        at += len(d)
    out, pos = [], 0
    while pos < len(data):
        t = max(t for o, t in starts if o <= pos)
        end = data.find(b"\r\n\r\n", pos)
        if end < 0:
            fail(f"an unfinished head at byte {pos}: {data[pos:pos + 80]!r}")
        lines = data[pos:end].decode("latin-1").split("\r\n")
        headers = {}
        for h in lines[1:]:
            name, _, value = h.partition(":")
            headers[name.strip().lower()] = value.strip()
        pos = end + 4
        status = None if requests else int(lines[0].split(" ")[1])
        if "content-length" in headers:
            n = int(headers["content-length"])
            body, pos = data[pos:pos + n], pos + n
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            body = b""
            while True:
                eol = data.find(b"\r\n", pos)
                size = int(data[pos:eol].split(b";")[0], 16)
                body += data[eol + 2:eol + 2 + size]
                pos = eol + 2 + size + 2
                if size == 0:
                    break
        elif requests or status in (204, 304) or status // 100 == 1:
            body = b""
        else:  # a response read to the close
            body, pos = data[pos:], len(data)
        out.append((t, lines[0], headers, body))
    return out


# Every exchange of the recording: (t, server, method, target, request headers, request
# body, status, response headers, response body), in the order the requests were sent.
exchanges = []
for lane, server in server_of.items():
    reqs = messages(chunks.get((lane, "c2s"), []), True)
    resps = messages(chunks.get((lane, "s2c"), []), False)
    if len(resps) != len(reqs):
        fail(f"lane {lane}: {len(reqs)} requests but {len(resps)} responses")
    for (t, line, rh, rb), (_, sline, sh, sb) in zip(reqs, resps):
        method, target, _ = line.split(" ")
        exchanges.append((t, server, method, target, rh, rb, int(sline.split(" ")[1]), sh, sb))
exchanges.sort(key=lambda x: x[0])


def show(x):
    t, server, method, target, *_ = x
    where = "the MCP server" if server == mcp else "the authorization server"
    return f"{method} {urllib.parse.urlsplit(target).path} at {where} -> {x[6]}"


hops = []


def hop(server, method, route, what):
    """The first exchange after the last hop with this server, method and path."""
    after = hops[-1][0] if hops else -1
    for x in exchanges:
        if x[0] > after and x[1] == server and x[2] == method and urllib.parse.urlsplit(x[3]).path == route:
            hops.append(x)
            print(f"  {len(hops)}. {show(x)}: {what}")
            return x
    fail(f"no {method} {route} at {server} after hop {len(hops)} ({what})")


def want(ok, why):
    if not ok:
        fail(why)


# 1. The first MCP request, without a token: 401 and the challenge.
x = hop(mcp, "POST", "/mcp", "no token, the challenge")
challenge = x[7].get("www-authenticate", "")
m = re.search(r'resource_metadata="([^"]+)"', challenge)
want(x[6] == 401 and "authorization" not in x[4] and challenge.startswith("Bearer ") and m,
     f"the first POST /mcp: {x[6]}, challenge {challenge!r}")
prm_url = urllib.parse.urlsplit(m.group(1))
want(prm_url.netloc == mcp, f"the challenge's resource_metadata is not at {mcp}: {m.group(1)}")

# 2. The protected-resource metadata.
x = hop(mcp, "GET", prm_url.path, "protected-resource metadata")
prm = json.loads(x[8]) if x[6] == 200 else {}
issuer = f"https://{auth}"
want(prm.get("authorization_servers") == [issuer], f"the metadata names {prm.get('authorization_servers')}")

# 3. The authorization server's metadata.
x = hop(auth, "GET", "/.well-known/oauth-authorization-server", "authorization-server metadata")
asm = json.loads(x[8]) if x[6] == 200 else {}
want(asm.get("issuer") == issuer, f"metadata: {x[6]}, issuer {asm.get('issuer')!r}")
route = {k: urllib.parse.urlsplit(asm.get(f"{k}_endpoint", "")) for k in ("registration", "authorization", "token")}
want(all(u.netloc == auth for u in route.values()), f"endpoints not all at {auth}: {asm}")

# 4. Dynamic client registration.
x = hop(auth, "POST", route["registration"].path, "dynamic client registration")
asked, got = json.loads(x[5]), json.loads(x[8]) if x[6] == 201 else {}
client_id = got.get("client_id")
want(client_id and asked.get("redirect_uris"), f"registration: {x[6]} {x[8][:200]!r}")

# 5. The authorization request, and the redirect back.
x = hop(auth, "GET", route["authorization"].path, "authorization request, PKCE S256")
q = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(x[3]).query))
want(q.get("response_type") == "code" and q.get("client_id") == client_id and q.get("state")
     and q.get("code_challenge_method") == "S256" and q.get("code_challenge"), f"authorize query: {q}")
location = x[7].get("location", "")
back = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query))
# Masked ('*', same length) unless recorded with --show-secrets: then nothing below could be compared.
want(set(back.get("code", "")) != {"*"}, "the code is masked: record with --show-secrets")
want(x[6] in (302, 303) and location.startswith(q.get("redirect_uri", "?") + "?")
     and back.get("code") and back.get("state") == q["state"], f"authorize: {x[6]}, Location {location!r}")

# 6. The code for a token, proven by the verifier.
x = hop(auth, "POST", route["token"].path, "code + verifier for a token")
form = dict(urllib.parse.parse_qsl(x[5].decode()))
s256 = base64.urlsafe_b64encode(hashlib.sha256(form.get("code_verifier", "").encode()).digest()).rstrip(b"=").decode()
want(form.get("grant_type") == "authorization_code" and form.get("code") == back["code"]
     and form.get("redirect_uri") == q["redirect_uri"] and s256 == q["code_challenge"],
     f"token request: {form.get('grant_type')}, same code {form.get('code') == back['code']}, S256(verifier) == challenge {s256 == q['code_challenge']}")
token = json.loads(x[8]) if x[6] == 200 else {}
want(token.get("access_token") and token.get("token_type", "").lower() == "bearer", f"token: {x[6]} {x[8][:200]!r}")

# 7. The MCP requests with that token.
later = [x for x in exchanges if x[0] > hops[-1][0] and x[1] == mcp]
want(any(x[2] == "POST" for x in later), "no POST /mcp after the token")
for x in later:
    # A GET for the server's own stream may get 405: the server offers none (MCP 2025-11-25,
    # basic/transports, "Listening for Messages from the Server").
    want(x[4].get("authorization") == f"Bearer {token['access_token']}" and (x[6] < 400 or (x[2], x[6]) == ("GET", 405)),
         f"{show(x)} with Authorization {x[4].get('authorization', '(none)')[:20]!r}…")
said = b"".join(x[5] for x in later), b"".join(x[8] for x in later)
want(re.search(rb'"method":"tools/call","params":\{"name":"add","arguments":\{"a":2,"b":40\}', said[0])
     and b'"content":[{"type":"text","text":"42"}]' in said[1], "no add call and its 42 among them")
print(f"  then {len(later)} requests to /mcp ({', '.join(sorted({x[2] for x in later}))}), each with Authorization: Bearer and the token issued at hop 6,"
      " the add call and its 42 among them")

# Both legs' handshakes on every lane: the client's, accepted by the tap, and the tap's own.
for lane in server_of:
    sides = {e.get("accepted") for e in tls.get(lane, [])}
    want(sides == {True, False}, f"lane {lane}: tls events {tls.get(lane)}")
print(f"  {len(server_of)} lanes ({sum(s == mcp for s in server_of.values())} to the MCP server), each with the tls events of both legs")
