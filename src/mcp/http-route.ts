import type { FastifyInstance, FastifyReply } from 'fastify';
import { verdictMessage } from '../session/tokens/token-verdict.js';
import type { McpDeps } from './mcp-deps.js';

/**
 * `/mcp` on the web server: Streamable HTTP, stateless (a server and transport per request), the
 * caller named by `Authorization: Bearer <token>` — no browser session, no cookie, so no CSRF.
 */

/** Pure: the token in an Authorization header, or undefined. */
export function bearerOf(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

const jsonRpcError = (reply: FastifyReply, status: number, message: string) =>
  reply
    .code(status)
    .header('www-authenticate', status === 401 ? 'Bearer realm="helmcrew"' : undefined)
    .type('application/json')
    .send({ jsonrpc: '2.0', error: { code: -32001, message }, id: null });

export function mcpRoute(deps: McpDeps) {
  return (app: FastifyInstance) => {
    app.route({
      method: ['GET', 'POST', 'DELETE'],
      url: '/mcp',
      // A body that is not JSON (or too big) is a JSON-RPC parse error, not the web's HTML error page.
      errorHandler: (error: Error & { statusCode?: number }, _request, reply) => {
        const status = error.statusCode && error.statusCode < 500 ? error.statusCode : 500;
        if (status === 500) deps.log.error({ error: error.message.slice(0, 300) }, 'assistant request failed');
        void reply
          .code(status)
          .type('application/json')
          .send({
            jsonrpc: '2.0',
            error: { code: status === 500 ? -32603 : -32700, message: status === 500 ? 'internal error' : 'the body is not valid JSON-RPC' },
            id: null,
          });
      },
      handler: async (request, reply) => {
        const token = bearerOf(request.headers.authorization);
        const verdict = token ? await deps.tokens.verdict(token) : { kind: 'unknown' as const };
        if (verdict.kind !== 'ok') {
          const tokenId = 'record' in verdict ? verdict.record.id : undefined;
          deps.audit.record({ tokenId, tool: '-', outcome: 'unauthenticated', detail: verdict.kind });
          return jsonRpcError(reply, 401, verdictMessage(verdict));
        }
        // Stateless: no session to resume, so only POST carries calls.
        if (request.method !== 'POST') return jsonRpcError(reply, 405, 'this server is stateless: POST JSON-RPC requests to /mcp');
        // The SDK (and zod, its tools' schemas: ~25 MiB of RSS, docs/performance.md) loads at the first call, not with the pages.
        const { serveMcp } = await import('./http-serve.js');
        await serveMcp(deps, verdict.record, request, reply);
        return reply;
      },
    });
  };
}
