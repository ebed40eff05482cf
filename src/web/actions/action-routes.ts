import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { RELEASE_ACTION_VERBS, type ReleaseActionVerb } from '../../api/release-verbs.js';
import type { Subject } from '../../session/authz/policy-types.js';
import type { PlanStore, StoredPlan } from '../../session/execute/plan-store.js';
import { commandLine, freezeLine, unfreezeLine } from '../../session/grammar/command-line.js';
import { approvePlan, cancelPlan, confirmPlan, requesterId, type ConfirmationDeps } from '../../session/flow/plan-confirmations.js';
import type { ReleaseSession } from '../../session/flow/release-session.js';
import type { PageRoutes, WebRequestContext } from '../contract.js';
import { planDiffUrl } from '../../core/links/release-url.js';
import { renderLayout } from '../render/layout.js';
import { maySeeAll } from '../views/visibility.js';
import { renderDoneBody, renderPlanBody, renderWaitingBody } from './action-pages.js';
import { webPorts, type WebAnswer } from './web-ports.js';

/**
 * The verbs of chat on the web, through the one release session: a GET shows the plan (it changes
 * nothing; a doable plan is kept for its Confirm form), a POST confirms, approves or cancels it
 * under the same rules as Slack's buttons (session/flow/plan-confirmations.ts). Who may is the
 * Teams' say, read on this request.
 */

export interface WebActionDeps {
  session: Pick<ReleaseSession, 'run' | 'execute' | 'refuse'>;
  plans: Pick<PlanStore, 'peek' | 'take' | 'put' | 'update'>;
  /** The name pages give the session's own cluster (no --cluster is sent for it). */
  ownCluster: string;
  /** A fleet: the own cluster's name, sent as --cluster for `ownCluster`'s pages too, so a release of the same name in another cluster is never asked about. */
  fleetOwn?: string;
  /** A requester's Subject now, for an approval (a Slack requester's user groups are Slack's to say). */
  subjectOf(requester: StoredPlan['requester']): Promise<Subject>;
}

type PlanQuery = { verb?: string; version?: string; revision?: string; reason?: string; breakGlass?: string };
type ReleaseParams = { cluster: string; namespace: string; name: string };

const diffUrl = (planId: string) => planDiffUrl('', planId);
const releasePath = (p: ReleaseParams) => `/releases/${encodeURIComponent(p.cluster)}/${encodeURIComponent(p.namespace)}/${encodeURIComponent(p.name)}`;
const isActionVerb = (verb: string | undefined): verb is ReleaseActionVerb => (RELEASE_ACTION_VERBS as readonly string[]).includes(verb ?? '');

function page(reply: FastifyReply, web: WebRequestContext, status: number, title: string, body: string) {
  const html = renderLayout({ title, body, signedIn: { name: web.principal.name, via: web.principal.via }, csrfToken: web.csrfToken });
  return reply.code(status).type('text/html; charset=utf-8').send(html);
}

/** The status a session's answer is shown with: refused 403, bad input 400, else 200. */
function statusOf(answer: WebAnswer): number {
  if (answer.plan || answer.applied) return 200;
  if (answer.messages.some((m) => m.kind === 'input')) return 400;
  return answer.messages.some((m) => m.kind === 'stopped' && m.text.startsWith('Refused')) ? 403 : 200;
}

export function actionRoutes(deps: WebActionDeps): PageRoutes {
  const confirmations = (web: WebRequestContext): ConfirmationDeps => ({
    plans: deps.plans,
    teams: async () => web.teams,
    subjectOf: (requester) => deps.subjectOf(requester),
  });
  /** The --cluster a release page's segment names: none for the own cluster without a fleet. */
  const clusterOfPage = (segment: string) => (segment !== deps.ownCluster ? segment : deps.fleetOwn);
  const clickerOf = (web: WebRequestContext) => ({ id: web.principal.id, subject: web.principal.subject });
  const signedIn = (request: FastifyRequest, reply: FastifyReply): WebRequestContext | undefined => {
    if (!request.web) void reply.code(401).send('sign in first');
    return request.web;
  };
  const backOf = (plan: StoredPlan) => {
    const target = plan.action.targets[0];
    if (!target || plan.action.freeze || plan.action.unfreeze) return '/freezes';
    const cluster = 'cluster' in plan.action.command && plan.action.command.cluster ? plan.action.command.cluster : deps.ownCluster;
    return releasePath({ cluster, namespace: target.namespace, name: target.name });
  };

  /** A confirmed (or approved) plan, written as its requester; the page says what was written. */
  const carryOut = async (reply: FastifyReply, web: WebRequestContext, plan: StoredPlan, approver: string | undefined, heading: string) => {
    const answer: WebAnswer = { messages: [] };
    await deps.session.execute(plan.action, webPorts(web.principal, web.teams, deps.plans, answer, plan.requester), approver);
    return page(reply, web, 200, heading, renderDoneBody({ heading: `${heading}: ${plan.action.plan.title}`, answer, back: backOf(plan) }));
  };

  const refused = async (reply: FastifyReply, web: WebRequestContext, plan: StoredPlan, what: string, reason: string) => {
    const answer: WebAnswer = { messages: [] };
    const cluster = 'cluster' in plan.action.command ? plan.action.command.cluster : undefined;
    await deps.session.refuse(webPorts(web.principal, web.teams, deps.plans, answer), plan.action.targets[0], what, reason, cluster);
    return page(reply, web, 403, 'Refused', renderDoneBody({ heading: 'Refused', answer, back: backOf(plan) }));
  };

  const gone = (reply: FastifyReply, web: WebRequestContext) =>
    page(
      reply,
      web,
      410,
      'Plan expired',
      '<h1>This plan has expired or was already used</h1><p>Nothing changed. Ask for a fresh plan from the release page.</p>',
    );

  return (app: FastifyInstance) => {
    app.get<{ Params: ReleaseParams; Querystring: PlanQuery }>('/releases/:cluster/:namespace/:name/plan', async (request, reply) => {
      const web = signedIn(request, reply);
      if (!web) return reply;
      const { verb, version, revision, reason, breakGlass } = request.query;
      const back = releasePath(request.params);
      if (!isActionVerb(verb))
        return page(
          reply,
          web,
          400,
          'Unknown verb',
          renderDoneBody({
            heading: 'Unknown verb',
            answer: { messages: [{ kind: 'input', text: `"${String(verb ?? '')}" is not a verb on a release (${RELEASE_ACTION_VERBS.join(', ')})` }] },
            back,
          }),
        );
      const revisionNumber = revision ? Number(revision) : undefined;
      const cluster = clusterOfPage(request.params.cluster);
      const line = commandLine(verb, {
        namespace: request.params.namespace,
        name: request.params.name,
        ...(version ? { version } : {}),
        ...(revisionNumber !== undefined ? { revision: revisionNumber } : {}),
        ...(reason ? { reason } : {}),
        ...(breakGlass ? { breakGlass: true } : {}),
        ...(cluster ? { cluster } : {}),
      });
      const answer: WebAnswer = { messages: [] };
      if (!line.ok) answer.messages.push({ kind: 'input', text: line.message });
      else await deps.session.run(line.line, webPorts(web.principal, web.teams, deps.plans, answer));
      return page(
        reply,
        web,
        statusOf(answer),
        `${verb} ${request.params.namespace}/${request.params.name}`,
        renderPlanBody({
          answer,
          csrfToken: web.csrfToken,
          back,
          fallbackTitle: `${verb} ${request.params.namespace}/${request.params.name}`,
          ...(answer.plan?.planId ? { diffUrl: diffUrl(answer.plan.planId) } : {}),
        }),
      );
    });

    app.get<{ Querystring: { scope?: string; reason?: string; for?: string; until?: string; unfreeze?: string } }>('/freezes/plan', async (request, reply) => {
      const web = signedIn(request, reply);
      if (!web) return reply;
      const q = request.query;
      const title = q.unfreeze ? `unfreeze ${q.unfreeze}` : `freeze ${q.scope ?? ''}`;
      const line = q.unfreeze
        ? unfreezeLine(q.unfreeze, q.reason)
        : freezeLine({ scope: q.scope ?? '', reason: q.reason ?? '', ...(q.for ? { for: q.for } : {}), ...(q.until ? { until: q.until } : {}) });
      const answer: WebAnswer = { messages: [] };
      if (!line.ok) answer.messages.push({ kind: 'input', text: line.message });
      else await deps.session.run(line.line, webPorts(web.principal, web.teams, deps.plans, answer));
      return page(reply, web, statusOf(answer), title, renderPlanBody({ answer, csrfToken: web.csrfToken, back: '/freezes', fallbackTitle: title }));
    });

    app.post<{ Params: { id: string } }>('/plans/:id/confirm', async (request, reply) => {
      const web = signedIn(request, reply);
      if (!web) return reply;
      const result = await confirmPlan(request.params.id, clickerOf(web), confirmations(web));
      switch (result.kind) {
        case 'expired':
          return gone(reply, web);
        case 'not-requester':
          return page(reply, web, 403, 'Not yours', '<h1>Only the person who asked can confirm this plan</h1><p>Nothing changed.</p>');
        case 'refused':
          return refused(reply, web, result.plan, result.plan.action.plan.title, result.reason);
        case 'awaiting-approval':
          return page(
            reply,
            web,
            202,
            'Waiting for approval',
            renderWaitingBody({
              plan: result.plan.action.plan,
              planId: result.approvalId,
              requester: web.principal.name,
              canApprove: false,
              csrfToken: web.csrfToken,
            }),
          );
        case 'confirmed':
          return carryOut(reply, web, result.plan, undefined, 'Confirmed');
      }
    });

    app.get<{ Params: { id: string } }>('/plans/:id', async (request, reply) => {
      const web = signedIn(request, reply);
      if (!web) return reply;
      const plan = await deps.plans.peek(request.params.id);
      if (!plan?.awaitingApproval) return gone(reply, web);
      const requester = requesterId(plan.requester);
      // An assistant's proposal says so: the person named only holds the token.
      const asker = plan.requester.via === 'assistant' ? `${requester} via an assistant` : requester;
      return page(
        reply,
        web,
        200,
        'Waiting for approval',
        renderWaitingBody({
          plan: plan.action.plan,
          planId: request.params.id,
          requester: asker,
          canApprove: requester !== web.principal.id && !plan.approvals?.by.includes(web.principal.id),
          ...(plan.approvals ? { approvals: plan.approvals } : {}),
          csrfToken: web.csrfToken,
        }),
      );
    });

    // A page of a kept plan's diff: the plan page shows the first; Slack's plan links here for the rest.
    app.get<{ Params: { id: string }; Querystring: { page?: string } }>('/plans/:id/diff', async (request, reply) => {
      const web = signedIn(request, reply);
      if (!web) return reply;
      const plan = await deps.plans.peek(request.params.id);
      if (!plan) return gone(reply, web);
      const cluster = 'cluster' in plan.action.command ? plan.action.command.cluster : undefined;
      // Outside the person's Teams: the same 404 as a plan with no diff, so the page tells nothing.
      if (!plan.action.plan.diff || !maySeeAll(web.principal.subject, web.teams, plan.action.targets, cluster))
        return page(reply, web, 404, 'No diff', '<h1>No diff here that your Teams let you see</h1>');
      // Its requester may still confirm it from here; anyone else reads.
      const mine = !plan.awaitingApproval && requesterId(plan.requester) === web.principal.id;
      const answer: WebAnswer = { messages: [], plan: { plan: plan.action.plan, ...(mine ? { planId: request.params.id } : {}), requireApproval: false } };
      const title = `Plan: ${plan.action.plan.title}`;
      return page(
        reply,
        web,
        200,
        title,
        renderPlanBody({
          answer,
          csrfToken: web.csrfToken,
          back: backOf(plan),
          fallbackTitle: title,
          page: Number(request.query.page ?? 1),
          diffUrl: diffUrl(request.params.id),
        }),
      );
    });

    app.post<{ Params: { id: string } }>('/plans/:id/approve', async (request, reply) => {
      const web = signedIn(request, reply);
      if (!web) return reply;
      const result = await approvePlan(request.params.id, clickerOf(web), confirmations(web));
      if (result.kind === 'expired') return gone(reply, web);
      if (result.kind === 'refused') return refused(reply, web, result.plan, `approve ${result.plan.action.plan.title}`, result.reason);
      if (result.kind === 'counted')
        return page(
          reply,
          web,
          202,
          'Approval counted',
          renderDoneBody({
            heading: `Approval counted: ${result.plan.action.plan.title}`,
            answer: { messages: [{ kind: 'info', text: `It needs ${result.still} more, from other people; nothing changed yet.` }] },
            back: backOf(result.plan),
          }),
        );
      return carryOut(reply, web, result.plan, result.approvers.join(', '), 'Approved');
    });

    app.post<{ Params: { id: string } }>('/plans/:id/cancel', async (request, reply) => {
      const web = signedIn(request, reply);
      if (!web) return reply;
      await cancelPlan(request.params.id, { id: web.principal.id }, { plans: deps.plans });
      return page(reply, web, 200, 'Cancelled', '<h1>Cancelled</h1><p>Nothing changed.</p>');
    });
  };
}
