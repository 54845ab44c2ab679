"""The official Python SDK client (`mcp`), driving mcp-raw's server.

    python client.py stdio /path/to/mcp-raw           (the SDK spawns `mcp-raw serve`)
    python client.py http  http://127.0.0.1:PORT/mcp  (a server run.sh already started)

Exits 0 when every check passes; otherwise prints the first failed check and exits 1.

The checks run twice, once per connect mode of the SDK:
- "auto" (the default): probe `server/discover` at the stateless revision 2026-07-28,
  and fall back to the `initialize` handshake if the server rejects the probe;
- "legacy": the `initialize` handshake only.
So a server that offers 2026-07-28 is tested on both revisions; the line "negotiated:"
says which one each pass used.
"""

import asyncio
import re
import sys
from datetime import datetime, timezone

from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

# Per-request deadline, so a silent server fails fast instead of hanging.
TIMEOUT_S = 10.0

# RFC 3339 in UTC: date, 'T', time, optional fraction, then 'Z'.
RFC3339_UTC = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$")


class CheckFailed(Exception):
    pass


def check(ok: bool, what: str) -> None:
    if not ok:
        raise CheckFailed(what)


def only_text(result, what: str) -> str:
    """The text of a single-text-item tool result."""
    check(len(result.content) == 1, f"{what}: expected one content item, got {result.content!r}")
    item = result.content[0]
    check(item.type == "text", f"{what}: content item is not text: {item!r}")
    return item.text


async def run(transport: str, target: str, connect_mode: str) -> None:
    # A URL string means Streamable HTTP; StdioServerParameters means spawn and pipe.
    server = target if transport == "http" else StdioServerParameters(command=target, args=["serve"])
    async with Client(server, mode=connect_mode, read_timeout_seconds=TIMEOUT_S) as client:
        info = client.server_info
        era = "stateless (server/discover)" if client.protocol_version in MODERN_PROTOCOL_VERSIONS else "initialize handshake"
        print(f"-- mode {connect_mode}: connected to {info.name if info else '?'} {info.version if info else '?'}")
        print(f"negotiated: {client.protocol_version} via {era}")

        listing = await client.list_tools()
        names = sorted(t.name for t in listing.tools)
        check(names == ["add", "echo", "get_current_time"], f"tools/list names: {names}")
        print(f"tools/list: {', '.join(names)}")

        time = await client.call_tool("get_current_time", {})
        check(not time.is_error, "get_current_time: isError set")
        stamp = only_text(time, "get_current_time")
        check(RFC3339_UTC.match(stamp) is not None, f"get_current_time: not RFC 3339 UTC: {stamp!r}")
        # Python 3.11's fromisoformat accepts the 'Z' suffix and gives an aware datetime.
        skew = abs((datetime.fromisoformat(stamp) - datetime.now(timezone.utc)).total_seconds())
        check(skew < 60, f"get_current_time: {stamp} is {skew:.1f} s from this machine's clock")
        print(f"get_current_time: {stamp}")

        message = "hello from the Python SDK: ünïcödé ✓"
        echoed = await client.call_tool("echo", {"message": message})
        check(not echoed.is_error, "echo: isError set")
        got = only_text(echoed, "echo")
        check(got == message, f"echo: sent {message!r}, got {got!r}")
        print(f"echo: {message!r}")

        total = await client.call_tool("add", {"a": 2, "b": 40})
        check(not total.is_error, "add: isError set")
        got = only_text(total, "add 2+40")
        check(got == "42", f"add 2+40: expected '42', got {got!r}")
        print("add 2+40: 42")

        # A bad argument is a tool error (a result with isError), not a JSON-RPC error.
        bad = await client.call_tool("add", {"a": "two", "b": 40})
        check(bad.is_error is True, f"add('two', 40): isError is {bad.is_error!r}")
        why = only_text(bad, "add('two', 40)")
        check('"a"' in why, f"add('two', 40): error text does not name argument \"a\": {why!r}")
        print(f"add('two', 40): isError, {why!r}")
    # Leaving the block closes the session: over HTTP the SDK sends DELETE for it.


def main() -> int:
    if len(sys.argv) != 3 or sys.argv[1] not in ("stdio", "http"):
        print("usage: client.py stdio BINARY | client.py http URL", file=sys.stderr)
        return 2
    transport, target = sys.argv[1:]
    for connect_mode in ("auto", "legacy"):
        try:
            asyncio.run(run(transport, target, connect_mode))
        except Exception as e:
            # An SDK error may arrive wrapped in an ExceptionGroup by anyio's task groups.
            while isinstance(e, BaseExceptionGroup) and len(e.exceptions) == 1:
                e = e.exceptions[0]
            print(f"py-{transport} (mode {connect_mode}): FAILED: {type(e).__name__}: {e}", file=sys.stderr)
            return 1
    print(f"py-{transport}: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
