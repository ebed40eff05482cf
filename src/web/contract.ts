import type { FastifyInstance } from 'fastify';
import type { Subject, TeamPolicy } from '../session/authz/policy-types.js';

/**
 * The seam between the web surface's server (sign-in, sessions, CSRF: src/web/server, src/web/auth)
 * and its pages (src/web/pages, src/web/views, src/web/live). The server signs the person in,
 * reads their Teams again on every request, and hands each page route a WebRequestContext; a page
 * renders and collects, the release session (src/session) decides.
 */

/** Who is signed in: a Slack user (Sign in with Slack: the same principal as in chat) or a person of the OIDC provider. */
export interface WebPrincipal {
  /** For audit records, as an Actor id: "slack:U0123" or "oidc:<email or subject>". */
  id: string;
  /** A handle to show ("@ana", the email). */
  name: string;
  via: 'slack' | 'oidc';
  /** What Team membership is matched on (Slack user and groups; a verified email; the groups claim). */
  subject: Subject;
}

/** What every signed-in request carries (request.web). */
export interface WebRequestContext {
  principal: WebPrincipal;
  /** Read on this request: a person removed from a Team loses access at once. */
  teams: TeamPolicy[];
  /** Put in every form as the `_csrf` field; the server refuses a POST without it. */
  csrfToken: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the server's sign-in hook on every route but /healthz, /auth/* and static files. */
    web?: WebRequestContext;
  }
}

/** A group of pages: registers its routes on the server (GET renders, POST changes and needs the CSRF token). */
export type PageRoutes = (app: FastifyInstance) => void | Promise<void>;
