"""Compares a HAR mcp-raw wrote with the flows mitmproxy read from it (the JSON lines
of mitm_flows.py on stdin): the same requests and responses, in order — method, URL,
bodies (by SHA-256), status, reason and headers. Exits 1 on the first difference."""
import base64
import hashlib
import json
import sys

har = json.load(open(sys.argv[1]))
flows = [json.loads(line) for line in sys.stdin if line.startswith("{")]
for flow in flows:
    # mitmproxy gives a request read without a body and without a length one of
    # its own (`content-length: 0`), which never crossed: left out here.
    heads = flow["request_headers"]
    names = [k.lower() for k, _ in heads[:-1]]
    if heads and heads[-1] == ["content-length", "0"] and "content-length" not in names \
            and "transfer-encoding" not in names:
        heads.pop()


def body(obj):
    if not obj or "text" not in obj:
        return b""
    if obj.get("encoding") == "base64" or obj.get("_encoding") == "base64":
        return base64.b64decode(obj["text"])
    return obj["text"].encode()


want = []
for e in har["log"]["entries"]:
    req, res = e["request"], e["response"]
    want.append({
        "method": req["method"],
        "url": req["url"],
        "request_body": hashlib.sha256(body(req.get("postData"))).hexdigest(),
        "request_headers": [[h["name"], h["value"]] for h in req["headers"]],
        "status": res["status"],
        "reason": res["statusText"],
        "response_body": hashlib.sha256(body(res["content"])).hexdigest(),
        "response_headers": [[h["name"], h["value"]] for h in res["headers"]],
    })
if len(want) != len(flows):
    sys.exit(f"FAIL: {sys.argv[1]}: {len(want)} exchanges in the HAR, mitmproxy read {len(flows)}")
for i, (w, g) in enumerate(zip(want, flows)):
    for key in w:
        if w[key] != g[key]:
            sys.exit(f"FAIL: {sys.argv[1]} entry {i} {key}: the HAR says {w[key]!r}, mitmproxy read {g[key]!r}")
print(f"mitmproxy read {sys.argv[1]}: the same {len(flows)} requests and responses")
