"""HTTP/1.1 by hand for the test servers beside this file: one request read from a
socket, one response written, a chunk of a chunked body. Standard library only; the
servers import it from their own folder (python3 puts a script's folder on sys.path).
"""

# A response head for an event stream whose body is chunked.
SSE_HEAD = (b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
            b"transfer-encoding: chunked\r\n\r\n")


def read_request(conn):
    """(method, headers with lower-case names, body), or None when the peer closes
    before a whole request came."""
    data = b""
    while b"\r\n\r\n" not in data:
        more = conn.recv(65536)
        if not more:
            return None
        data += more
    head, rest = data.split(b"\r\n\r\n", 1)
    lines = head.decode().split("\r\n")
    method, _path, _ = lines[0].split(" ", 2)
    headers = {}
    for line in lines[1:]:
        name, value = line.split(":", 1)
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    while len(rest) < length:
        more = conn.recv(65536)
        if not more:
            return None
        rest += more
    return method, headers, rest[:length]


def respond(conn, status, headers, body=b""):
    """A whole response with its Content-Length, in one write."""
    head = "HTTP/1.1 %s\r\n" % status
    for name, value in headers + [("content-length", str(len(body)))]:
        head += "%s: %s\r\n" % (name, value)
    conn.sendall(head.encode() + b"\r\n" + body)


def chunk(data):
    """One chunk of a chunked body (RFC 9112 §7.1)."""
    return b"%x\r\n%s\r\n" % (len(data), data)
