import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_REQUEST_ANNOTATION } from '../../src/api/annotations.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { namespaceWithController, testEnv, uniqueName } from '../support/fixtures.js';
import { startSlackTeamBot, type SlackTeamBot } from '../support/slack-team-bot.js';

/**
 * Issue 33: `/release test <release>` from Slack (signed requests, real Bolt, the local fake
 * Slack): authorized by a Team's `test` grant, planned, confirmed, written as
 * helmcrew.dev/test-request; the controller runs `helm test` of the deployed revision once and
 * records the request in status.lastTest, and the channel record says how it went. The chart's
 * test hook (unicorn 3.0.0) passes, or fails when its pod exits non-zero.
 */
describe('/release test in Slack', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const api = new HelmReleaseApi(kube);
  const { namespace, ctl } = namespaceWithController('slacktest');
  const team = uniqueName('testers');
  let chat: SlackTeamBot;

  beforeAll(async () => {
    chat = await startSlackTeamBot({ kube, namespace, queuePrefix: ctl.prefix, team, channel: { id: 'C0SMOKE', name: 'smoke' }, verbs: ['status', 'test'] });
    // Tests off in the spec: they run only when asked for. `broken`'s test pod exits 1.
    const releases: Array<[string, Record<string, unknown>]> = [
      ['unicorn', {}],
      ['broken', { test: { kwokExitCode: 1 } }],
    ];
    await Promise.all(
      releases.map(async ([name, values]) => {
        const spec = { chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '3.0.0' }, values, timeout: '60s', interval: '1h' };
        await waitForReconciled(kubeConfig, namespace, name, await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, name, spec)));
      }),
    );
  });
  afterAll(async () => {
    await chat?.stop();
  });

  const tests = async () => (await ctl.helm.invocations()).filter((args) => args[0] === 'test').length;

  /** Asks, confirms, and returns the channel record's final line (the controller's report). */
  const testFromChat = async (name: string): Promise<string> => {
    const reply = await chat.slash(`test ${namespace}/${name} --reason smoke`);
    expect(reply.text).toBe(`Plan: test ${namespace}/${name}: helm test of revision 1`);
    const { confirmed, outcome } = await chat.confirmAndAwaitOutcome(reply, 90_000);
    expect(confirmed).toMatch(/^Confirmed/);
    return outcome;
  };

  it('someone without the grant is refused; nothing is written', async () => {
    const reply = await chat.slash(`test ${namespace}/unicorn`, 'UMALLORY');
    expect(reply.text).toMatch(/^Refused: you may not test/);
    expect((await api.get(namespace, 'unicorn'))?.metadata.annotations?.[TEST_REQUEST_ANNOTATION]).toBeUndefined();
  });

  it('passes: the channel record says so, the request is recorded once, no new revision', async () => {
    const before = await tests();
    const report = await testFromChat('unicorn');
    expect(report).toMatch(/<@UALICE> test .* — _smoke_\n:white_check_mark: .*helm test of revision 1 \(unicorn@3\.0\.0\) passed/);
    const release = (await api.get(namespace, 'unicorn'))!;
    const requestId = release.metadata.annotations?.[TEST_REQUEST_ANNOTATION];
    expect(requestId).toMatch(/^ts-[0-9a-f]{12}$/);
    expect(release.status?.lastTest).toMatchObject({ requestId, revision: 1, succeeded: true });
    expect(release.status?.conditions?.find((c) => c.type === 'TestSuccess')).toMatchObject({ status: 'True' });
    expect(await tests()).toBe(before + 1);
    expect(release.status?.history?.map((h) => h.revision)).toEqual([1]);
  });

  it('fails: the report names the hook that failed; Ready stays, nothing is rolled back', async () => {
    const report = await testFromChat('broken');
    expect(report).toMatch(/:x: .*helm test of revision 1 \(unicorn@3\.0\.0\) failed: .*broken.*test-page/);
    const release = (await api.get(namespace, 'broken'))!;
    expect(release.status?.lastTest).toMatchObject({ revision: 1, succeeded: false });
    expect(release.status?.conditions?.find((c) => c.type === 'TestSuccess')).toMatchObject({ status: 'False', reason: 'TestFailed' });
    expect(release.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True' });
    expect(release.status?.history?.map((h) => h.revision)).toEqual([1]);
  });
});
