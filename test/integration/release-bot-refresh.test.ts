import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REQUESTED_AT_ANNOTATION } from '../../src/api/annotations.js';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { namespaceWithController, testEnv } from '../support/fixtures.js';
import { startSlackTeamBot, type SlackTeamBot } from '../support/slack-team-bot.js';

/**
 * `/release refresh`, the verb added as one row of the verb table and one handler
 * (session/verbs/refresh.ts): over signed Slack requests it writes helmcrew.dev/requestedAt, the
 * controller records it in status.lastHandledReconcileAt, and no helm runs for a release in sync.
 */
describe('/release refresh in Slack', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const api = new HelmReleaseApi(kube);
  const { namespace, ctl } = namespaceWithController('slackrefresh');
  let chat: SlackTeamBot;

  beforeAll(async () => {
    chat = await startSlackTeamBot({
      kube,
      namespace,
      queuePrefix: ctl.prefix,
      team: 'refreshers',
      channel: { id: 'C0REFRESH', name: 'refresh' },
      verbs: ['refresh'],
    });
    const generation = await applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, 'unicorn', { chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '2.0.0' }, interval: '1h' }),
    );
    await waitForReconciled(kubeConfig, namespace, 'unicorn', generation);
  });
  afterAll(async () => {
    await chat?.stop();
  });

  const get = async (): Promise<HelmRelease> => (await api.get(namespace, 'unicorn'))!;

  it('plan, Confirm, requestedAt written and handled; no helm for a release in sync', async () => {
    const helmBefore = (await ctl.helm.invocations()).length;
    const reply = await chat.slash(`refresh ${namespace}/unicorn --reason "is it still there?"`);
    expect(reply.text).toBe(`Plan: refresh ${namespace}/unicorn`);
    const { confirmed, outcome } = await chat.confirmAndAwaitOutcome(reply, 60_000);
    expect(confirmed).toMatch(/^Confirmed/);
    expect(outcome).toMatch(/checked/);
    const after = await get();
    const requestId = after.metadata.annotations?.[REQUESTED_AT_ANNOTATION];
    expect(requestId).toMatch(/^rf-[0-9a-f]{12}$/);
    expect(after.status?.lastHandledReconcileAt).toBe(requestId);
    expect((await ctl.helm.invocations()).slice(helmBefore).filter((args) => ['install', 'upgrade'].includes(args[0]!))).toEqual([]);
  });
});
