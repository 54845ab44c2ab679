// The TypeScript SDK v1 client (@modelcontextprotocol/sdk) driving
// @modelcontextprotocol/server-everything, or anything that answers like it (a
// recording of it served by `mcp-raw replay`). Prints one JSON document of what the
// server answered, so two runs can be compared byte for byte (interop/replay.sh).
//
//   node everything_client.mjs stdio COMMAND ARG...
//   node everything_client.mjs http URL

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [mode, target, ...args] = process.argv.slice(2);
if (!['stdio', 'http'].includes(mode) || !target) {
  console.error('usage: node everything_client.mjs stdio COMMAND ARG... | http URL');
  process.exit(2);
}
const opts = { timeout: 15_000 };
const transport =
  mode === 'stdio'
    ? new StdioClientTransport({ command: target, args, stderr: 'ignore' })
    : new StreamableHTTPClientTransport(new URL(target));
const client = new Client({ name: 'mcp-raw-interop-everything', version: '0.0.0' });

async function main() {
  await client.connect(transport, opts);
  const seen = { server: client.getServerVersion() };
  const { tools } = await client.listTools(undefined, opts);
  seen.tools = tools.map((t) => t.name).sort();
  const call = (name, args) => client.callTool({ name, arguments: args }, undefined, opts);
  seen.echo = await call('echo', { message: 'hello, replay' });
  seen.sum = await call('get-sum', { a: 2, b: 40 });
  seen.structured = await call('get-structured-content', { location: 'Chicago' });
  seen.annotated = await call('get-annotated-message', { messageType: 'success', includeImage: false });
  seen.image = await call('get-tiny-image', {});
  const { resources } = await client.listResources(undefined, opts);
  seen.resources = resources.map((r) => r.uri);
  if (resources.length > 0) seen.read = await client.readResource({ uri: resources[0].uri }, opts);
  const { prompts } = await client.listPrompts(undefined, opts);
  seen.prompts = prompts.map((p) => p.name).sort();
  if (mode === 'http' && transport.sessionId) await transport.terminateSession().catch(() => {});
  await client.close();
  return seen;
}

main().then(
  (seen) => {
    process.stdout.write(JSON.stringify(seen, null, 2) + '\n');
    process.exit(0);
  },
  (err) => {
    console.error(`everything client: FAILED: ${err?.message ?? err}`);
    process.exit(1);
  },
);
