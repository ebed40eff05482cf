import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Logger } from '../../core/log.js';
import { mcpResourceUrl, OAUTH_PATHS } from '../../session/tokens/oauth-metadata.js';
import { sendPage } from '../auth/routes.js';
import { authorizationRedirect, decideAuthorize } from './authorize-request.js';
import { renderConsentPage } from './consent-page.js';
import type { OAuthStore } from './oauth-store.js';

/**
 * The authorization endpoint: behind the sign-in hook like every page, so a person without a session
 * signs in first and comes back here (the hook's returnTo), and Allow/Deny carry the CSRF token. GET
 * decides the request and shows the consent page; POST takes the waiting request once, checks it is
 * this person's, and sends the browser back to the client with a one-time code or access_denied.
 */

export interface AuthorizeRouteDeps {
  publicUrl: string;
  store: OAuthStore;
  log: Logger;
  ratePerMinute: number;
}

const refused = (reply: FastifyReply, reason: string) =>
  sendPage(reply, {
    status: 400,
    heading: 'This assistant cannot sign in',
    message: `The assistant's request cannot be completed: ${reason}. Nothing was allowed.`,
    next: { href: '/', label: 'Back to the fleet' },
  });

export function authorizeRoutes(deps: AuthorizeRouteDeps) {
  const { publicUrl, store, log } = deps;
  const server = { issuer: publicUrl, resource: mcpResourceUrl(publicUrl) };
  const limited = { config: { rateLimit: { max: deps.ratePerMinute, timeWindow: 60_000 } } };
  return (app: FastifyInstance) => {
    app.get(OAUTH_PATHS.authorize, limited, async (request, reply) => {
      const web = request.web;
      if (!web) return refused(reply, 'you are not signed in');
      const query = request.query as Record<string, unknown>;
      const clientId = typeof query.client_id === 'string' ? query.client_id : undefined;
      const decision = decideAuthorize(query, await store.client(clientId), server);
      switch (decision.kind) {
        case 'refuse':
          log.info({ principal: web.principal.id, reason: decision.reason }, 'refused an assistant authorization request');
          return refused(reply, decision.reason);
        case 'redirect':
          return reply.redirect(decision.to, 303);
        case 'consent': {
          const requestId = await store.putRequest(decision.ask, web.principal.id);
          return reply
            .type('text/html; charset=utf-8')
            .send(renderConsentPage({ ask: decision.ask, principal: web.principal, requestId, csrfToken: web.csrfToken }));
        }
      }
    });

    app.post(OAUTH_PATHS.authorize, limited, async (request, reply) => {
      const web = request.web;
      if (!web) return refused(reply, 'you are not signed in');
      const form = (request.body ?? {}) as Record<string, unknown>;
      const waiting = await store.takeRequest(form.request);
      if (!waiting) return refused(reply, 'this consent page expired (10 minutes) or was already answered; start again from the assistant');
      // The consent page was shown to one person: another session cannot answer it.
      if (waiting.principalId !== web.principal.id) return refused(reply, 'this consent page was shown to someone else');
      const { ask } = waiting;
      const decision = form.decision;
      const client = { id: ask.clientId, name: ask.clientName };
      if (decision === 'deny') {
        log.info({ principal: web.principal.id, client }, 'a person denied an assistant');
        return reply.redirect(
          authorizationRedirect(ask.redirectUri, publicUrl, { error: 'access_denied', error_description: 'the person denied the request', state: ask.state }),
          303,
        );
      }
      if (decision !== 'allow-read' && decision !== 'allow-propose') return refused(reply, 'the form sent no decision');
      const scope = decision === 'allow-propose' && ask.scope === 'propose' ? 'propose' : 'read';
      const { id, via, subject } = web.principal;
      const code = await store.putCode({
        clientId: ask.clientId,
        clientName: ask.clientName,
        redirectUri: ask.redirectUri,
        codeChallenge: ask.codeChallenge,
        scope,
        resource: ask.resource,
        principal: { id, via, subject },
      });
      log.info({ principal: id, client, scope }, 'a person allowed an assistant');
      return reply.redirect(authorizationRedirect(ask.redirectUri, publicUrl, { code, state: ask.state }), 303);
    });
  };
}
