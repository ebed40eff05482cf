import { CoreV1Api } from '@kubernetes/client-node';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpBot } from '../support/slack-team-bot.js';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import type { RunningBot } from '../../src/bot/slack/app.js';
import { clusterKey } from '../../src/core/fleet/cluster-keys.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { createLogger } from '../../src/core/log.js';
import { ProposalStore } from '../../src/core/proposals/proposal-store.js';
import { proposalId, type Proposal } from '../../src/core/proposals/proposal.js';
import { connectRedis } from '../../src/core/redis.js';
import { ProposalAction } from '../../src/core/slack/action-ids.js';
import { buttonClick, postSigned, startFakeSlack, type FakeMessage, type FakeSlack } from '../../src/dev/fake-slack/index.js';
import { applyHelmRelease, ensureNamespace, helmReleaseObject } from '../../src/dev/releases.js';
import { NotifyPublisher } from '../../src/notify/publish/publisher.js';
import { eventually } from '../support/eventually.js';
import { deleteNamespace, testEnv, uniqueName } from '../support/fixtures.js';
import { createTeam, deleteTeams } from '../support/notify-fixtures.js';
import { spawnNotify } from '../support/notify-process.js';

/**
 * Issue 35, the chat side: a proposal in the store plus its ProposalOpened event becomes one
 * message with Approve / Reject in the owning Team's channel (a `helmcrew notify` process); votes
 * come as signed block_actions requests to the real bot (Bolt, HTTP mode), are counted in the real
 * Redis, edit that message and are audited on the HelmRelease. The fake Slack is the only stand-in.
 */
describe('proposals in chat', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const api = new HelmReleaseApi(kube);
  const ns = uniqueName('proposals');
  const run = uniqueName('hc-prop');
  const token = 'xoxb-proposal-chat-token';
  const secret = 'proposal-chat-signing-secret';
  const channel = 'web-releases';
  const redis = connectRedis(env.redisUrl);
  const store = new ProposalStore(redis, clusterKey(run, 'proposals'));
  const publisher = new NotifyPublisher({ connection: redis, prefix: run, log: createLogger('test', 'warn') });
  let slack: FakeSlack;
  let bot: RunningBot;
  let notify: ResultPromise | undefined;
  let events: string;
  let release: HelmRelease;

  beforeAll(async () => {
    slack = await startFakeSlack({
      tokens: [token],
      users: ['UANA', 'UBEN', 'UCY', 'UEVE'].map((id) => ({ id, name: id.slice(1).toLowerCase() })),
      channels: [{ id: 'CWEB', name: channel }],
    });
    await ensureNamespace(kubeConfig, ns);
    // No controller here: the object is what the proposal is about, its Events the audit.
    await applyHelmRelease(
      kubeConfig,
      helmReleaseObject(ns, 'web', { chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' }, suspend: true }),
    );
    release = (await api.get(ns, 'web'))!;
    await createTeam(kube, run, `${run}-web`, {
      members: { slackUsers: ['UANA', 'UBEN', 'UCY'] },
      channels: [{ slack: `#${channel}` }],
      subscriptions: [{ namespaces: [ns] }],
      permissions: [{ namespaces: [ns], verbs: ['approve', 'list'] }],
    });
    // UEVE is in a Team too, but one that may only look.
    await createTeam(kube, run, `${run}-viewers`, { members: { slackUsers: ['UEVE'] }, permissions: [{ namespaces: [ns], verbs: ['list'] }] });
    notify = spawnNotify(env, run, join(await mkdtemp(join(tmpdir(), 'helmcrew-proposal-chat-')), 'notify.log'), {
      SLACK_BOT_TOKEN: token,
      SLACK_API_URL: slack.apiUrl,
      HELMCREW_NOTIFY_RATE_PER_SECOND: '20',
      HELMCREW_NOTIFY_RATE_BURST: '20',
    });
    ({ bot, events } = await startHttpBot(slack, { token: token, secret: secret, queuePrefix: run }));
  });
  afterAll(async () => {
    notify?.kill('SIGKILL');
    await notify;
    await bot?.stop();
    await slack?.stop();
    await deleteTeams(kube, run);
    await deleteNamespace(kubeConfig, ns);
    redis.disconnect();
  });

  const subject = (what: string) => `${ns}/web image registry.example.com/shop/web ${what}`;
  const open = async (tag: string, what = 'main', over: Partial<Proposal> = {}): Promise<Proposal> => {
    const rel = { cluster: 'default', namespace: ns, name: 'web' };
    const values = [{ valuesPath: 'image.tag', from: '1.4.2', to: tag }];
    const opened = await store.open({
      id: proposalId(rel, subject(what), values),
      kind: 'image',
      release: rel,
      values,
      summary: `image registry.example.com/shop/web 1.4.2 → ${tag}`,
      subject: subject(what),
      facts: { required: 2, expiresAt: Date.now() + 3_600_000 },
      state: { phase: 'open', approvers: [] },
      createdAt: Date.now(),
      ...over,
    });
    expect(opened.kind).toBe('opened');
    return opened.proposal;
  };
  const announce = (event: 'ProposalOpened' | 'ProposalApplied' | 'ProposalSuperseded', p: Proposal, details = {}) =>
    publisher.record(release, event, `${event}: ${p.summary}`, { proposalId: p.id, ...details });
  // The message of a proposal names its id in its last line (another proposal's message may point at it too).
  const messageOf = (p: Proposal): FakeMessage | undefined =>
    slack.messages(channel).find((m) => JSON.stringify(m.blocks ?? []).includes(`proposal \`${p.id}\``));
  const shown = (p: Proposal) => JSON.stringify(messageOf(p)?.blocks ?? []);
  type Button = { action_id: string; value: string };
  const buttonsOf = (m: FakeMessage | undefined) =>
    (m?.blocks as Array<{ type: string; elements?: Button[] }> | undefined)?.find((b) => b.type === 'actions')?.elements ?? [];
  const press = async (id: string, value: string, user: string) => {
    const request = buttonClick(slack, id, value, user, channel);
    const sent = await postSigned(events, request.form, { secret });
    expect(sent.status).toBe(200);
    // Slack's 3 s: the ack comes before the work.
    expect(sent.ms).toBeLessThan(3000);
    return String(((await slack.replyOn(request.responseUrl, 30_000)) as { text: string }).text);
  };
  const auditEvents = async () =>
    (await kubeConfig.makeApiClient(CoreV1Api).listNamespacedEvent({ namespace: ns, fieldSelector: 'involvedObject.name=web' })).items.map(
      (e) => `${e.reason}: ${e.message}`,
    );

  it('a proposal becomes one message with buttons; two people approve it, a third and an outsider are told why not', async () => {
    const p = await open('1.5.0');
    await announce('ProposalOpened', p);
    const posted = await eventually(
      () => {
        const m = messageOf(p);
        expect(m).toBeDefined();
        return m!;
      },
      { timeoutMs: 30_000 },
    );
    expect(buttonsOf(posted).map((b) => [b.action_id, b.value])).toEqual([
      [ProposalAction.Approve, `default/${p.id}`],
      [ProposalAction.Reject, `default/${p.id}`],
    ]);
    expect(shown(p)).toContain('`image.tag`: `1.4.2` → `1.5.0`');
    expect(shown(p)).toContain('0 of 2 approvals');
    // notify noted where the message is, so the bot edits that one.
    await eventually(async () => expect((await store.get(p.id))!.message).toEqual({ channel: 'CWEB', ts: posted.ts }));
    const value = buttonsOf(posted)[0]!.value;

    expect(await press(ProposalAction.Approve, value, 'UANA')).toMatch(/^Your approval is counted: .* It needs 1 more, from other people\.$/);
    // The answer comes first, then the edit.
    await eventually(() => expect(shown(p)).toContain('1 of 2 approvals: <@UANA>'));
    expect(buttonsOf(messageOf(p))).toHaveLength(2);
    expect(await press(ProposalAction.Approve, value, 'UANA')).toMatch(/^Not counted: you approved this already; it needs 1 more, from other people/);
    expect(await press(ProposalAction.Approve, value, 'UEVE')).toMatch(
      /^Not counted: you may not approve this change: no Team grants you `approve`.*none of your Teams \(.*-viewers\) grants "approve"/,
    );
    expect((await store.get(p.id))!.state).toEqual({ phase: 'open', approvers: ['slack:UANA'] });

    expect(await press(ProposalAction.Approve, value, 'UBEN')).toMatch(/^Approved: .* The controller applies it/);
    expect((await store.get(p.id))!.state).toEqual({ phase: 'approved', approvers: ['slack:UANA', 'slack:UBEN'] });
    await eventually(() => expect(shown(p)).toContain('Approved by <@UANA>, <@UBEN>'));
    expect(buttonsOf(messageOf(p))).toEqual([]);
    expect(await press(ProposalAction.Approve, value, 'UCY')).toBe(
      'Not counted: this change was already approved by slack:UANA and slack:UBEN; it applies when nothing holds it.',
    );

    // Audited like any chat action: Events on the HelmRelease naming every approver, a reply under the message.
    const audit = await eventually(async () => {
      const lines = await auditEvents();
      expect(lines.some((l) => /^ActionRequested: slack:UBEN \(ben\) approved proposal .*approved by slack:UANA \(ana\), slack:UBEN \(ben\)/.test(l))).toBe(
        true,
      );
      return lines;
    });
    expect(audit.some((l) => /^ActionRefused: slack:UEVE in CWEB was refused to approve proposal/.test(l))).toBe(true);
    await eventually(() =>
      expect(slack.replies(channel, posted.ts).map((r) => r.text)).toEqual([
        expect.stringMatching(/^slack:UANA \(ana\) approved proposal .*: 1 of 2/),
        expect.stringMatching(/^slack:UBEN \(ben\) approved proposal .*the controller applies it/),
      ]),
    );

    // The controller's ProposalApplied edits the same message: still one message, now applied.
    await announce('ProposalApplied', p, { approvers: ['slack:UANA', 'slack:UBEN'] });
    await eventually(() => expect(shown(p)).toContain('Applied. Approved by <@UANA>, <@UBEN>'), { timeoutMs: 30_000 });
    expect(slack.messages(channel).filter((m) => m === messageOf(p) || JSON.stringify(m.blocks ?? []).includes(p.id))).toHaveLength(1);
  });

  it('one Reject ends a proposal', async () => {
    const p = await open('1.6.0', 'reject');
    await announce('ProposalOpened', p);
    const value = await eventually(() => buttonsOf(messageOf(p))[1]!.value, { timeoutMs: 30_000 });
    await eventually(async () => expect((await store.get(p.id))!.message).toBeDefined());
    expect(await press(ProposalAction.Reject, value, 'UCY')).toMatch(/^Rejected: .* Nothing will change\.$/);
    expect((await store.get(p.id))!.state).toEqual({ phase: 'rejected', by: 'slack:UCY', approvers: [] });
    await eventually(() => expect(shown(p)).toContain('Rejected by <@UCY>; nothing was changed.'));
    expect(await press(ProposalAction.Approve, value, 'UANA')).toBe('Not counted: this change was rejected by slack:UCY.');
  });

  it('a newer tag supersedes an open proposal: its message says so and points at the new one', async () => {
    const old = await open('1.7.0', 'supersede');
    await announce('ProposalOpened', old);
    await eventually(async () => expect((await store.get(old.id))!.message).toBeDefined(), { timeoutMs: 30_000 });
    const newer = await open('1.7.1', 'supersede');
    await announce('ProposalSuperseded', old);
    await announce('ProposalOpened', newer);
    await eventually(() => expect(shown(old)).toContain(`Replaced by a newer proposal: ${newer.summary} (\`${newer.id}\`)`), {
      timeoutMs: 30_000,
    });
    expect(buttonsOf(messageOf(old))).toEqual([]);
    await eventually(() => expect(buttonsOf(messageOf(newer))).toHaveLength(2), { timeoutMs: 30_000 });
  });
});
