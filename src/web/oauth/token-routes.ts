import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Logger } from '../../core/log.js';
import { authorizationServerMetadata, OAUTH_PATHS } from '../../session/tokens/oauth-metadata.js';
import { checkRegistration, registrationResponse } from './oauth-rules.js';
import type { OAuthStore } from './oauth-store.js';
import type { TokenGrants } from './token-grants.js';
import { readTokenRequest } from './token-request.js';

/**
 * The machine side of the assistants' OAuth, reached without a browser session (no cookie, so no
 * CSRF): the authorization server's metadata (RFC 8414), client registration (RFC 7591, public
 * clients only) and the token endpoint (a code and its PKCE verifier, or a refresh token, for a
 * short-lived token in the token store acting as the person who allowed it). Errors are RFC 6749
 * JSON, never the HTML error page.
 */

export interface TokenRouteDeps {
  publicUrl: string;
  store: OAuthStore;
  grants: TokenGrants;
  log: Logger;
  ratePerMinute: number;
}

const oauthError = (reply: FastifyReply, status: number, error: string, error_description: string) =>
  reply.code(status).header('cache-control', 'no-store').type('application/json').send({ error, error_description });

export function tokenRoutes(deps: TokenRouteDeps) {
  const { store, grants, log } = deps;
  const limited = {
    config: { rateLimit: { max: deps.ratePerMinute, timeWindow: 60_000 } },
    // A body that cannot be read, a 429 or a failure inside: RFC 6749's JSON, not the web's HTML page.
    errorHandler: (error: Error & { statusCode?: number }, _request: unknown, reply: FastifyReply) => {
      const status = error.statusCode && error.statusCode < 500 ? error.statusCode : 500;
      if (status === 429) return oauthError(reply, 429, 'invalid_request', 'too many requests from this address; wait a minute');
      if (status < 500) return oauthError(reply, status, 'invalid_request', 'the request body could not be read');
      log.error({ error: error.message.slice(0, 300) }, 'assistant OAuth request failed');
      return oauthError(reply, 500, 'server_error', 'failed on the server; try again');
    },
  };
  return (app: FastifyInstance) => {
    const metadata = authorizationServerMetadata(deps.publicUrl);
    app.get(OAUTH_PATHS.authorizationServerMetadata, async (_request, reply) => reply.header('access-control-allow-origin', '*').send(metadata));

    app.post(OAUTH_PATHS.register, limited, async (request, reply) => {
      const checked = checkRegistration(request.body);
      if (!checked.ok) return oauthError(reply, 400, checked.error.error, checked.error.error_description);
      const client = await store.registerClient(checked.value);
      log.info({ client: client.clientId, name: client.name, redirectUris: client.redirectUris }, 'registered an assistant OAuth client');
      return reply.code(201).header('cache-control', 'no-store').send(registrationResponse(client));
    });

    app.post(OAUTH_PATHS.token, limited, async (request, reply) => {
      const read = readTokenRequest(request.body);
      if (!read.ok) return oauthError(reply, read.error.status, read.error.error, read.error.error_description);
      const asked = read.value;
      if (!(await store.client(asked.clientId))) return oauthError(reply, 401, 'invalid_client', 'this client is not registered here');
      const answer = asked.grant === 'authorization_code' ? await grants.redeemCode(asked) : await grants.refresh(asked);
      if ('error' in answer) return oauthError(reply, answer.status, answer.error, answer.error_description);
      return reply.header('cache-control', 'no-store').header('pragma', 'no-cache').send(answer);
    });
  };
}
