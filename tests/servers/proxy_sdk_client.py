#!/usr/bin/env python3
"""The official Python SDK client (`mcp`, interop/.venv) through `mcp-raw tap --proxy`,
for tests/tap_proxy.rs: httpx takes the proxy from HTTPS_PROXY and the roots from
SSL_CERT_FILE, as any program of the user's would; the test sets both, nothing here
names the proxy. Lists the tools, calls add {a: 2, b: 40}.

    proxy_sdk_client.py URL

Prints the negotiated protocol version, the tool names and the call's text.
"""

import asyncio
import sys

from mcp import Client


async def main(url):
    async with Client(url, read_timeout_seconds=10) as client:
        tools = await client.list_tools()
        result = await client.call_tool("add", {"a": 2, "b": 40})
        names = ",".join(sorted(t.name for t in tools.tools))
        print(client.protocol_version, names, result.content[0].text)


asyncio.run(main(sys.argv[1]))
