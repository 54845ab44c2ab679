// The client matrix's scenarios (scripts/client-matrix.sh) for the TypeScript SDK clients,
// v1 (@modelcontextprotocol/sdk) and v2 (@modelcontextprotocol/client), against
// `mcp-raw serve --fixture conformance --record`. This script only drives the client;
// what the client did is read from the server's recording (scripts/client_matrix.py),
// never from what this script prints.
//
//   node scenarios.mjs v1|v2 stdio /path/to/mcp-raw
//   node scenarios.mjs v1|v2 http  http://127.0.0.1:PORT/mcp
//
// The steps, each on its own (a failure is printed and the next step runs):
//   resumption:      test_reconnection (the server ends its SSE stream with an event id
//                    and `retry: 500` before answering; legacy HTTP);
//   server requests: the client declares sampling, elicitation and roots and answers
//                    each with a fixed result; test_sampling, test_elicitation;
//   tasks:           v1 only (v2 has no tasks API): slow_compute as a task-augmented
//                    tools/call through client.experimental.tasks.callToolStream;
//   errors:          test_error_handling (isError), an unknown tool (a JSON-RPC error),
//                    then tools/list on the same session.
// Exits 0 when every step ran, 1 when one failed (the matrix reads the recording anyway).

const [sdk, mode, target] = process.argv.slice(2);
if (!['v1', 'v2'].includes(sdk) || !['stdio', 'http'].includes(mode) || !target) {
  console.error('usage: node scenarios.mjs v1|v2 stdio BINARY | node scenarios.mjs v1|v2 http URL');
  process.exit(2);
}

const v1 = sdk === 'v1';
const mods = v1
  ? {
      ...(await import('@modelcontextprotocol/sdk/client/index.js')),
      ...(await import('@modelcontextprotocol/sdk/client/stdio.js')),
      ...(await import('@modelcontextprotocol/sdk/client/streamableHttp.js')),
      ...(await import('@modelcontextprotocol/sdk/types.js')),
    }
  : {
      ...(await import('@modelcontextprotocol/client')),
      ...(await import('@modelcontextprotocol/client/stdio')),
    };
const { Client, StdioClientTransport, StreamableHTTPClientTransport } = mods;

const opts = { timeout: 10_000 };
const transport =
  mode === 'stdio'
    ? new StdioClientTransport({ command: target, args: ['serve', '--fixture', 'conformance'], stderr: 'inherit' })
    : new StreamableHTTPClientTransport(new URL(target));
const client = new Client(
  { name: `mcp-raw-matrix-${sdk}`, version: '0.0.0' },
  { capabilities: { sampling: {}, elicitation: { form: {} }, roots: { listChanged: false } } },
);

// The fixed answers to the server's requests. v1 names a request by its zod schema,
// v2 by its method.
const answers = {
  'sampling/createMessage': () => ({
    role: 'assistant',
    content: { type: 'text', text: 'a fixed answer' },
    model: 'matrix',
  }),
  'elicitation/create': () => ({ action: 'accept', content: { username: 'matrix', email: 'matrix@example.com' } }),
  'roots/list': () => ({ roots: [{ uri: 'file:///tmp', name: 'tmp' }] }),
};
const schemas = {
  'sampling/createMessage': 'CreateMessageRequestSchema',
  'elicitation/create': 'ElicitRequestSchema',
  'roots/list': 'ListRootsRequestSchema',
};
for (const [method, answer] of Object.entries(answers)) {
  client.setRequestHandler(v1 ? mods[schemas[method]] : method, async () => answer());
}

// A step that throws counts as failed, unless it is the one meant to (`refused`: the
// unknown tool, whose JSON-RPC error the SDK raises).
let failed = 0;
async function step(name, run, refused = false) {
  try {
    console.log(`${name}: ${JSON.stringify(await run())}`);
    if (refused) failed += 1;
  } catch (err) {
    if (!refused) failed += 1;
    console.log(`${name}: ${refused ? 'raised' : 'FAILED'}: ${err?.code ?? ''} ${err?.message ?? err}`);
  }
}
const call = (name, args = {}) => client.callTool({ name, arguments: args }, undefined, opts);

await client.connect(transport, opts);
await step('resumption', () => call('test_reconnection'));
await step('sampling', () => call('test_sampling', { prompt: 'Say hello' }));
await step('elicitation', () => call('test_elicitation', { message: 'Who are you?' }));
if (v1) {
  await step('task', async () => {
    const seen = [];
    for await (const m of client.experimental.tasks.callToolStream(
      { name: 'slow_compute', arguments: { seconds: 1, label: 'matrix' } },
      undefined,
      { ...opts, task: { ttl: 60_000 } },
    )) {
      seen.push(m.type);
    }
    return seen;
  });
}
await step('isError', () => call('test_error_handling'));
await step('unknown tool', () => call('no_such_tool'), true);
await step('after errors', async () => (await client.listTools(undefined, opts)).tools.length);
if (mode === 'http' && transport.sessionId) await transport.terminateSession();
await client.close();
process.exit(failed ? 1 : 0);
