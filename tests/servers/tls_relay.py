#!/usr/bin/env python3
"""A TLS front for tests/tls.rs: Python's `ssl` (OpenSSL) terminates TLS on
127.0.0.1, and each connection's plaintext is relayed to a plain HTTP server
(`mcp-raw serve --http`), the way a TLS-terminating proxy sits in front of an MCP
server. mcp-raw did not write this TLS endpoint: OpenSSL did.

    tls_relay.py --cert leaf.pem --key leaf.key --target 127.0.0.1:PORT
                 [--client-ca ca.pem]   (require a client certificate it signed)

Prints its port on the first line of stdout; logs each handshake on stderr.
"""

import argparse
import select
import socket
import ssl
import sys
import threading


def relay(tls, target):
    """Copies bytes both ways until either side closes; one thread per connection, so
    the SSL object is never used by two threads at once."""
    try:
        upstream = socket.create_connection(target)
    except OSError as e:
        print(f"relay: cannot reach {target}: {e}", file=sys.stderr, flush=True)
        tls.close()
        return
    try:
        while True:
            # Bytes OpenSSL already decrypted are not visible to select().
            ready = [tls] if tls.pending() else select.select([tls, upstream], [], [], 60)[0]
            if not ready:
                return
            for sock in ready:
                data = sock.recv(65536)
                if not data:
                    return
                (upstream if sock is tls else tls).sendall(data)
    except (OSError, ssl.SSLError) as e:
        print(f"relay: {e}", file=sys.stderr, flush=True)
    finally:
        upstream.close()
        try:
            tls.close()
        except OSError:
            pass


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--cert", required=True)
    p.add_argument("--key", required=True)
    p.add_argument("--target", required=True)
    p.add_argument("--client-ca")
    a = p.parse_args()
    host, port = a.target.rsplit(":", 1)
    target = (host, int(port))

    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.load_cert_chain(a.cert, a.key)
    ctx.set_alpn_protocols(["http/1.1"])
    if a.client_ca:
        ctx.verify_mode = ssl.CERT_REQUIRED
        ctx.load_verify_locations(a.client_ca)

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    print(listener.getsockname()[1], flush=True)

    def serve(conn):
        try:
            tls = ctx.wrap_socket(conn, server_side=True)
        except (OSError, ssl.SSLError) as e:
            print(f"handshake failed: {e}", file=sys.stderr, flush=True)
            conn.close()
            return
        peer = tls.getpeercert()
        who = dict(x[0] for x in peer["subject"]) if peer else None
        print(f"handshake: {tls.version()} {tls.cipher()[0]} client={who}",
              file=sys.stderr, flush=True)
        relay(tls, target)

    while True:
        conn, _ = listener.accept()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


if __name__ == "__main__":
    main()
