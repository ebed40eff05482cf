import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '../../core/log.js';
import { teamsOf } from '../../session/authz/authorize.js';
import type { TeamPolicy } from '../../session/authz/policy-types.js';
import type { WebSessionStore } from '../auth/sessions.js';
import { sendPage } from '../auth/routes.js';
import type { WebPrincipal } from '../contract.js';
import { ERROR_PAGES } from './pages.js';
import { changesState, csrfMatches, csrfTokenOf, needsSession } from './request-rules.js';

/**
 * Runs before every route but /healthz, /auth/* and /assets/*: finds the session, refuses a POST
 * without its CSRF token, reads the Teams again (a person removed from a Team loses access on the
 * next request) and sets `request.web`. Nothing past it runs for a request it answers.
 */

export interface SignInHookDeps {
  sessions: WebSessionStore;
  sessionCookie: string;
  /** The Teams, read on this request. */
  teams: () => Promise<TeamPolicy[]>;
  /** A Slack principal's user groups, as the bot resolves them; absent: none. */
  slackUserGroups?: (user: string) => Promise<string[]>;
  log: Logger;
}

export function signInHook(deps: SignInHookDeps) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    const path = request.url.split('?')[0]!;
    if (!needsSession(path)) return undefined;
    const id = request.cookies[deps.sessionCookie];
    const session = id ? await deps.sessions.get(id) : undefined;
    if (!session) {
      if (changesState(request.method))
        return sendPage(reply, { status: 401, heading: 'Signed out', message: 'Your session has ended, so nothing was changed. Sign in and try again.' });
      return reply.redirect(`/auth/login?returnTo=${encodeURIComponent(request.url)}`, 303);
    }
    if (changesState(request.method) && !csrfMatches(csrfTokenOf(request.body, request.headers['x-csrf-token']), session.csrfToken)) {
      deps.log.warn({ principal: session.principal.id, method: request.method, path }, 'refused a request without its CSRF token');
      return sendPage(reply, ERROR_PAGES.forbiddenCsrf);
    }
    const principal = await withSlackGroups(session.principal, deps.slackUserGroups);
    const teams = teamsOf(principal.subject, await deps.teams());
    if (teams.length === 0) return sendPage(reply, ERROR_PAGES.notMember(principal.name));
    request.web = { principal, teams, csrfToken: session.csrfToken };
    return undefined;
  };
}

/** Slack user groups change in Slack, not at sign-in: read (through a short cache) on each request, like the bot. */
async function withSlackGroups(principal: WebPrincipal, groups: SignInHookDeps['slackUserGroups']): Promise<WebPrincipal> {
  const user = principal.subject.slackUser;
  if (!user || !groups) return principal;
  return { ...principal, subject: { ...principal.subject, slackUserGroups: await groups(user) } };
}
