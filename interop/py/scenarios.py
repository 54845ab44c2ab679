"""The client matrix's scenarios (scripts/client-matrix.sh) for the Python SDK (`mcp`),
against `mcp-raw serve --fixture conformance --record`. This script only drives the
client; what the client did is read from the server's recording
(scripts/client_matrix.py), never from what this script prints.

    python scenarios.py stdio /path/to/mcp-raw
    python scenarios.py http  http://127.0.0.1:PORT/mcp

Run once per connect mode of the SDK ("auto", which speaks 2026-07-28 to this server,
then "legacy"). The steps, each on its own (a failure is printed, the next step runs):
- resumption: test_reconnection (legacy HTTP: the server ends its SSE stream with an
  event id and `retry: 500` before answering);
- server requests: sampling, elicitation and roots callbacks that answer with fixed
  results; test_sampling, test_elicitation (legacy: requests on the stream; 2026-07-28:
  an input_required result the SDK answers by calling again);
- tasks: none (the SDK's Client has no tasks API in this version);
- errors: test_error_handling (isError), an unknown tool (a JSON-RPC error), then
  tools/list on the same session.
Exits 0 when every step ran, 1 when one failed.
"""

import asyncio
import sys

from mcp import Client, types
from mcp.client.stdio import StdioServerParameters

TIMEOUT_S = 10.0


async def sampling(context, params):
    return types.CreateMessageResult(
        role="assistant", content=types.TextContent(type="text", text="a fixed answer"), model="matrix"
    )


async def elicitation(context, params):
    return types.ElicitResult(action="accept", content={"username": "matrix", "email": "matrix@example.com"})


async def roots(context):
    return types.ListRootsResult(roots=[types.Root(uri="file:///tmp", name="tmp")])


async def run(transport: str, target: str, connect_mode: str) -> int:
    server = (
        target
        if transport == "http"
        else StdioServerParameters(command=target, args=["serve", "--fixture", "conformance"])
    )
    failed = 0

    async def step(name, coro, refused=False):
        """Runs one step; one that raises is a failure unless it is meant to (`refused`:
        the unknown tool, whose JSON-RPC error the SDK raises)."""
        nonlocal failed
        try:
            print(f"{connect_mode} {name}: {await coro!r}"[:400])
            failed += refused
        except Exception as e:  # what the SDK surfaced: printed, the next step runs
            failed += not refused
            print(f"{connect_mode} {name}: {'raised' if refused else 'FAILED'}: {type(e).__name__}: {e}"[:400])

    async with Client(
        server,
        mode=connect_mode,
        read_timeout_seconds=TIMEOUT_S,
        sampling_callback=sampling,
        elicitation_callback=elicitation,
        list_roots_callback=roots,
    ) as client:
        await step("resumption", client.call_tool("test_reconnection", {}))
        await step("sampling", client.call_tool("test_sampling", {"prompt": "Say hello"}))
        await step("elicitation", client.call_tool("test_elicitation", {"message": "Who are you?"}))
        await step("isError", client.call_tool("test_error_handling", {}))
        await step("unknown tool", client.call_tool("no_such_tool", {}), refused=True)
        await step("after errors", client.list_tools())
    return failed


def main() -> int:
    if len(sys.argv) != 3 or sys.argv[1] not in ("stdio", "http"):
        print("usage: scenarios.py stdio BINARY | scenarios.py http URL", file=sys.stderr)
        return 2
    failed = 0
    for connect_mode in ("auto", "legacy"):
        try:
            failed += asyncio.run(run(sys.argv[1], sys.argv[2], connect_mode))
        except Exception as e:
            while isinstance(e, BaseExceptionGroup) and len(e.exceptions) == 1:
                e = e.exceptions[0]
            print(f"mode {connect_mode}: FAILED: {type(e).__name__}: {e}", file=sys.stderr)
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
