#!/usr/bin/env python3
"""An OpenTelemetry-instrumented MCP client, for the trace-continuation test:

  otel_client.py URL

Starts a CLIENT span with the official Python SDK (opentelemetry-sdk), injects its
context with the SDK's default propagator (W3C traceparent/tracestate) into the
`params._meta` of a tools/call, as OpenTelemetry's MCP conventions say, and sends it
in a legacy session over plain HTTP (initialize, notifications/initialized, the call).
Prints {"trace_id", "span_id", "traceparent", "answer"} as JSON: the ids the server's
span must continue.
"""
import json
import sys
import urllib.request

from opentelemetry import propagate, trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.trace import SpanKind


def post(url, message, session=None):
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-11-25",
    }
    if session:
        headers["Mcp-Session-Id"] = session
    req = urllib.request.Request(url, json.dumps(message).encode(), headers)
    with urllib.request.urlopen(req, timeout=10) as r:
        body = r.read().decode()
        sid = r.headers.get("Mcp-Session-Id")
    if body.startswith("event:") or body.startswith("data:") or "\ndata:" in body:
        body = "".join(l[5:].strip() for l in body.splitlines() if l.startswith("data:"))
    return sid, (json.loads(body) if body.strip() else None)


def main():
    url = sys.argv[1]
    trace.set_tracer_provider(TracerProvider())
    tracer = trace.get_tracer("otel_client.py")
    session, _ = post(url, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "otel_client.py", "version": "1"}}})
    post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
    with tracer.start_as_current_span("tools/call add", kind=SpanKind.CLIENT) as span:
        meta = {}
        propagate.inject(meta)
        _, answer = post(url, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "add", "arguments": {"a": 2, "b": 3}, "_meta": meta}}, session)
        ctx = span.get_span_context()
    print(json.dumps({
        "trace_id": format(ctx.trace_id, "032x"),
        "span_id": format(ctx.span_id, "016x"),
        "traceparent": meta.get("traceparent"),
        "answer": answer,
    }))


if __name__ == "__main__":
    sys.exit(main())
