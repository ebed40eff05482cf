import type { FastifyInstance, FastifyReply } from 'fastify';
import { protectedResourceMetadata, OAUTH_PATHS, resourceMetadataUrl } from '../session/tokens/oauth-metadata.js';
import { verdictMessage, type TokenVerdict } from '../session/tokens/token-verdict.js';
import { mcpCorsHeaders } from './cors.js';
import type { McpDeps } from './mcp-deps.js';

/**
 * `/mcp` on the web server: Streamable HTTP, stateless (a server and transport per request), the
 * caller named by `Authorization: Bearer <token>` — no browser session, no cookie, so no CSRF.
 * With OAuth on (the web's authorization server mounted, `publicUrl` given), `/mcp` also serves its
 * protected-resource metadata (RFC 9728) and every 401 points a client at it.
 */

export interface McpRouteOptions {
  /** HELMCREW_WEB_URL when the web issues tokens through OAuth (docs/mcp.md); absent: tokens from `helmcrew token create` only. */
  publicUrl?: string;
  /** Browser origins allowed to call `/mcp` (CORS; HELMCREW_MCP_CORS_ORIGINS); none by default. */
  corsOrigins?: readonly string[];
}

/** Pure: the token in an Authorization header, or undefined. */
export function bearerOf(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/**
 * Pure: a 401's challenge (RFC 6750 §3, RFC 9728 §5.1). A request without a token gets no error
 * code; a token that is unknown, revoked or expired gets `invalid_token` and why (its id, never the token).
 */
export function bearerChallenge(publicUrl: string | undefined, verdict: TokenVerdict, presented: boolean): string {
  const params = [publicUrl ? `resource_metadata="${resourceMetadataUrl(publicUrl)}"` : 'realm="helmcrew"'];
  if (presented) params.push('error="invalid_token"', `error_description="${verdictMessage(verdict).replace(/["\\]/g, "'")}"`);
  return `Bearer ${params.join(', ')}`;
}

const jsonRpcError = (reply: FastifyReply, status: number, message: string, challenge?: string) =>
  reply
    .code(status)
    .header('www-authenticate', challenge)
    .type('application/json')
    .send({ jsonrpc: '2.0', error: { code: -32001, message }, id: null });

export function mcpRoute(deps: McpDeps, options: McpRouteOptions = {}) {
  return (app: FastifyInstance) => {
    const { publicUrl, corsOrigins = [] } = options;
    // A browser asks first (preflight); an origin not listed gets no CORS headers, so its page cannot call.
    app.options('/mcp', async (request, reply) => {
      const headers = mcpCorsHeaders(request.headers.origin, corsOrigins, true);
      return headers ? reply.code(204).headers(headers).send() : reply.code(403).send();
    });
    if (publicUrl) {
      // RFC 9728: at the resource's own well-known path, and at the root for clients that look there first.
      const metadata = protectedResourceMetadata(publicUrl);
      for (const url of [OAUTH_PATHS.protectedResourceMetadata, `${OAUTH_PATHS.protectedResourceMetadata}/mcp`])
        app.get(url, async (_request, reply) => reply.header('access-control-allow-origin', '*').send(metadata));
    }
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
        // On the raw response: the SDK's transport writes it itself (http-serve.ts), and a 401's challenge must be readable too.
        for (const [name, value] of Object.entries(mcpCorsHeaders(request.headers.origin, corsOrigins, false) ?? {})) reply.raw.setHeader(name, value);
        const token = bearerOf(request.headers.authorization);
        const verdict = token ? await deps.tokens.verdict(token) : { kind: 'unknown' as const };
        if (verdict.kind !== 'ok') {
          const tokenId = 'record' in verdict ? verdict.record.id : undefined;
          deps.audit.record({ tokenId, tool: '-', outcome: 'unauthenticated', detail: verdict.kind });
          return jsonRpcError(reply, 401, verdictMessage(verdict), bearerChallenge(publicUrl, verdict, token !== undefined));
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
