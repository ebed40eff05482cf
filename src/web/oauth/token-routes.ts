import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Logger } from '../../core/log.js';
import { authorizationServerMetadata, OAUTH_PATHS } from '../../session/tokens/oauth-metadata.js';
import type { TokenStore } from '../../session/tokens/token-store.js';
import type { TokenRecord } from '../../session/tokens/token-verdict.js';
import { checkCodeExchange, readTokenRequest, type TokenError } from './authorize-request.js';
import { checkRegistration, registrationResponse, scopeWords } from './oauth-rules.js';
import type { IssuedCode, OAuthStore } from './oauth-store.js';

/**
 * The machine side of the assistants' OAuth, reached without a browser session (no cookie, so no
 * CSRF): the authorization server's metadata (RFC 8414), client registration (RFC 7591, public
 * clients only) and the token endpoint (a code and its PKCE verifier for a short-lived token in the
 * token store, as the person who allowed it). Errors are RFC 6749 JSON, never the HTML error page.
 */

export interface TokenRouteDeps {
  publicUrl: string;
  store: OAuthStore;
  tokens: Pick<TokenStore, 'create' | 'revoke'>;
  log: Logger;
  accessTokenSeconds: number;
  ratePerMinute: number;
}

const oauthError = (reply: FastifyReply, status: number, error: string, error_description: string) =>
  reply.code(status).header('cache-control', 'no-store').type('application/json').send({ error, error_description });

/** Whom a token acts as: a Slack user as `token create` makes them, or the OIDC person with the email and groups the web saw. */
export function tokenOwner(issued: IssuedCode): { user: string; owner: Pick<TokenRecord, 'person' | 'client'> } {
  const client = { id: issued.clientId, name: issued.clientName };
  const { id, via, subject } = issued.principal;
  if (via === 'slack' && subject.slackUser) return { user: subject.slackUser, owner: { client } };
  return { user: '', owner: { client, person: { id, ...(subject.email ? { email: subject.email } : {}), groups: subject.groups ?? [] } } };
}

export function tokenRoutes(deps: TokenRouteDeps) {
  const { store, tokens, log } = deps;
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
      const refuse = (error: TokenError) => oauthError(reply, error.status, error.error, error.error_description);
      if (!read.ok) return refuse(read.error);
      const asked = read.value;
      if (!(await store.client(asked.clientId)))
        return refuse({ status: 401, error: 'invalid_client', error_description: 'this client is not registered here' });
      const issued = await store.takeCode(asked.code);
      if (!issued) {
        // A replayed code: whatever it issued was seen by someone else too, so it is revoked.
        const tokenId = await store.issuedBy(asked.code);
        if (tokenId) {
          await tokens.revoke(tokenId);
          log.warn({ token: tokenId, client: asked.clientId }, 'an OAuth code was used twice: revoked the token it issued');
          return refuse({ status: 400, error: 'invalid_grant', error_description: 'this code was already used; the token it issued is revoked' });
        }
        return refuse({ status: 400, error: 'invalid_grant', error_description: 'this code is not known, expired (60 s) or was already tried' });
      }
      const fault = checkCodeExchange(asked, issued);
      if (fault) {
        log.info({ client: asked.clientId, error: fault.error, detail: fault.error_description }, 'refused an OAuth code');
        return refuse(fault);
      }
      const { user, owner } = tokenOwner(issued);
      const { token, record } = await tokens.create(user, issued.scope, deps.accessTokenSeconds * 1000, Date.now(), owner);
      await store.markUsed(asked.code, record.id);
      await store.keepClient(issued.clientId);
      log.info({ token: record.id, person: issued.principal.id, client: owner.client, scope: record.scope }, 'issued an assistant token through OAuth');
      return reply
        .header('cache-control', 'no-store')
        .header('pragma', 'no-cache')
        .send({ access_token: token, token_type: 'Bearer', expires_in: deps.accessTokenSeconds, scope: scopeWords(record.scope) });
    });
  };
}
