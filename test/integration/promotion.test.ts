import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppsV1Api } from '@kubernetes/client-node';
import type { ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpBot } from '../support/slack-team-bot.js';
import type { HelmReleaseSpec } from '../../src/api/helmrelease.js';
import type { RunningBot } from '../../src/bot/slack/app.js';
import { clusterKey } from '../../src/core/fleet/cluster-keys.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { deployedChartVersion } from '../../src/core/proposals/promotion.js';
import { ProposalStore } from '../../src/core/proposals/proposal-store.js';
import { connectRedis, type RedisConnection } from '../../src/core/redis.js';
import { ProposalAction } from '../../src/core/slack/action-ids.js';
import { buttonClick, postSigned, slashCommand, startFakeSlack, type FakeMessage, type FakeSlack } from '../../src/dev/fake-slack/index.js';
import { applyHelmRelease, ensureNamespace, helmReleaseObject } from '../../src/dev/releases.js';
import { eventually } from '../support/eventually.js';
import { deleteNamespace, startTestController, testEnv, uniqueName, type TestController } from '../support/fixtures.js';
import { createTeam, deleteTeams } from '../support/notify-fixtures.js';
import { spawnNotify } from '../support/notify-process.js';

/**
 * Issue 35, promotions end to end on the real parts (API server, helm, Redis, a controller watching
 * two namespaces, `helmcrew notify`, the bot in HTTP mode; the fake Slack the only stand-in): a signed
 * `/release promote web --from <staging> --to <prod>` becomes one proposal message with Approve /
 * Reject in prod's Team channel, the proposer's own approval is refused (two are asked), two other
 * people approve, and prod's live Deployment runs staging's image. The proposal carries staging's
 * chart version too (applying it is the chart-version slice's).
 */
describe('promotions: /release promote between two namespaces, approved in chat', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const api = new HelmReleaseApi(kube);
  const apps = kubeConfig.makeApiClient(AppsV1Api);
  const staging = uniqueName('promo-stg');
  const prod = uniqueName('promo-prd');
  const host = new URL(env.ociRegistry.url.replace(/^oci:/, 'http:')).host;
  // A repository nobody pushes to: the tag watcher finds nothing to propose by itself.
  const repository = `${host}/${uniqueName('promo')}/web`;
  const token = 'xoxb-promotion-token';
  const secret = 'promotion-signing-secret';
  const channel = 'web-releases';
  let ctl: TestController | undefined;
  let redis: RedisConnection;
  let store: ProposalStore;
  let slack: FakeSlack;
  let bot: RunningBot | undefined;
  let notify: ResultPromise | undefined;
  let events: string;

  const spec = (version: string, tag: string, extra: Partial<HelmReleaseSpec> = {}): HelmReleaseSpec => ({
    chart: { repository: env.chartRepoUrl, name: 'unicorn', version },
    timeout: '90s',
    values: { image: { repository, tag } },
    imageUpdates: [{ repository, policy: { semver: '1.x' }, valuesPath: 'image.tag', interval: '1h', insecure: true }],
    ...extra,
  });
  const liveImage = async (namespace: string) =>
    (await apps.listNamespacedDeployment({ namespace })).items.find((d) => d.metadata?.name?.includes('web'))?.spec?.template.spec?.containers[0]?.image;

  beforeAll(async () => {
    await ensureNamespace(kubeConfig, staging);
    await ensureNamespace(kubeConfig, prod);
    ctl = await startTestController([staging, prod], { HELMCREW_PROPOSALS_TICK_MS: '300' });
    const run = ctl.prefix;
    redis = connectRedis(env.redisUrl);
    store = new ProposalStore(redis, clusterKey(run, 'proposals'));
    slack = await startFakeSlack({
      tokens: [token],
      users: ['UANA', 'UBEN', 'UCY', 'UEVE'].map((id) => ({ id, name: id.slice(1).toLowerCase() })),
      channels: [{ id: 'CWEB', name: channel }],
    });
    await createTeam(kube, run, `${run}-web`, {
      members: { slackUsers: ['UANA', 'UBEN', 'UCY'] },
      channels: [{ slack: `#${channel}` }],
      subscriptions: [{ namespaces: [prod] }],
      permissions: [{ namespaces: [staging, prod], verbs: ['upgrade', 'approve', 'list', 'status'] }],
    });
    // UEVE may approve in prod, but not upgrade it: she may not propose a promotion there.
    await createTeam(kube, run, `${run}-viewers`, { members: { slackUsers: ['UEVE'] }, permissions: [{ namespaces: [prod], verbs: ['list', 'approve'] }] });
    notify = spawnNotify(env, run, join(await mkdtemp(join(tmpdir(), 'helmcrew-promotion-')), 'notify.log'), {
      SLACK_BOT_TOKEN: token,
      SLACK_API_URL: slack.apiUrl,
      HELMCREW_NOTIFY_RATE_PER_SECOND: '20',
      HELMCREW_NOTIFY_RATE_BURST: '20',
    });
    ({ bot, events } = await startHttpBot(slack, { token: token, secret: secret, queuePrefix: run }));
    // staging runs chart 2.0.0 and image 1.5.0; prod chart 1.0.0 and image 1.4.2, and asks for two approvals.
    await applyHelmRelease(kubeConfig, helmReleaseObject(staging, 'web', spec('2.0.0', '1.5.0')));
    await applyHelmRelease(kubeConfig, helmReleaseObject(prod, 'web', spec('1.0.0', '1.4.2', { approval: { required: 2, expireAfter: '1h' } })));
    await eventually(async () => expect(await liveImage(prod)).toBe(`${repository}:1.4.2`), { timeoutMs: 90_000 });
    await eventually(async () => expect(deployedChartVersion((await api.get(staging, 'web'))!)).toBe('2.0.0'), { timeoutMs: 90_000 });
    await eventually(async () => expect(deployedChartVersion((await api.get(prod, 'web'))!)).toBe('1.0.0'), { timeoutMs: 90_000 });
  });
  afterAll(async () => {
    notify?.kill('SIGKILL');
    await notify;
    await bot?.stop();
    await slack?.stop();
    await ctl?.stop();
    if (ctl) await deleteTeams(kube, ctl.prefix);
    await deleteNamespace(kubeConfig, staging);
    await deleteNamespace(kubeConfig, prod);
    redis?.disconnect();
  });

  /** A signed slash command as `user`; the bot's one answer on its response_url. */
  const slash = async (text: string, user: string) => {
    const request = slashCommand(slack, text, user, channel);
    expect((await postSigned(events, request.form, { secret })).status).toBe(200);
    return String(((await slack.replyOn(request.responseUrl, 30_000)) as { text: string }).text);
  };
  const press = async (id: string, value: string, user: string) => {
    const request = buttonClick(slack, id, value, user, channel);
    expect((await postSigned(events, request.form, { secret })).status).toBe(200);
    return String(((await slack.replyOn(request.responseUrl, 30_000)) as { text: string }).text);
  };
  const messageOf = (id: string): FakeMessage | undefined => slack.messages(channel).find((m) => JSON.stringify(m.blocks ?? []).includes(`proposal \`${id}\``));
  const shown = (id: string) => JSON.stringify(messageOf(id)?.blocks ?? []);
  type Button = { action_id: string; value: string };
  const buttonsOf = (m: FakeMessage | undefined) =>
    (m?.blocks as Array<{ type: string; elements?: Button[] }> | undefined)?.find((b) => b.type === 'actions')?.elements ?? [];

  it('refuses who may not upgrade the target and a place that is not there, then proposes, takes two approvals and runs the image', async () => {
    expect(await slash(`promote web --from ${staging} --to ${prod}`, 'UEVE')).toMatch(
      /^Refused: you may not upgrade .*web .*grants "upgrade" \(proposing a promotion takes .upgrade. on its target\)\. Nothing changed\.$/,
    );
    const typo = `${prod.slice(0, -1)}${prod.endsWith('x') ? 'y' : 'x'}`;
    expect(await slash(`promote web --from ${staging} --to ${typo}`, 'UANA')).toContain(`did you mean --to ${prod}?`);
    expect(await store.list()).toEqual([]);

    const reply = await slash(`promote web --from ${staging} --to ${prod}`, 'UANA');
    const id = /^Proposed (p-[0-9a-f]{16}): promotion from /.exec(reply)?.[1];
    expect(id, reply).toBeDefined();
    expect(reply).toContain('It needs 2 approvals, from people other than you');
    expect(await store.get(id!)).toMatchObject({
      kind: 'promotion',
      release: { cluster: 'default', namespace: prod, name: 'web' },
      chartVersion: { from: '1.0.0', to: '2.0.0' },
      values: [{ valuesPath: 'image.tag', from: '1.4.2', to: '1.5.0' }],
      facts: { required: 2, proposedBy: 'slack:UANA' },
    });

    // The controller tells it; notify posts one message with the buttons in prod's Team channel.
    const posted = await eventually(() => {
      const m = messageOf(id!);
      expect(buttonsOf(m)).toHaveLength(2);
      return m!;
    });
    expect(slack.messages(channel).filter((m) => JSON.stringify(m.blocks ?? []).includes(`proposal \`${id}\``))).toHaveLength(1);
    expect(shown(id!)).toContain('`image.tag`: `1.4.2` → `1.5.0`');
    expect(shown(id!)).toContain('chart version: `1.0.0` → `2.0.0`');
    // With the plan diff of the chart version and the image together, made by prod's controller.
    expect(shown(id!)).toContain('What it would change');
    expect((await store.get(id!))!.diff).toEqual(
      expect.arrayContaining([expect.stringMatching(/^objects: .*changed/), expect.stringMatching(/^~ Deployment /)]),
    );
    await eventually(async () => expect((await store.get(id!))!.message).toEqual({ channel: 'CWEB', ts: posted.ts }));
    const value = buttonsOf(posted)[0]!.value;
    expect(value).toBe(`default/${id}`);

    expect(await press(ProposalAction.Approve, value, 'UANA')).toMatch(/^Not counted: you proposed this change; it needs 2 approvals from other people/);
    expect(await press(ProposalAction.Approve, value, 'UBEN')).toMatch(/^Your approval is counted: .* It needs 1 more, from other people\.$/);
    expect(await press(ProposalAction.Approve, value, 'UCY')).toMatch(/^Approved: /);

    await eventually(async () => expect(await liveImage(prod)).toBe(`${repository}:1.5.0`), { timeoutMs: 90_000 });
    expect(await liveImage(staging)).toBe(`${repository}:1.5.0`);
    // The chart version came with it (status.approvedChart): prod's Deployment was rendered from 2.0.0.
    const liveChart = async (namespace: string) =>
      (await apps.listNamespacedDeployment({ namespace })).items.find((d) => d.metadata?.name?.includes('web'))?.metadata?.labels?.['helm.sh/chart'];
    await eventually(async () => expect(await liveChart(prod)).toBe('unicorn-2.0.0'), { timeoutMs: 30_000 });
    expect((await store.get(id!))!.state).toEqual({ phase: 'applied', approvers: ['slack:UBEN', 'slack:UCY'] });
    // The same message, edited: applied.
    await eventually(() => expect(shown(id!)).toContain('Applied. Approved by <@UBEN>, <@UCY>'), { timeoutMs: 30_000 });
    expect(messageOf(id!)?.ts).toBe(posted.ts);
  });
});
