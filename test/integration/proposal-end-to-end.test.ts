import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppsV1Api, CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import type { ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpBot } from '../support/slack-team-bot.js';
import type { HelmReleaseSpec } from '../../src/api/helmrelease.js';
import type { RunningBot } from '../../src/bot/slack/app.js';
import { clusterKey } from '../../src/core/fleet/cluster-keys.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { ProposalStore } from '../../src/core/proposals/proposal-store.js';
import type { Proposal } from '../../src/core/proposals/proposal.js';
import { connectRedis } from '../../src/core/redis.js';
import { ProposalAction } from '../../src/core/slack/action-ids.js';
import { buttonClick, postSigned, startFakeSlack, type FakeMessage, type FakeSlack } from '../../src/dev/fake-slack/index.js';
import { pollUntil } from '../../src/dev/harness/poll.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { eventually } from '../support/eventually.js';
import { freezeNamespace } from '../support/namespace-freeze.js';
import { namespaceWithController, testEnv, uniqueName } from '../support/fixtures.js';
import { createTeam, deleteTeams } from '../support/notify-fixtures.js';
import { spawnNotify } from '../support/notify-process.js';
import { imageRegistryHost, pushImageTag } from '../support/oci.js';

/**
 * Issue 35 across both halves, on the real parts: a tag pushed to the local OCI registry
 * (docker-registry), the controller (tag watcher, proposals, helm, the API server, Redis), a
 * `helmcrew notify` process and the real bot (Bolt, HTTP mode, signed requests) with the local fake
 * Slack as the only stand-in. The tag becomes one proposal message in the owning Team's channel,
 * with its plan diff; two people approve it with the buttons; the live Deployment runs the tag.
 */
describe('a new image tag proposed in chat, approved by two people, applied', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const { namespace, ctl } = namespaceWithController('prop-e2e', { HELMCREW_PROPOSALS_TICK_MS: '300' });
  const host = imageRegistryHost(env);
  const repo = `${uniqueName('e2e')}/web`;
  const image = (tag: string) => `${host}/${repo}:${tag}`;
  const token = 'xoxb-proposal-e2e-token';
  const secret = 'proposal-e2e-signing-secret';
  const channel = 'web-releases';
  const redis = connectRedis(env.redisUrl);
  const apps = kubeConfig.makeApiClient(AppsV1Api);
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  let store: ProposalStore;
  let run: string;
  let slack: FakeSlack;
  let bot: RunningBot;
  let notify: ResultPromise | undefined;
  let events: string;

  beforeAll(async () => {
    // The controller (started by namespaceWithController) publishes under its prefix: notify and the bot share it.
    run = ctl.prefix;
    store = new ProposalStore(redis, clusterKey(run, 'proposals'));
    slack = await startFakeSlack({
      tokens: [token],
      users: ['UANA', 'UBEN', 'UCY'].map((id) => ({ id, name: id.slice(1).toLowerCase() })),
      channels: [{ id: 'CWEB', name: channel }],
    });
    await createTeam(kube, run, `${run}-web`, {
      members: { slackUsers: ['UANA', 'UBEN', 'UCY'] },
      channels: [{ slack: `#${channel}` }],
      subscriptions: [{ namespaces: [namespace] }],
      permissions: [{ namespaces: [namespace], verbs: ['approve', 'list'] }],
    });
    notify = spawnNotify(env, run, join(await mkdtemp(join(tmpdir(), 'helmcrew-proposal-e2e-')), 'notify.log'), {
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
    redis.disconnect();
  });

  const spec: HelmReleaseSpec = {
    chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' },
    timeout: '90s',
    interval: '1s',
    values: { image: { repository: `${host}/${repo}`, tag: '1.4.2' } },
    imageUpdates: [{ repository: `${host}/${repo}`, policy: { semver: '1.x' }, valuesPath: 'image.tag', interval: '1s', insecure: true }],
    approval: { required: 2, expireAfter: '1h' },
  };

  const liveImage = async () =>
    (await apps.listNamespacedDeployment({ namespace })).items.find((d) => d.metadata?.name?.includes('web'))?.spec?.template.spec?.containers[0]?.image;
  const waitForImage = (wanted: string) =>
    pollUntil(
      async () => ((await liveImage()) === wanted ? wanted : undefined),
      { timeoutMs: 90_000 },
      () => `${namespace}/web: the Deployment does not run ${wanted}`,
    );
  const waitForProposal = (tag: string) =>
    pollUntil(
      async () => (await store.list()).find((p) => p.release.namespace === namespace && p.state.phase === 'open' && p.values[0]?.to === tag),
      { timeoutMs: 30_000 },
      () => `no open proposal for ${tag}`,
    );
  /** The messages that show a proposal: its own names its id in its last line. */
  const messagesOf = (p: Proposal): FakeMessage[] => slack.messages(channel).filter((m) => JSON.stringify(m.blocks ?? []).includes(`proposal \`${p.id}\``));
  const shown = (p: Proposal) => JSON.stringify(messagesOf(p)[0]?.blocks ?? []);
  type Button = { action_id: string; value: string };
  const buttonsOf = (m: FakeMessage | undefined) =>
    (m?.blocks as Array<{ type: string; elements?: Button[] }> | undefined)?.find((b) => b.type === 'actions')?.elements ?? [];
  /** A press of a proposal's button by `user`; the private answer they get. */
  const press = async (id: string, value: string, user: string) => {
    const request = buttonClick(slack, id, value, user, channel);
    const sent = await postSigned(events, request.form, { secret });
    expect(sent.status).toBe(200);
    const reply = (await slack.replyOn(request.responseUrl, 30_000)) as { text: string; response_type?: string };
    expect(reply.response_type).toBe('ephemeral');
    return String(reply.text);
  };
  const upgradeMessages = () => slack.messages(channel).filter((m) => m.text.startsWith(`${namespace}/web: Upgraded`));
  const eventsOf = async (reason: string) =>
    (await kubeConfig.makeApiClient(CoreV1Api).listNamespacedEvent({ namespace, fieldSelector: `involvedObject.name=web,reason=${reason}` })).items;

  it('a pushed tag: one message with the diff; one approval does nothing; the second applies it; a third person is told', async () => {
    // The tag the release declares is in the registry already: nothing to propose until a newer one.
    await pushImageTag(host, repo, '1.4.2');
    await waitForReconciled(kubeConfig, namespace, 'web', await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'web', spec)), 90_000);
    expect(await liveImage()).toBe(image('1.4.2'));

    await pushImageTag(host, repo, '1.5.0');
    const p = await waitForProposal('1.5.0');
    const posted = await eventually(
      () => {
        expect(buttonsOf(messagesOf(p)[0])).toHaveLength(2);
        return messagesOf(p)[0]!;
      },
      { timeoutMs: 30_000 },
    );
    expect(buttonsOf(posted).map((b) => [b.action_id, b.value])).toEqual([
      [ProposalAction.Approve, `default/${p.id}`],
      [ProposalAction.Reject, `default/${p.id}`],
    ]);
    expect(shown(p)).toContain('`image.tag`: `1.4.2` → `1.5.0`');
    expect(shown(p)).toContain('0 of 2 approvals');
    // The plan diff the preview made, naming the new image in the Deployment.
    expect(shown(p)).toContain('What it would change');
    expect(shown(p)).toContain(`${image('1.4.2')} → ${image('1.5.0')}`);
    expect((await store.get(p.id))!.diff).toEqual(expect.arrayContaining([expect.stringMatching(/^objects: .*changed/)]));
    const value = buttonsOf(posted)[0]!.value;

    // One approval: counted, the message edited, nothing applied.
    expect(await press(ProposalAction.Approve, value, 'UANA')).toMatch(/^Your approval is counted: .* It needs 1 more, from other people\.$/);
    await eventually(() => expect(shown(p)).toContain('1 of 2 approvals: <@UANA>'));
    expect(buttonsOf(messagesOf(p)[0])).toHaveLength(2);
    expect((await store.get(p.id))!.state).toEqual({ phase: 'open', approvers: ['slack:UANA'] });
    expect(await liveImage()).toBe(image('1.4.2'));

    // The second, by another person: approved, applied, the live Deployment runs the tag.
    expect(await press(ProposalAction.Approve, value, 'UBEN')).toMatch(/^Approved: .* The controller applies it/);
    await waitForImage(image('1.5.0'));
    await eventually(() => expect(shown(p)).toContain('Applied. Approved by <@UANA>, <@UBEN>'), { timeoutMs: 30_000 });
    expect(buttonsOf(messagesOf(p)[0])).toEqual([]);
    // Still one message for the proposal: every state edited it.
    expect(messagesOf(p)).toHaveLength(1);
    expect((await store.get(p.id))!.state).toEqual({ phase: 'applied', approvers: ['slack:UANA', 'slack:UBEN'] });
    expect((await eventsOf('ProposalApplied')).map((e) => e.message)).toEqual([expect.stringContaining('approved by slack:UANA, slack:UBEN')]);

    // A third person pressing Approve afterwards is told what became of it.
    expect(await press(ProposalAction.Approve, value, 'UCY')).toBe('Not counted: this change was already approved by slack:UANA and slack:UBEN and applied.');

    // The upgrade's own message names who proposed and who approved the change it brought.
    await eventually(
      () => expect(upgradeMessages().map((m) => JSON.stringify(m))).toEqual([expect.stringContaining('proposed by helmcrew, approved by <@UANA>, <@UBEN>')]),
      { timeoutMs: 30_000 },
    );
  });

  it('an approved change held by a freeze: the message says so until the freeze lifts, then says applied', async () => {
    await pushImageTag(host, repo, '1.6.0');
    const p = await waitForProposal('1.6.0');
    expect(p.values).toEqual([{ valuesPath: 'image.tag', from: '1.5.0', to: '1.6.0' }]);
    const value = await eventually(() => buttonsOf(messagesOf(p)[0])[0]!.value, { timeoutMs: 30_000 });
    const freeze = await freezeNamespace(custom, namespace);
    try {
      expect(await press(ProposalAction.Approve, value, 'UBEN')).toMatch(/^Your approval is counted/);
      expect(await press(ProposalAction.Approve, value, 'UCY')).toMatch(/^Approved: /);
      await eventually(() => expect(shown(p)).toContain('Approved by <@UBEN>, <@UCY>; the controller applies it (a freeze holds it until it lifts).'));
      expect(buttonsOf(messagesOf(p)[0])).toEqual([]);
      // Once the controller has taken it up and the freeze held it (image-proposals.test.ts proves the
      // holding), the message still says approved, not applied.
      await pollUntil(
        async () => (await eventsOf('Frozen')).length > 0 || undefined,
        { timeoutMs: 30_000 },
        () => 'the approved change was not held by the freeze',
      );
      expect(shown(p)).toContain('Approved by <@UBEN>, <@UCY>; the controller applies it');
      expect(await liveImage()).toBe(image('1.5.0'));
    } finally {
      await freeze.lift();
    }
    await waitForImage(image('1.6.0'));
    await eventually(() => expect(shown(p)).toContain('Applied. Approved by <@UBEN>, <@UCY>'), { timeoutMs: 30_000 });
    expect(messagesOf(p)).toHaveLength(1);
    await eventually(() => expect(upgradeMessages().map((m) => JSON.stringify(m))).toContainEqual(expect.stringContaining('approved by <@UBEN>, <@UCY>')), {
      timeoutMs: 30_000,
    });
  });

  it('when no diff can be made (the chart version is not in the repository), the proposal opens all the same and says why', async () => {
    const other = `${uniqueName('e2e-nodiff')}/api`;
    await applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, 'api', {
        ...spec,
        chart: { ...spec.chart, version: '9.9.9' },
        values: { image: { repository: `${host}/${other}`, tag: '1.0.0' } },
        imageUpdates: [{ ...spec.imageUpdates![0]!, repository: `${host}/${other}` }],
      }),
    );
    await pushImageTag(host, other, '1.1.0');
    const p = await pollUntil(
      async () => (await store.list()).find((q) => q.release.name === 'api' && q.state.phase === 'open'),
      { timeoutMs: 30_000 },
      () => 'no open proposal for api',
    );
    await eventually(() => expect(buttonsOf(messagesOf(p)[0])).toHaveLength(2), { timeoutMs: 30_000 });
    expect((await store.get(p.id))!.diff).toEqual([expect.stringMatching(/^no diff could be made: .*9\.9\.9/)]);
    expect(shown(p)).toContain('no diff could be made: ');
  });
});
