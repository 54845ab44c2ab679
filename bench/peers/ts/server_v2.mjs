// The demo server on the TypeScript SDK v2 (@modelcontextprotocol/server, which speaks
// both 2025-11-25 and 2026-07-28), written the way its README writes one, for bench/:
//   node server_v2.mjs stdio         serveStdio: the first message picks the era
//   node server_v2.mjs http PORT     createMcpHandler on node:http via @modelcontextprotocol/node:
//                                    2026-07-28 per request; 2025-11-25 by its stateless fallback
import { createServer } from 'node:http';
import { McpServer, createMcpHandler, fromJsonSchema } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { TOOLS } from './tools.mjs';

function build() {
  const server = new McpServer({ name: 'bench-ts-v2', version: '1.0.0' }, { capabilities: { tools: {} } });
  for (const t of TOOLS) {
    server.registerTool(t.name, { description: t.description, inputSchema: fromJsonSchema(t.schema) }, async (args) => ({
      content: [{ type: 'text', text: t.run(args ?? {}) }],
    }));
  }
  return server;
}

const [mode, port] = process.argv.slice(2);
if (mode === 'http') {
  const handler = toNodeHandler(createMcpHandler(() => build()));
  const http = createServer((req, res) => handler(req, res));
  http.keepAliveTimeout = 60_000;
  http.listen(Number(port), '127.0.0.1');
} else {
  serveStdio(() => build());
}
