// The demo server on the TypeScript SDK v1 (@modelcontextprotocol/sdk), written the
// way the SDK's README writes one, for bench/:
//   node server_v1.mjs stdio
//   node server_v1.mjs http PORT     Streamable HTTP on 127.0.0.1:PORT/mcp, one session
//                                    per initialize, JSON answers (enableJsonResponse)
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

// v1 takes zod shapes for tool arguments.
const SHAPES = {
  get_current_time: {},
  echo: { message: z.string().describe('Text to echo back') },
  add: { a: z.number(), b: z.number() },
};

import { TOOLS } from './tools.mjs';

function build() {
  const server = new McpServer({ name: 'bench-ts-v1', version: '1.0.0' });
  for (const t of TOOLS) {
    server.registerTool(t.name, { description: t.description, inputSchema: SHAPES[t.name] }, async (args) => ({
      content: [{ type: 'text', text: t.run(args ?? {}) }],
    }));
  }
  return server;
}

const [mode, port] = process.argv.slice(2);
if (mode === 'http') {
  const sessions = new Map();
  const http = createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const text = Buffer.concat(chunks).toString();
    const body = text ? JSON.parse(text) : undefined;
    const id = req.headers['mcp-session-id'];
    let transport = id ? sessions.get(id) : undefined;
    if (!transport && req.method === 'POST' && isInitializeRequest(body)) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: true,
        onsessioninitialized: (sid) => sessions.set(sid, transport),
      });
      transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
      await build().connect(transport);
    }
    if (!transport) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } }));
      return;
    }
    await transport.handleRequest(req, res, body);
  });
  http.keepAliveTimeout = 60_000;
  http.listen(Number(port), '127.0.0.1');
} else {
  await build().connect(new StdioServerTransport());
}
