"""The demo server (get_current_time, echo, add) on the official Python SDK (`mcp`,
pinned in interop/py/requirements.txt), written the way the SDK's README writes one,
for bench/:

    python server.py stdio
    python server.py http PORT    Streamable HTTP on 127.0.0.1:PORT/mcp (uvicorn),
                                  sessions for 2025-11-25, JSON answers
"""

import sys
from datetime import datetime, timezone

from mcp.server.mcpserver import MCPServer

server = MCPServer("bench-py")


@server.tool()
def get_current_time() -> str:
    """Returns the current UTC time as an RFC 3339 timestamp."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


@server.tool()
def echo(message: str) -> str:
    """Echoes back the message it is given."""
    return message


@server.tool()
def add(a: float, b: float) -> str:
    """Adds two numbers and returns the sum."""
    s = a + b
    return str(int(s)) if s == int(s) else str(s)


if __name__ == "__main__":
    if sys.argv[1:2] == ["http"]:
        server.run(
            "streamable-http", host="127.0.0.1", port=int(sys.argv[2]), json_response=True
        )
    else:
        server.run("stdio")
