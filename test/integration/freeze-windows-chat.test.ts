import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { FreezeApi } from '../../src/core/kube/freeze-api.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import type { FakeSlack } from '../../src/dev/fake-slack/index.js';
import { pollUntil } from '../../src/dev/harness/poll.js';
import { applyHelmRelease, helmReleaseObject, servedColor, waitForReconciled } from '../../src/dev/releases.js';
import { namespaceWithController, testEnv, uniqueName } from '../support/fixtures.js';
import { buttonOf, startSlackTeamBot, type ChatReply, type SlackTeamBot } from '../support/slack-team-bot.js';

/**
 * Issue 33: a maintenance window set from chat opens and closes on a real release. A window every
 * 20 s lasting 10 s (the shortest window allowed; cron with seconds), warned 5 s ahead: the channel
 * hears it is about to open; a spec change while it is open is held, and the controller records on
 * the Freeze's status that it held the release; once it closes the change is applied, and the
 * channel hears the close with the release it held. Real Bolt, the local fake Slack, the real API
 * server, Redis and helm. (Was every 30 s for 12 s, warned 8 s ahead: up to 12 s more waiting.)
 */
describe('maintenance windows from chat', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const api = new HelmReleaseApi(kube);
  const freezes = new FreezeApi(kube);
  const { namespace } = namespaceWithController('windows');
  const channel = 'C0WINDOWS';
  const team = uniqueName('oncall');
  let chat: SlackTeamBot;
  let slack: FakeSlack;
  const spec = (version: string) => ({ chart: { repository: env.chartRepoUrl, name: 'unicorn', version }, timeout: '90s', interval: '1h' });

  beforeAll(async () => {
    chat = await startSlackTeamBot({
      kube,
      namespace,
      queuePrefix: uniqueName('hc-bot'),
      team,
      channel: { id: channel, name: 'windows' },
      verbs: ['status', 'freeze', 'unfreeze'],
      env: { HELMCREW_FREEZE_SWEEP_SECONDS: '1' },
    });
    slack = chat.slack;
    await waitForReconciled(kubeConfig, namespace, 'unicorn', await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'unicorn', spec('1.0.0'))));
  });
  afterAll(async () => {
    await chat?.stop();
    for (const f of (await freezes.list()).items.filter((f) => f.spec.scope.namespaces?.includes(namespace))) await freezes.delete(f.metadata.name);
  });

  type Reply = ChatReply;
  const slash = (text: string) => chat.slash(text);
  const confirm = async (plan: Reply) => {
    await chat.click('release_confirm', buttonOf(plan, 'release_confirm')!.value);
  };
  const sleepUntil = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms - Date.now())));

  it('warned before it opens; holds a change while open; applies it after; the close names the release it held', async () => {
    const reason = uniqueName('drill');
    const plan = await slash(`freeze ${namespace} --window "*/20 * * * * *" --for 10s --warn 5s --reason ${reason}`);
    expect(JSON.stringify(plan)).toContain('holds only while a window is open: \\"*/20 * * * * *\\" (UTC) for 10s each');
    await confirm(plan);
    const freeze = await pollUntil(
      async () => (await freezes.list()).items.find((f) => f.spec.reason === reason),
      { timeoutMs: 10_000 },
      () => 'the freeze was not created',
    );
    const name = freeze.metadata.name;
    expect(freeze.spec.windows).toEqual([{ schedule: '*/20 * * * * *', duration: '10s' }]);

    // The warning, before the window it names opens.
    const opening = await pollUntil(
      async () => slack.messages(channel).find((m) => m.text.startsWith(`:lock: Freeze ${name} (${reason}) opens a window at`)),
      { timeoutMs: 45_000 },
      () => `no warning; messages: ${JSON.stringify(slack.messages(channel).map((m) => m.text))}`,
    );
    // When Slack took the post (its ts, whole seconds), not when this poll saw it; windows open on whole seconds.
    const postedAt = Number(opening.ts.split('.')[0]) * 1000;
    const start = Date.parse(/opens a window at (\S+) until/.exec(opening.text)![1]!);
    expect(postedAt).toBeLessThan(start);

    // Open: a change as Git would make it is held, and the Freeze's status names the release.
    await sleepUntil(start + 300);
    const generation = await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'unicorn', spec('2.0.0')));
    await pollUntil(
      async () => {
        const frozen = (await api.get(namespace, 'unicorn'))?.status?.conditions?.find((c) => c.type === 'Frozen');
        return frozen?.status === 'True' && frozen.observedGeneration === generation ? true : undefined;
      },
      { timeoutMs: 8_000 },
      () => 'the change was not held',
    );
    const held = await pollUntil(
      async () => (await freezes.get(name))?.status?.held,
      { timeoutMs: 8_000 },
      () => 'the controller did not record what the freeze held',
    );
    expect(held).toMatchObject({ since: new Date(start).toISOString(), releases: [{ release: `${namespace}/unicorn`, action: 'upgrade' }] });
    expect(await servedColor(kubeConfig, namespace, 'unicorn')).toBe('pink'); // still 1.0.0

    // Closed: applied, not before the window's end.
    const end = start + 10_000;
    const applied = await pollUntil(
      async () => {
        const release = await api.get(namespace, 'unicorn');
        const ready = release?.status?.conditions?.find((c) => c.type === 'Ready');
        return ready?.status === 'True' && ready.observedGeneration === generation ? release : undefined;
      },
      { timeoutMs: 60_000 },
      () => 'the held change was not applied after the window closed',
    );
    expect(Date.now()).toBeGreaterThanOrEqual(end);
    expect(applied.status?.conditions?.find((c) => c.type === 'Frozen')?.status).not.toBe('True');
    expect(await servedColor(kubeConfig, namespace, 'unicorn')).toBe('blue');

    const closed = await pollUntil(
      async () => slack.messages(channel).find((m) => m.text.startsWith(`:unlock: Freeze ${name} (${reason}): the window ${new Date(start).toISOString()}`)),
      { timeoutMs: 15_000 },
      () => `no close report; messages: ${JSON.stringify(slack.messages(channel).map((m) => m.text))}`,
    );
    expect(closed.text).toContain(`closed. It held ${namespace}/unicorn (upgrade); they go on now.`);
  });
});
