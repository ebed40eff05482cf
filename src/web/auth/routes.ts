import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '../../core/log.js';
import { ERROR_PAGES, renderErrorPage, renderSignInPage, type ErrorPageInput } from '../server/pages.js';
import { csrfMatches, csrfTokenOf, safeReturnTo } from '../server/request-rules.js';
import { OidcSignIn, ProviderUnavailable, SignInRefused } from './oidc-sign-in.js';
import { principalFromClaims } from './principal.js';
import type { WebSessionStore } from './sessions.js';
import { LOGIN_TTL_SECONDS } from './sessions.js';

/**
 * /auth/*: the sign-in page, the start of a sign-in (a redirect to the provider), the callback and
 * logout. Starting a sign-in is a GET — OAuth's own shape — that writes only a short-lived pending
 * record in Redis, bound to this browser by a cookie; the callback consumes it once.
 */

export interface AuthRouteDeps {
  signIn: OidcSignIn;
  sessions: WebSessionStore;
  cookies: CookieNames & { secure: boolean; sessionSeconds: number };
  slackTeamId?: string;
  log: Logger;
  /** Per minute and address, on every /auth/* route. */
  rateLimitPerMinute: number;
}

export interface CookieNames {
  session: string;
  login: string;
}

export function sendPage(reply: FastifyReply, page: ErrorPageInput): FastifyReply {
  return reply.code(page.status).type('text/html; charset=utf-8').send(renderErrorPage(page));
}

export function registerAuthRoutes(app: FastifyInstance, deps: AuthRouteDeps): void {
  const { signIn, sessions, cookies, log } = deps;
  const providers = () => ['oidc', 'slack'].flatMap((id) => (signIn.provider(id) ? [{ id, label: signIn.provider(id)!.label }] : []));
  const limited = { config: { rateLimit: { max: deps.rateLimitPerMinute, timeWindow: 60_000 } } };
  const cookieBase = { httpOnly: true, sameSite: 'lax' as const, secure: cookies.secure };

  app.get('/auth/login', limited, async (request, reply) => {
    const { returnTo } = request.query as { returnTo?: string };
    return reply.type('text/html; charset=utf-8').send(renderSignInPage({ providers: providers(), returnTo: safeReturnTo(returnTo) }));
  });

  app.get('/auth/login/:provider', limited, async (request, reply) => {
    const provider = signIn.provider((request.params as { provider: string }).provider);
    if (!provider) return sendPage(reply, ERROR_PAGES.notFound);
    try {
      const { url, login } = await signIn.start(provider, safeReturnTo((request.query as { returnTo?: string }).returnTo));
      const id = await sessions.startLogin(login);
      reply.setCookie(cookies.login, id, { ...cookieBase, path: '/auth', maxAge: LOGIN_TTL_SECONDS });
      return reply.redirect(url.href, 303);
    } catch (error) {
      return failed(request, reply, error);
    }
  });

  app.get('/auth/callback', limited, async (request, reply) => {
    const loginId = request.cookies[cookies.login];
    reply.clearCookie(cookies.login, { ...cookieBase, path: '/auth' });
    // Taken once: a replayed callback, or one this browser did not start, finds nothing.
    const login = loginId ? await sessions.takeLogin(loginId) : undefined;
    if (!login) return sendPage(reply, ERROR_PAGES.signInRefused('this sign-in was not started in this browser, took too long, or was already used'));
    try {
      const claims = await signIn.finish(login, new URL(request.url, 'http://callback.invalid').search);
      const decision = principalFromClaims(login.provider, claims, { slackTeamId: deps.slackTeamId });
      if (!decision.ok) return sendPage(reply, ERROR_PAGES.signInRefused(decision.reason));
      const { id } = await sessions.create(decision.principal);
      reply.setCookie(cookies.session, id, { ...cookieBase, path: '/', maxAge: cookies.sessionSeconds });
      log.info({ principal: decision.principal.id, via: login.provider }, 'signed in to the web pages');
      return reply.redirect(login.returnTo, 303);
    } catch (error) {
      return failed(request, reply, error);
    }
  });

  app.post('/auth/logout', limited, async (request, reply) => {
    const id = request.cookies[cookies.session];
    const session = id ? await sessions.get(id) : undefined;
    if (session && !csrfMatches(csrfTokenOf(request.body, request.headers['x-csrf-token']), session.csrfToken))
      return sendPage(reply, ERROR_PAGES.forbiddenCsrf);
    if (id) await sessions.delete(id);
    reply.clearCookie(cookies.session, { ...cookieBase, path: '/' });
    if (session) log.info({ principal: session.principal.id }, 'signed out of the web pages');
    return reply.redirect('/auth/login', 303);
  });

  function failed(request: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply {
    if (error instanceof ProviderUnavailable) {
      log.warn({ provider: error.provider, detail: error.detail }, 'the sign-in provider does not answer');
      return sendPage(reply, ERROR_PAGES.providerDown(error.provider));
    }
    if (error instanceof SignInRefused) {
      log.info({ reason: error.message, path: request.routeOptions.url }, 'sign-in refused');
      return sendPage(reply, ERROR_PAGES.signInRefused(error.message));
    }
    throw error;
  }
}
