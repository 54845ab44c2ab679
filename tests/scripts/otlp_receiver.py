#!/usr/bin/env python3
"""An OTLP/HTTP receiver for the tests: decodes each POST to /v1/traces and
/v1/metrics with the OFFICIAL definitions (PyPI's opentelemetry-proto) and writes it as
one JSON line (google.protobuf.json_format) to --out, ids in hex.

  otlp_receiver.py --out FILE [--mode ok|fail|hang] [--tls CERT KEY]

Prints `listening PORT` on stdout once bound (127.0.0.1, a free port). --mode fail
answers every export 500; --mode hang reads the request and never answers.
http/json bodies are read as OTLP/JSON says: ids hex, which json_format (base64 for
bytes) is given after conversion; anything else that does not parse is a 400 and a
line saying so.
"""
import argparse
import base64
import json
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.protobuf import json_format
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
)

IDS = ("traceId", "spanId", "parentSpanId")
lock = threading.Lock()


def ids(node, convert):
    """Rewrites the id fields of every span (and link) in place."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k in IDS and isinstance(v, str):
                node[k] = convert(v)
            else:
                ids(v, convert)
    elif isinstance(node, list):
        for v in node:
            ids(v, convert)


def b64_to_hex(v):
    return base64.b64decode(v).hex()


def hex_to_b64(v):
    return base64.b64encode(bytes.fromhex(v)).decode()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--mode", default="ok", choices=["ok", "fail", "hang"])
    ap.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"), help="serve HTTPS")
    a = ap.parse_args()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            n = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(n)
            ctype = self.headers.get("Content-Type", "")
            record = {"path": self.path, "content_type": ctype,
                      "headers": {k.lower(): v for k, v in self.headers.items()}}
            if a.mode == "hang":
                self.write(record | {"hung": True})
                time.sleep(3600)
                return
            kind = {"/v1/traces": ExportTraceServiceRequest,
                    "/v1/metrics": ExportMetricsServiceRequest}.get(self.path)
            try:
                if kind is None:
                    raise ValueError("no such path")
                if ctype == "application/x-protobuf":
                    msg = kind.FromString(body)
                elif ctype == "application/json":
                    doc = json.loads(body)
                    ids(doc, hex_to_b64)
                    msg = json_format.Parse(json.dumps(doc), kind())
                else:
                    raise ValueError(f"content type {ctype!r}")
                # A field number the official definition does not have would be
                # kept as an unknown field: discarding them must change nothing.
                before = msg.SerializeToString(deterministic=True)
                msg.DiscardUnknownFields()
                if msg.SerializeToString(deterministic=True) != before:
                    raise ValueError("fields the official definition does not have")
                decoded = json_format.MessageToDict(msg)
                ids(decoded, b64_to_hex)
                record["body"] = decoded
            except Exception as e:  # a bad body: said, and a 400
                record["error"] = repr(e)
                self.write(record)
                self.reply(400, b"bad request")
                return
            self.write(record)
            if a.mode == "fail":
                self.reply(500, b"collector down")
            else:
                self.reply(200, b"", "application/x-protobuf")

        def reply(self, status, body, ctype="text/plain"):
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def write(self, record):
            with lock, open(a.out, "a") as f:
                f.write(json.dumps(record) + "\n")

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    if a.tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(*a.tls)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    print(f"listening {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
