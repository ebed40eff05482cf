import formbody from '@fastify/formbody';
import { CoreV1Api } from '@kubernetes/client-node';
import Fastify, { type FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUSPENSION_ANNOTATION } from '../../src/api/annotations.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { TeamApi } from '../../src/core/kube/team-api.js';
import { createLogger } from '../../src/core/log.js';
import { createTeam, deleteTeam } from '../../src/dev/harness/index.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { teamPolicy } from '../../src/session/authz/policy-types.js';
import { PlanStore } from '../../src/session/execute/plan-store.js';
import { releaseOperations } from '../../src/session/execute/wiring.js';
import { ReleaseSession } from '../../src/session/flow/release-session.js';
import { actionRoutes } from '../../src/web/actions/action-routes.js';
import type { WebPrincipal } from '../../src/web/contract.js';
import { namespaceWithController, testEnv, uniqueName } from '../support/fixtures.js';
import { startManyObjectsRepo } from '../support/many-objects-chart.js';

/**
 * The verbs of chat on the web, through the one release session and the same plan store and
 * confirmation rules as Slack: plan (GET, changes nothing) → Confirm (POST) → the intent written and
 * audited "via web"; the two-person rule with two web people; a person outside the Team refused.
 * Sign-in is the server's (web-signin tests): here a test hook stands in for it, reading the Teams
 * from the API server on every request as the server does.
 */
describe('actions from the web', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const { namespace } = namespaceWithController('webact');
  const team = uniqueName('webteam');
  const approvals = uniqueName('webtwo');
  const people: Record<string, WebPrincipal> = {
    ana: { id: 'oidc:ana@example.com', name: 'ana@example.com', via: 'oidc', subject: { slackUser: '', slackUserGroups: [] } },
    ben: { id: 'oidc:ben@example.com', name: 'ben@example.com', via: 'oidc', subject: { slackUser: '', slackUserGroups: [] } },
    alice: { id: 'slack:UALICE', name: '@alice', via: 'slack', subject: { slackUser: 'UALICE', slackUserGroups: [] } },
    mallory: { id: 'slack:UMALLORY', name: '@mallory', via: 'slack', subject: { slackUser: 'UMALLORY', slackUserGroups: [] } },
  };
  let app: FastifyInstance;
  let redis: Redis;

  beforeAll(async () => {
    // Ana and Ben are web people whose Teams name them by Slack id here (emails come with the sign-in branch); the
    // rollback Team asks for a second person.
    await createTeam(kube, team, {
      members: { slackUsers: ['UALICE'] },
      permissions: [{ namespaces: [namespace], verbs: ['suspend', 'resume', 'status', 'freeze', 'unfreeze'] }],
    });
    await createTeam(kube, approvals, {
      members: { slackUsers: ['UALICE', 'UBOB'] },
      permissions: [{ namespaces: [namespace], verbs: ['rollback'], requireApproval: true }],
    });
    // pink, then blue: a revision to roll back to
    for (const version of ['1.0.0', '2.0.0']) {
      const generation = await applyHelmRelease(
        kubeConfig,
        helmReleaseObject(namespace, 'unicorn', { chart: { repository: env.chartRepoUrl, name: 'unicorn', version }, interval: '1h' }),
      );
      await waitForReconciled(kubeConfig, namespace, 'unicorn', generation);
    }

    redis = new Redis(env.redisUrl, { maxRetriesPerRequest: null });
    const log = createLogger('web-test', 'warn');
    const parts = releaseOperations(kube, log, 'helmcrew-web');
    const session = new ReleaseSession({ ...parts, outcomeTimeoutMs: 30_000 });
    const plans = new PlanStore(redis, `{webtest-${namespace}}`, 600);
    const teams = new TeamApi(kube);
    app = Fastify();
    await app.register(formbody);
    app.addHook('preHandler', async (request) => {
      const who = people[String(request.headers['x-test-person'] ?? '')];
      if (who) request.web = { principal: who, teams: (await teams.list()).items.map(teamPolicy), csrfToken: 'test-csrf' };
    });
    await actionRoutes({ session, plans, ownCluster: 'default', subjectOf: async (r) => ({ slackUser: r.slackUser, slackUserGroups: [] }) })(app);
  });
  afterAll(async () => {
    await app?.close();
    redis?.disconnect();
    await deleteTeam(kube, team);
    await deleteTeam(kube, approvals);
  });

  const get = (person: string, url: string) => app.inject({ method: 'GET', url, headers: { 'x-test-person': person } });
  const post = (person: string, url: string) =>
    app.inject({ method: 'POST', url, headers: { 'x-test-person': person, 'content-type': 'application/x-www-form-urlencoded' }, payload: '_csrf=test-csrf' });
  /** What a person reads: the page's text with mustache's escapes undone (the raw HTML is checked apart for planted markup). */
  const textOf = (html: string) =>
    html
      .replace(/&#x2F;/g, '/')
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
  const planIdIn = (html: string, what: 'confirm' | 'approve') => new RegExp(`action="/plans/([A-Za-z0-9_-]+)/${what}"`).exec(html)?.[1];
  const release = async () => (await parts().api.get(namespace, 'unicorn'))!;
  const parts = () => releaseOperations(kube, createLogger('web-test-read', 'warn'), 'helmcrew-web-test');

  it('suspend: the plan changes nothing, Confirm writes the intent as the person, audited via web; a hostile reason is text', async () => {
    const reason = encodeURIComponent('<script>alert(1)</script> db "migration"');
    const planned = await get('alice', `/releases/default/${namespace}/unicorn/plan?verb=suspend&reason=${reason}`);
    expect(planned.statusCode).toBe(200);
    expect(textOf(planned.body)).toContain(`Plan: suspend ${namespace}/unicorn`);
    expect(planned.body).not.toContain('<script>alert(1)</script>');
    expect(planned.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect((await release()).spec.suspend).toBeFalsy();

    const planId = planIdIn(planned.body, 'confirm');
    expect(planId).toBeDefined();
    // Only the person who asked confirms.
    expect((await post('mallory', `/plans/${planId}/confirm`)).statusCode).toBe(403);
    const done = await post('alice', `/plans/${planId}/confirm`);
    expect(done.statusCode).toBe(200);
    expect(textOf(done.body)).toContain('Confirmed: suspend');
    const after = await release();
    expect(after.spec.suspend).toBe(true);
    expect(JSON.parse(after.metadata.annotations![SUSPENSION_ANNOTATION]!)).toMatchObject({ by: 'slack:UALICE' });
    const events = await kubeConfig.makeApiClient(CoreV1Api).listNamespacedEvent({ namespace, fieldSelector: 'involvedObject.name=unicorn' });
    expect(events.items.map((e) => e.message)).toContainEqual(expect.stringMatching(/^slack:UALICE via web asked for the suspend of/));
    // Used once.
    expect((await post('alice', `/plans/${planId}/confirm`)).statusCode).toBe(410);
  });

  it('someone outside the Teams is refused, audited, and nothing changes', async () => {
    const refused = await get('mallory', `/releases/default/${namespace}/unicorn/plan?verb=resume`);
    expect(refused.statusCode).toBe(403);
    expect(textOf(refused.body)).toMatch(/Refused: you may not resume/);
    expect(planIdIn(refused.body, 'confirm')).toBeUndefined();
    expect((await release()).spec.suspend).toBe(true);
  });

  it('bad input: an unknown verb, a name that is not one', async () => {
    expect((await get('alice', `/releases/default/${namespace}/unicorn/plan?verb=explode`)).statusCode).toBe(400);
    const bad = await get('alice', `/releases/default/${namespace}/${encodeURIComponent('x --reason y')}/plan?verb=suspend`);
    expect(bad.statusCode).toBe(400);
    expect(textOf(bad.body)).toContain('is not a name');
  });

  it('two-person rule on the web: the requester cannot approve; a second authorized person can, and the rollback happens', async () => {
    const planned = await get('alice', `/releases/default/${namespace}/unicorn/plan?verb=rollback&reason=web`);
    expect(planned.statusCode).toBe(200);
    // The whole diff, object by object, at readable paths: the page goes from blue back to pink.
    const page = textOf(planned.body);
    expect(page).toContain('What changes, object by object');
    expect(page).toMatch(/<code>~ ConfigMap unicorn-page<\/code>/);
    expect(page).toMatch(/<code>data\["index\.html"\]<\/code>:[\s\S]*blue[\s\S]*pink/);
    const planId = planIdIn(planned.body, 'confirm')!;
    const waiting = await post('alice', `/plans/${planId}/confirm`);
    expect(waiting.statusCode).toBe(202);
    const approvalId = /href="\/plans\/([A-Za-z0-9_-]+)"/.exec(textOf(waiting.body))?.[1];
    expect(approvalId).toBeDefined();
    expect(textOf((await post('alice', `/plans/${approvalId}/approve`)).body)).toMatch(/second, different person/);
    const waitingPage = await get('mallory', `/plans/${approvalId}`);
    expect(planIdIn(waitingPage.body, 'approve')).toBe(approvalId);
    expect((await post('mallory', `/plans/${approvalId}/approve`)).statusCode).toBe(403);
    // Bob signed in on the web (with Slack) approves.
    people.bob = { id: 'slack:UBOB', name: '@bob', via: 'slack', subject: { slackUser: 'UBOB', slackUserGroups: [] } };
    const approved = await post('bob', `/plans/${approvalId}/approve`);
    expect(approved.statusCode).toBe(200);
    expect(textOf(approved.body)).toContain('Approved: ');
    const requestId = (await release()).metadata.annotations?.['helmcrew.dev/rollback-request'];
    expect(requestId).toMatch(/^rb-/);
    // The controller carries it out: helm rollback to pink.
    await expect.poll(async () => (await release()).status?.rollback, { timeout: 90_000, interval: 500 }).toMatchObject({ requestId, succeeded: true });
    const events = await kubeConfig.makeApiClient(CoreV1Api).listNamespacedEvent({ namespace, fieldSelector: 'involvedObject.name=unicorn' });
    expect(events.items.map((e) => e.message)).toContainEqual(expect.stringMatching(/^slack:UALICE via web asked for the rollback of .*: web$/));
  });

  it('a diff past chat’s bounds (130 objects) is paged on the web: 50 objects a page, ?page=N, only for people who may see the release', async () => {
    const repo = await startManyObjectsRepo(env.helmBin);
    try {
      // pink, then blue: rolling back changes all 130 ConfigMaps.
      for (const color of ['pink', 'blue']) {
        const generation = await applyHelmRelease(
          kubeConfig,
          helmReleaseObject(namespace, 'many', { chart: { repository: repo.url, name: 'many', version: '1.0.0' }, interval: '1h', values: { color } }),
        );
        await waitForReconciled(kubeConfig, namespace, 'many', generation);
      }
      const planned = await get('alice', `/releases/default/${namespace}/many/plan?verb=rollback&reason=paged`);
      expect(planned.statusCode).toBe(200);
      const objectsOn = (html: string) => [...html.matchAll(/<summary><code>~ ConfigMap (cm-\d+)<\/code>/g)].map((m) => m[1]);
      expect(textOf(planned.body)).toContain('130 changed, 0 added, 0 removed');
      expect(objectsOn(planned.body)).toHaveLength(50);
      const planId = planIdIn(planned.body, 'confirm')!;
      expect(planned.body).toContain(`page 1 of 3 (130 objects)`);
      expect(planned.body).toContain(`href="/plans/${planId}/diff?page=3"`);

      const third = await get('alice', `/plans/${planId}/diff?page=3`);
      expect(third.statusCode).toBe(200);
      expect(objectsOn(third.body)).toEqual(Array.from({ length: 30 }, (_, i) => `cm-${100 + i}`));
      expect(textOf(third.body)).toMatch(/<code>data\.color<\/code>: <span class="before">blue<\/span> → <span class="after">pink<\/span>/);
      // Its requester may still confirm from any page of it.
      expect(planIdIn(third.body, 'confirm')).toBe(planId);
      // Outside the Teams: the same 404 as no diff; an unknown plan: gone.
      expect((await get('mallory', `/plans/${planId}/diff?page=2`)).statusCode).toBe(404);
      expect((await get('alice', `/plans/no-such-plan/diff`)).statusCode).toBe(410);
      expect((await post('alice', `/plans/${planId}/cancel`)).statusCode).toBe(200);
    } finally {
      await repo.close();
    }
  });

  it('freeze and unfreeze from the web: plan, Confirm, the Freeze written and lifted; a scope that is not one refused', async () => {
    const freezes = () => parts().freezes.list();
    const planned = await get('alice', `/freezes/plan?scope=${namespace}&reason=${encodeURIComponent('release day')}&for=2h`);
    expect(planned.statusCode).toBe(200);
    expect(textOf(planned.body)).toContain(`Plan: freeze`);
    const done = await post('alice', `/plans/${planIdIn(planned.body, 'confirm')}/confirm`);
    expect(done.statusCode).toBe(200);
    const written = (await freezes()).items.find((f) => f.spec.reason === 'release day');
    expect(written).toBeDefined();
    // Mallory's Teams grant no unfreeze.
    expect((await get('mallory', `/freezes/plan?unfreeze=${written!.metadata.name}`)).statusCode).toBe(403);
    const lift = await get('alice', `/freezes/plan?unfreeze=${written!.metadata.name}&reason=done`);
    expect(lift.statusCode).toBe(200);
    expect((await post('alice', `/plans/${planIdIn(lift.body, 'confirm')}/confirm`)).statusCode).toBe(200);
    expect((await freezes()).items.find((f) => f.metadata.name === written!.metadata.name)).toBeUndefined();
    const bad = await get('alice', `/freezes/plan?scope=${encodeURIComponent('web --for 1h')}&reason=x`);
    expect(bad.statusCode).toBe(400);
    expect(textOf(bad.body)).toContain('is not a scope');
  });
});
