"""A mitmdump addon: each flow it reads (`mitmdump -nr FILE.har -s THIS`) as one JSON
line on stdout: method, URL, the request body's SHA-256, status, reason, the response
body's SHA-256 and each side's headers, in their order, as mitmproxy read them."""
import hashlib
import json
import sys


def _sha(data):
    return hashlib.sha256(data or b"").hexdigest()


def response(flow):
    req, res = flow.request, flow.response
    sys.stdout.write(json.dumps({
        "method": req.method,
        "url": req.url,
        "request_body": _sha(req.raw_content),
        "request_headers": [[k, v] for k, v in req.headers.items(multi=True)],
        "status": res.status_code,
        "reason": res.reason,
        "response_body": _sha(res.raw_content),
        "response_headers": [[k, v] for k, v in res.headers.items(multi=True)],
    }) + "\n")
    sys.stdout.flush()
