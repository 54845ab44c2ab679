// The official TypeScript SDK clients, v1 (@modelcontextprotocol/sdk) and v2
// (@modelcontextprotocol/client), driving mcp-raw's server; both are pinned in
// package.json, and the first argument picks one.
//
//   node client.mjs v1|v2 stdio /path/to/mcp-raw           (the SDK spawns `mcp-raw serve`)
//   node client.mjs v1|v2 http  http://127.0.0.1:PORT/mcp  (a server run.sh already started)
//   HTTPS_PROXY=http://PROXY node client.mjs v1|v2 http https://…  (through a forward proxy)
//
// Exits 0 when every check passes; otherwise prints the first failed check and exits 1.

import assert from 'node:assert/strict';

const [sdk, mode, target] = process.argv.slice(2);
if (!['v1', 'v2'].includes(sdk) || !['stdio', 'http'].includes(mode) || !target) {
  console.error('usage: node client.mjs v1|v2 stdio BINARY | node client.mjs v1|v2 http URL');
  process.exit(2);
}
const name = sdk === 'v1' ? 'ts' : 'ts2';

// The same three names from either major version.
const { Client, StdioClientTransport, StreamableHTTPClientTransport } =
  sdk === 'v1'
    ? {
        ...(await import('@modelcontextprotocol/sdk/client/index.js')),
        ...(await import('@modelcontextprotocol/sdk/client/stdio.js')),
        ...(await import('@modelcontextprotocol/sdk/client/streamableHttp.js')),
      }
    : {
        ...(await import('@modelcontextprotocol/client')),
        ...(await import('@modelcontextprotocol/client/stdio')),
      };

// HTTPS_PROXY (interop/tap.sh ts-proxy: `mcp-raw tap --proxy`): every fetch goes through
// that forward proxy, a CONNECT tunnel per origin, by undici's ProxyAgent made the global
// dispatcher. Node 20's fetch ignores HTTPS_PROXY (NODE_USE_ENV_PROXY came in 22.21).
// The proxy's CA is trusted the usual Node way, NODE_EXTRA_CA_CERTS.
if (process.env.HTTPS_PROXY) {
  const { ProxyAgent, setGlobalDispatcher } = await import('undici');
  setGlobalDispatcher(new ProxyAgent(process.env.HTTPS_PROXY));
}

// Every request gets its own deadline, so a silent server fails fast instead of hanging.
const opts = { timeout: 10_000 };

// What the SDK runs over stdio: `BINARY serve`, or (interop/tap.sh) the arguments in
// MCP_RAW_SERVER_ARGS, a JSON array, such as a tap in front of the server.
const serverArgs = process.env.MCP_RAW_SERVER_ARGS ? JSON.parse(process.env.MCP_RAW_SERVER_ARGS) : ['serve'];

// The SDK sees only the transport: everything after connect() is the same for both.
const transport =
  mode === 'stdio'
    ? new StdioClientTransport({ command: target, args: serverArgs, stderr: 'inherit' })
    : new StreamableHTTPClientTransport(new URL(target));
const client = new Client({ name: `mcp-raw-interop-${name}`, version: '0.0.0' });

// The text of a single-text-item tool result.
function onlyText(result, what) {
  assert.ok(Array.isArray(result.content), `${what}: result has no content array`);
  assert.equal(result.content.length, 1, `${what}: expected one content item`);
  assert.equal(result.content[0].type, 'text', `${what}: content item is not text`);
  return result.content[0].text;
}

async function call(name, args) {
  return client.callTool({ name, arguments: args }, undefined, opts);
}

async function main() {
  // connect() runs the handshake: initialize, then notifications/initialized.
  await client.connect(transport, opts);
  const info = client.getServerVersion();
  console.log(`connected: server ${info?.name} ${info?.version}`);
  if (mode === 'http') {
    // Over HTTP the transport keeps what later requests must carry as headers. v1
    // always runs the handshake; v2 may speak the stateless 2026-07-28 (no session).
    if (sdk === 'v1') assert.ok(transport.sessionId, 'no Mcp-Session-Id after initialize');
    console.log(`http: protocol ${transport.protocolVersion}, session ${transport.sessionId ?? '(none: stateless)'}`);
  }

  const { tools } = await client.listTools(undefined, opts);
  const names = tools.map((t) => t.name).sort();
  assert.deepEqual(names, ['add', 'echo', 'get_current_time'], `tools/list names: ${JSON.stringify(names)}`);
  console.log(`tools/list: ${names.join(', ')}`);

  const time = await call('get_current_time', {});
  assert.ok(!time.isError, 'get_current_time: isError set');
  const stamp = onlyText(time, 'get_current_time');
  // RFC 3339 in UTC: date, 'T', time, optional fraction, then 'Z'.
  assert.match(stamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/, `get_current_time: not RFC 3339 UTC: ${stamp}`);
  const skew = Math.abs(Date.parse(stamp) - Date.now());
  assert.ok(skew < 60_000, `get_current_time: ${stamp} is ${skew} ms from this machine's clock`);
  console.log(`get_current_time: ${stamp}`);

  const message = `hello from the TypeScript SDK ${sdk}: ünïcödé ✓`;
  const echoed = await call('echo', { message });
  assert.ok(!echoed.isError, 'echo: isError set');
  assert.equal(onlyText(echoed, 'echo'), message, 'echo: wrong text');
  console.log(`echo: ${JSON.stringify(message)}`);

  const sum = await call('add', { a: 2, b: 40 });
  assert.ok(!sum.isError, 'add: isError set');
  assert.equal(onlyText(sum, 'add'), '42', 'add 2+40');
  console.log('add 2+40: 42');

  // A bad argument is a tool error (a result with isError), not a JSON-RPC error.
  const bad = await call('add', { a: 'two', b: 40 });
  assert.equal(bad.isError, true, `add("two", 40): isError is ${bad.isError}`);
  const why = onlyText(bad, 'add("two", 40)');
  assert.match(why, /"a"/, `add("two", 40): error text does not name argument "a": ${why}`);
  console.log(`add("two", 40): isError, ${JSON.stringify(why)}`);

  // A polite HTTP client ends its session with DELETE (a 405 would also be accepted).
  if (mode === 'http' && transport.sessionId) await transport.terminateSession();
  await client.close();
}

main().then(
  () => {
    console.log(`${name}-${mode}: all checks passed`);
    process.exit(0);
  },
  (err) => {
    console.error(`${name}-${mode}: FAILED: ${err?.message ?? err}`);
    process.exit(1);
  },
);
