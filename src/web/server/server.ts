import type { AddressInfo } from 'node:net';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Logger } from '../../core/log.js';
import type { RedisConnection } from '../../core/redis.js';
import type { TeamPolicy } from '../../session/authz/policy-types.js';
import { OidcSignIn } from '../auth/oidc-sign-in.js';
import { registerAuthRoutes, sendPage } from '../auth/routes.js';
import { WebSessionStore } from '../auth/sessions.js';
import type { PageRoutes } from '../contract.js';
import { WEB_CSS } from '../render/layout.js';
import type { WebConfig } from './config.js';
import { compressReply } from './compression.js';
import { ERROR_PAGES } from './pages.js';
import { securityHeaders } from './security-headers.js';
import { signInHook } from './sign-in-hook.js';

/**
 * The web surface's server: health, the stylesheet, sign-in (/auth/*), and the pages mounted behind
 * the sign-in hook. Every answer carries the security headers; every error is a page of the layout.
 * The sign-in provider being down touches only /auth/* (a 503 page): nothing else waits on it.
 */

export interface WebServerDeps {
  redis: RedisConnection;
  /** The Teams, read on every signed-in request. */
  teams: () => Promise<TeamPolicy[]>;
  slackUserGroups?: (user: string) => Promise<string[]>;
  log: Logger;
  pages?: PageRoutes[];
}

export interface RunningWebServer {
  /** `http://host:port` it listens on. */
  address: string;
  app: FastifyInstance;
  close(): Promise<void>;
}

export async function buildWebServer(config: WebConfig, deps: WebServerDeps): Promise<FastifyInstance> {
  const app = Fastify({ logger: false, trustProxy: config.trustProxy, bodyLimit: 256 * 1024 });
  // The `__Host-` prefix makes the browser refuse the cookie unless Secure, host-only and on path /.
  const cookies = {
    session: config.secureCookies ? '__Host-helmcrew-session' : 'helmcrew-session',
    login: 'helmcrew-login',
    secure: config.secureCookies,
    sessionSeconds: config.sessionSeconds,
  };
  const sessions = new WebSessionStore(deps.redis, config.keyPrefix, config.sessionSeconds);
  const signIn = new OidcSignIn(config.providers, `${config.publicUrl}/auth/callback`);

  await app.register(cookie);
  await app.register(formbody);
  await app.register(rateLimit, {
    global: false,
    redis: deps.redis,
    nameSpace: `${config.keyPrefix}:web:rate:`,
    // Counted in Redis, so replicas share the budget; a Redis hiccup does not lock everyone out.
    skipOnError: true,
    errorResponseBuilder: (_request, context) => Object.assign(new Error('rate limited'), { statusCode: context.statusCode }),
  });
  app.addHook('onRequest', securityHeaders);
  app.addHook('onSend', compressReply);
  app.addHook('preHandler', signInHook({ sessions, sessionCookie: cookies.session, teams: deps.teams, slackUserGroups: deps.slackUserGroups, log: deps.log }));

  app.get('/healthz', async (_request, reply) => reply.type('text/plain; charset=utf-8').send('ok\n'));
  app.get('/assets/web.css', async (_request, reply) => reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=300').send(WEB_CSS));
  registerAuthRoutes(app, { signIn, sessions, cookies, slackTeamId: config.slackTeamId, log: deps.log, rateLimitPerMinute: config.loginRateLimitPerMinute });
  for (const pages of deps.pages ?? []) await pages(app);

  app.setNotFoundHandler((_request, reply) => sendPage(reply, ERROR_PAGES.notFound));
  app.setErrorHandler((error: Error & { statusCode?: number }, request, reply) => {
    const status = error.statusCode ?? 500;
    if (status === 429) return sendPage(reply, ERROR_PAGES.tooMany);
    if (status >= 400 && status < 500)
      return sendPage(reply, {
        status,
        heading: 'Bad request',
        message: 'This request could not be read. Nothing was changed.',
        next: { href: '/', label: 'Back to the fleet' },
      });
    deps.log.error({ error: error.message, method: request.method, path: request.routeOptions.url }, 'web request failed');
    return sendPage(reply, ERROR_PAGES.serverError);
  });
  return app;
}

export async function startWebServer(config: WebConfig, deps: WebServerDeps): Promise<RunningWebServer> {
  const app = await buildWebServer(config, deps);
  await app.listen({ host: config.listen.host, port: config.listen.port });
  const { address, port } = app.server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  deps.log.info({ listen: `${host}:${port}`, url: config.publicUrl, providers: config.providers.map((p) => p.id) }, 'web pages listening');
  return { address: `http://${host}:${port}`, app, close: () => app.close() };
}
