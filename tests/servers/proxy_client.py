#!/usr/bin/env python3
"""An MCP client mcp-raw did not write, for tests/tap_proxy.rs: Python's urllib
reaching an HTTPS MCP server through the proxy in `https_proxy` (urllib's
ProxyHandler reads it; CONNECT, then TLS inside the tunnel), trusting the CA files
given. Initialize, notifications/initialized, tools/call add {a: 2, b: 40}.

    proxy_client.py URL CAFILE...

Prints one JSON object: each answer's status and body as received.
"""

import json
import ssl
import sys
import urllib.request


def main():
    url, cafiles = sys.argv[1], sys.argv[2:]
    ctx = ssl.create_default_context()
    for f in cafiles:
        ctx.load_verify_locations(f)
    # ProxyHandler() with no argument takes https_proxy from the environment.
    opener = urllib.request.build_opener(
        urllib.request.ProxyHandler(), urllib.request.HTTPSHandler(context=ctx)
    )
    session = None

    def post(message):
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        }
        if session:
            headers["Mcp-Session-Id"] = session
            headers["MCP-Protocol-Version"] = "2025-06-18"
        req = urllib.request.Request(
            url, data=json.dumps(message).encode(), headers=headers, method="POST"
        )
        with opener.open(req, timeout=20) as r:
            return r.status, r.headers.get("Mcp-Session-Id"), r.read().decode()

    out = {}
    status, session, body = post({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "urllib-through-proxy", "version": "1"}},
    })
    out["initialize"] = [status, body]
    status, _, body = post({"jsonrpc": "2.0", "method": "notifications/initialized"})
    out["initialized"] = [status, body]
    status, _, body = post({
        "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 2, "b": 40}},
    })
    out["call"] = [status, body]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
