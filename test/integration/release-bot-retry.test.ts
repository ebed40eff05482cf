import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORCE_AT_ANNOTATION } from '../../src/api/annotations.js';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { namespaceWithController, testEnv, uniqueName } from '../support/fixtures.js';
import { buttonOf, startSlackTeamBot, type SlackTeamBot } from '../support/slack-team-bot.js';

/**
 * Issue 24: `/release retry <release>` from Slack (signed requests, real Bolt, the local fake
 * Slack): authorized by a Team's `retry` grant, planned, confirmed, then written as
 * helmcrew.dev/forceAt; the controller reruns the failed upgrade once, with no spec change.
 */
describe('/release retry in Slack', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const api = new HelmReleaseApi(kube);
  const { namespace, ctl } = namespaceWithController('slackretry');
  const team = uniqueName('oncall');
  let chat: SlackTeamBot;

  beforeAll(async () => {
    chat = await startSlackTeamBot({
      kube,
      namespace,
      queuePrefix: ctl.prefix,
      team,
      channel: { id: 'C0INCIDENT', name: 'incident' },
      verbs: ['status', 'retry'],
    });
    // green installed, then the broken 4.0.0: the upgrade fails and, with no remediation, stays failed
    for (const version of ['3.0.0', '4.0.0']) {
      const generation = await applyHelmRelease(
        kubeConfig,
        helmReleaseObject(namespace, 'unicorn', { chart: { repository: env.chartRepoUrl, name: 'unicorn', version }, timeout: '60s', interval: '1h' }),
      );
      await waitForReconciled(kubeConfig, namespace, 'unicorn', generation);
    }
  });
  afterAll(async () => {
    await chat?.stop();
  });

  const get = async (): Promise<HelmRelease> => (await api.get(namespace, 'unicorn'))!;
  const upgrades = async () => (await ctl.helm.invocations()).filter((args) => args[0] === 'upgrade').length;

  it('someone without the grant is refused and audited; nothing is written', async () => {
    const reply = await chat.slash(`retry ${namespace}/unicorn`, 'UMALLORY');
    expect(reply.text).toMatch(/^Refused: you may not retry/);
    expect(buttonOf(reply, 'release_confirm')).toBeUndefined();
    expect((await get()).metadata.annotations?.[FORCE_AT_ANNOTATION]).toBeUndefined();
    const refused = await kubeConfig
      .makeApiClient(CoreV1Api)
      .listNamespacedEvent({ namespace, fieldSelector: 'involvedObject.name=unicorn,reason=ActionRefused' });
    expect(refused.items.map((e) => e.message)).toEqual([expect.stringMatching(/^slack:UMALLORY in C0INCIDENT was refused/)]);
  });

  it('retry: plan, Confirm, forceAt written; the failed upgrade runs once more without a spec change', async () => {
    const failed = await get();
    expect(failed.status?.lastAttemptFailed).toBe(true);
    const generation = failed.metadata.generation;
    const before = await upgrades();

    const reply = await chat.slash(`retry ${namespace}/unicorn --reason "quota raised"`);
    expect(reply.text).toBe(`Plan: retry ${namespace}/unicorn: one forced upgrade of the current spec`);
    const { confirmed, outcome } = await chat.confirmAndAwaitOutcome(reply, 120_000);
    expect(confirmed).toMatch(/^Confirmed/);
    // The record in the channel is updated with what the controller reported: 4.0.0 is still broken.
    expect(outcome).toMatch(/<@UALICE> retry .* — _quota raised_\n:x: .*Helm upgrade to unicorn@4\.0\.0 failed/);

    const after = await get();
    const requestId = after.metadata.annotations?.[FORCE_AT_ANNOTATION];
    expect(requestId).toMatch(/^rt-[0-9a-f]{12}$/);
    expect(after.status?.lastHandledForceAt).toBe(requestId);
    expect(after.metadata.generation).toBe(generation);
    expect(await upgrades()).toBe(before + 1);
  });
});
