import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TokenRecord } from '../session/tokens/token-verdict.js';
import type { McpDeps } from './mcp-deps.js';
import { buildMcpServer } from './mcp-server.js';

/**
 * One authenticated `/mcp` request, stateless: a server and a transport for it alone. Loaded by
 * http-route.ts at the first call, so a web process that no assistant talks to never loads the SDK.
 */
export async function serveMcp(deps: McpDeps, record: TokenRecord, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const server = buildMcpServer(deps, record);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  reply.hijack();
  reply.raw.on('close', () => {
    void transport.close();
    void server.close();
  });
  try {
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  } catch (error) {
    deps.log.error({ token: record.id, error: error instanceof Error ? error.message.slice(0, 300) : String(error) }, 'assistant request failed');
    if (!reply.raw.headersSent) reply.raw.writeHead(500, { 'content-type': 'application/json' });
    reply.raw.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'internal error' }, id: null }));
  }
}
