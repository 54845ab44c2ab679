"""A small server on the official Python SDK (`mcp`, pinned in requirements.txt), for
`mcp-raw client` to meet in interop/run.sh:

    python server.py stdio
    python server.py http PORT        (Streamable HTTP on 127.0.0.1:PORT/mcp)
    python server.py https PORT CERT KEY
                                      (the same under uvicorn's own TLS, --ssl-certfile)

Its tools log, report progress, and ask the client (elicitation, sampling, roots)
through the SDK's resolvers, which ask mid-call in a 2025-11-25 session and answer
`input_required` (MRTR) in 2026-07-28, so the client's answers are checked in both
eras.
"""

import sys
from typing import Annotated

from pydantic import BaseModel

from mcp.server.mcpserver import Context, Elicit, ListRoots, MCPServer, Resolve, Sample
from mcp_types import SamplingMessage, TextContent

server = MCPServer("py-interop")


@server.tool()
def add(a: int, b: int) -> str:
    """Adds two integers."""
    return str(a + b)


@server.tool()
async def work(steps: int, ctx: Context) -> str:
    """Reports progress for each step and logs, then says it is done."""
    for i in range(steps):
        await ctx.info(f"step {i + 1} of {steps}")
        await ctx.report_progress(i + 1, steps, f"step {i + 1}")
    return f"done after {steps} steps"


class Name(BaseModel):
    name: str


def ask_name() -> Elicit[Name]:
    return Elicit("What is your name?", Name)


@server.tool()
def greet(who: Annotated[Name, Resolve(ask_name)]) -> str:
    """Asks the user's name (elicitation), then greets them."""
    return f"Hello, {who.name}!"


def ask_llm() -> Sample:
    return Sample(
        [SamplingMessage(role="user", content=TextContent(type="text", text="Say hi"))],
        max_tokens=20,
    )


@server.tool()
def sampled(reply: Annotated[object, Resolve(ask_llm)]) -> str:
    """Asks the client's LLM (sampling) and returns what it said."""
    content = getattr(reply, "content", None)
    return f"the LLM said: {getattr(content, 'text', content)}"


def ask_roots() -> ListRoots:
    return ListRoots()


@server.tool()
def roots(listed: Annotated[object, Resolve(ask_roots)]) -> str:
    """Lists the client's roots."""
    return "roots: " + ", ".join(str(r.uri) for r in getattr(listed, "roots", []))


if __name__ == "__main__":
    if sys.argv[1:2] == ["http"]:
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    elif sys.argv[1:2] == ["https"]:
        # The SDK's app under uvicorn with TLS (uvicorn's --ssl-certfile/--ssl-keyfile,
        # Python's ssl module on OpenSSL): a TLS server mcp-raw did not write.
        import uvicorn

        uvicorn.run(
            server.streamable_http_app(host="127.0.0.1"),
            host="127.0.0.1",
            port=int(sys.argv[2]),
            ssl_certfile=sys.argv[3],
            ssl_keyfile=sys.argv[4],
            log_level="warning",
        )
    else:
        server.run("stdio")
