import formbody from '@fastify/formbody';
import { CoreV1Api } from '@kubernetes/client-node';
import { LogLevel, WebClient } from '@slack/web-api';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterKey } from '../../src/core/fleet/cluster-keys.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { TeamApi } from '../../src/core/kube/team-api.js';
import { KubeEventRecorder } from '../../src/core/kube/event-recorder.js';
import { createLogger } from '../../src/core/log.js';
import { ProposalStore } from '../../src/core/proposals/proposal-store.js';
import { proposalId, withMessage, type Proposal } from '../../src/core/proposals/proposal.js';
import { renderProposalMessage } from '../../src/core/slack/proposal-message.js';
import { slackProposalMessages } from '../../src/cli/commands/web.js';
import { startFakeSlack, type FakeSlack } from '../../src/dev/fake-slack/index.js';
import { connectRedis, type RedisConnection } from '../../src/core/redis.js';
import { createTeam, deleteTeam } from '../../src/dev/harness/index.js';
import { deleteNamespace, ensureNamespace } from '../../src/dev/harness/namespaces.js';
import { pollUntil } from '../../src/dev/harness/poll.js';
import { applyHelmRelease, helmReleaseObject } from '../../src/dev/releases.js';
import { teamPolicy } from '../../src/session/authz/policy-types.js';
import { proposalVoteRoutes } from '../../src/web/actions/proposal-vote-routes.js';
import type { WebPrincipal } from '../../src/web/contract.js';
import { eventually } from '../support/eventually.js';
import { testEnv, uniqueName } from '../support/fixtures.js';

/**
 * Votes on the web follow chat's rules, because they are chat's path (session/flow/proposal-votes.ts):
 * the proposer does not approve their own promotion, a person without `approve` and one outside
 * spec.approval.teams are refused (403) and audited, two different people approve it, every counted
 * vote is an Event "via web", and edits the proposal's Slack message as a button's vote does. The
 * proposal store, the Teams, the Events and Slack's Web API client are the real ones (Slack's API is
 * the fake's); a test hook stands in for sign-in (web-signin and web-browser tests cover it).
 */
describe('proposal votes from the web', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const namespace = uniqueName('webvote');
  const web = uniqueName('webvoters');
  const ops = uniqueName('opsvoters');
  const viewers = uniqueName('viewvoters');
  const person = (id: string, subject: WebPrincipal['subject'], via: WebPrincipal['via'] = 'oidc'): WebPrincipal => ({
    id,
    name: id.replace(/^(oidc|slack):/, via === 'slack' ? '@' : ''),
    via,
    subject,
  });
  const people: Record<string, WebPrincipal> = {
    ana: person('oidc:ana@example.org', { slackUserGroups: [], email: 'ana@example.org' }),
    ben: person('oidc:ben@example.org', { slackUserGroups: [], email: 'ben@example.org' }),
    bea: person('slack:UBEA', { slackUser: 'UBEA', slackUserGroups: [] }, 'slack'),
    otto: person('oidc:otto@example.org', { slackUserGroups: [], email: 'otto@example.org' }),
    eve: person('oidc:eve@example.org', { slackUserGroups: [], email: 'eve@example.org' }),
  };
  let app: FastifyInstance;
  let redis: RedisConnection;
  let store: ProposalStore;
  let slack: FakeSlack;
  let channel: string;

  beforeAll(async () => {
    await ensureNamespace(kubeConfig, namespace);
    await createTeam(kube, web, {
      members: { emails: ['ana@example.org', 'ben@example.org'], slackUsers: ['UBEA'] },
      permissions: [{ namespaces: [namespace], verbs: ['approve', 'status'] }],
    });
    await createTeam(kube, ops, { members: { emails: ['otto@example.org'] }, permissions: [{ namespaces: [namespace], verbs: ['approve'] }] });
    await createTeam(kube, viewers, { members: { emails: ['eve@example.org'] }, permissions: [{ namespaces: [namespace], verbs: ['status'] }] });
    // The HelmRelease is only the audit's object here: no controller runs in this namespace.
    await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'shop', { chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' } }));
    slack = await startFakeSlack();
    channel = slack.addChannel({ name: 'releases' }).id;
    redis = connectRedis(env.redisUrl);
    store = new ProposalStore(redis, clusterKey(uniqueName('hc-webvotes'), 'proposals'));
    const log = createLogger('web-votes-test', 'warn');
    const api = new HelmReleaseApi(kube);
    const teams = new TeamApi(kube);
    app = Fastify();
    await app.register(formbody);
    app.addHook('preHandler', async (request) => {
      const who = people[String(request.headers['x-test-person'] ?? '')];
      if (who) request.web = { principal: who, teams: (await teams.list()).items.map(teamPolicy), csrfToken: 'test-csrf' };
    });
    await proposalVoteRoutes({
      store: (cluster) => (cluster === 'default' ? store : `the proposal is from cluster ${cluster}; this server drives only its own (default)`),
      locate: async (_cluster, ns, name) => {
        const release = await api.get(ns, name);
        return release ? { ok: true, release, local: true } : { ok: false, message: `${ns}/${name} no longer exists` };
      },
      events: new KubeEventRecorder(kube, log, 'helmcrew-web-test'),
      log,
      showCluster: false,
      clusterSegment: () => '-',
      // As `helmcrew web` builds it with SLACK_BOT_TOKEN set.
      slack: slackProposalMessages(new WebClient(slack.token, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 }, logLevel: LogLevel.ERROR })),
    })(app);
  });
  afterAll(async () => {
    await app?.close();
    await slack?.stop();
    redis?.disconnect();
    await Promise.all([deleteTeam(kube, web), deleteTeam(kube, ops), deleteTeam(kube, viewers), deleteNamespace(kubeConfig, namespace)]);
  });

  const open = async (tag: string, facts: Partial<Proposal['facts']> = {}): Promise<Proposal> => {
    const release = { cluster: 'default', namespace, name: 'shop' };
    const values = [{ valuesPath: 'image.tag', from: '1.0.0', to: tag }];
    const subject = `${namespace}/shop promotion ${tag}`;
    const proposal: Proposal = {
      id: proposalId(release, subject, values),
      kind: 'promotion',
      release,
      values,
      summary: `promotion: image.tag 1.0.0 → ${tag}`,
      subject,
      facts: { required: 2, expiresAt: Date.now() + 3_600_000, proposedBy: 'oidc:ana@example.org', teams: [web], ...facts },
      state: { phase: 'open', approvers: [] },
      createdAt: Date.now(),
    };
    return (await store.open(proposal)).proposal;
  };
  const vote = (who: string, proposal: Pick<Proposal, 'id'>, choice = 'approve') =>
    app.inject({
      method: 'POST',
      url: `/proposals/default/${proposal.id}/vote`,
      headers: { 'x-test-person': who, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ _csrf: 'test-csrf', choice }).toString(),
    });
  const events = async (reason: string) =>
    (await core.listNamespacedEvent({ namespace, fieldSelector: `involvedObject.name=shop,reason=${reason}` })).items.map((e) => e.message ?? '');
  const waitForEvent = (reason: string, pattern: RegExp) =>
    pollUntil(
      async () => (await events(reason)).find((m) => pattern.test(m)),
      { timeoutMs: 15_000 },
      () => `no ${reason} event matching ${pattern}`,
    );

  it.each([
    { name: 'the proposer, on their own promotion', who: 'ana', says: /you proposed this change/, audited: false },
    { name: 'a Team member without `approve`', who: 'eve', says: /none of your Teams .* grants &quot;approve&quot;/, audited: true },
    { name: 'a person approving through a Team outside approval.teams', who: 'otto', says: /counts approvals only from members of the Team/, audited: true },
  ])('refused with 403, not counted: $name', async ({ who, says, audited }) => {
    const proposal = await open(`2.0.${who.length}-${who}`);
    const answer = await vote(who, proposal);
    expect(answer.statusCode).toBe(403);
    expect(answer.body).toContain('Not counted');
    expect(answer.body).toMatch(says);
    expect((await store.get(proposal.id))?.state).toEqual({ phase: 'open', approvers: [] });
    if (audited) await waitForEvent('ActionRefused', new RegExp(`^${people[who]!.id} via web was refused to approve proposal ${proposal.id}`));
  });

  it('two other people approve it, each vote audited via web; a third is told it is closed', async () => {
    const proposal = await open('3.0.0');
    const first = await vote('ben', proposal);
    expect([first.statusCode, first.body]).toEqual([200, expect.stringContaining('Your approval is counted')]);
    expect((await vote('ben', proposal)).statusCode).toBe(403);
    const second = await vote('bea', proposal);
    expect([second.statusCode, second.body]).toEqual([200, expect.stringContaining('Approved: promotion')]);
    expect((await store.get(proposal.id))?.state).toEqual({ phase: 'approved', approvers: ['oidc:ben@example.org', 'slack:UBEA'] });
    // A Slack user signed in on the web is named as in chat, and the line says where the vote came from.
    await waitForEvent(
      'ActionRequested',
      new RegExp(`^slack:UBEA \\(@UBEA\\) via web approved proposal ${proposal.id} .*approved by oidc:ben@example.org, slack:UBEA \\(@UBEA\\)`),
    );
    await waitForEvent(
      'ActionRequested',
      new RegExp(`^oidc:ben@example.org via web approved proposal ${proposal.id} .*: 1 of 2, approved by oidc:ben@example.org$`),
    );
    const late = await vote('ana', proposal, 'reject');
    expect([late.statusCode, late.body]).toEqual([403, expect.stringContaining('already approved')]);
  });

  it('a Reject ends it; an unknown proposal is a 404, a choice that is neither a 400', async () => {
    const proposal = await open('4.0.0');
    expect((await vote('ben', proposal, 'reject')).statusCode).toBe(200);
    expect((await store.get(proposal.id))?.state.phase).toBe('rejected');
    expect((await vote('bea', { id: 'p-0000000000000000' })).statusCode).toBe(404);
    expect((await vote('bea', proposal, 'maybe')).statusCode).toBe(400);
  });

  /** The proposal's message in the channel, as notify posts it when the proposal opens, kept on the record. */
  const announce = async (proposal: Proposal): Promise<{ ts: string }> => {
    const posted = await new WebClient(slack.token, { slackApiUrl: slack.apiUrl, logLevel: LogLevel.ERROR }).chat.postMessage({
      channel,
      ...renderProposalMessage(proposal, { state: proposal.state, now: Date.now() }),
    });
    await store.update(proposal.id, (p) => withMessage(p, { channel, ts: posted.ts! }));
    return { ts: posted.ts! };
  };
  /** The text of every chat.update Slack accepted for that message, oldest first. */
  const edits = (ts: string) =>
    slack
      .okCalls('chat.update')
      .filter((c) => c.params.channel === channel && c.params.ts === ts)
      .map((c) => JSON.stringify(c.params.blocks));
  const thread = (ts: string) => slack.replies(channel, ts).map((m) => m.text);

  it('an approval on the web edits the proposal’s Slack message to the votes, and says under it who approved, via web', async () => {
    const proposal = await open('5.0.0');
    const { ts } = await announce(proposal);
    expect((await vote('ben', proposal)).statusCode).toBe(200);
    await eventually(() => expect(edits(ts)).toEqual([expect.stringContaining('1 of 2 approvals: oidc:ben@example.org')]));
    await eventually(() => expect(thread(ts)).toEqual([expect.stringMatching(/^oidc:ben@example\.org via web approved proposal p-/)]));
    // The second, a Slack user on the web: approved, named by their mention, the buttons gone.
    expect((await vote('bea', proposal)).statusCode).toBe(200);
    await eventually(() => expect(edits(ts)).toHaveLength(2));
    const approved = edits(ts)[1]!;
    expect(approved).toContain('Change approved');
    expect(approved).toContain('Approved by oidc:ben@example.org, <@UBEA>');
    expect(approved).not.toContain('proposal_actions');
    await eventually(() => expect(thread(ts)[1]).toMatch(/^slack:UBEA \(@UBEA\) via web approved proposal p-.*the controller applies it$/));
    expect(slack.messages(channel).find((m) => m.ts === ts)?.text).toContain('Change approved');
  });

  it('a rejection on the web edits the message to rejected, by whom; a refused vote edits nothing', async () => {
    const proposal = await open('6.0.0');
    const { ts } = await announce(proposal);
    expect((await vote('eve', proposal)).statusCode).toBe(403);
    expect((await vote('ben', proposal, 'reject')).statusCode).toBe(200);
    await eventually(() => expect(edits(ts)).toEqual([expect.stringContaining('Rejected by oidc:ben@example.org')]));
    await eventually(() => expect(thread(ts)).toEqual([expect.stringMatching(/^oidc:ben@example\.org via web rejected proposal p-.*nothing changes$/)]));
  });
});
