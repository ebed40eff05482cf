import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FREEZE_REPORTED_ANNOTATION } from '../../src/api/annotations.js';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { FreezeApi } from '../../src/core/kube/freeze-api.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { connectRedis } from '../../src/core/redis.js';
import type { FakeSlack } from '../../src/dev/fake-slack/index.js';
import { pollUntil } from '../../src/dev/harness/poll.js';
import { applyHelmRelease, helmReleaseObject, servedColor, waitForReconciled } from '../../src/dev/releases.js';
import { eventually } from '../support/eventually.js';
import { namespaceWithController, testEnv, uniqueName } from '../support/fixtures.js';
import { buttonOf, startSlackTeamBot, type ChatReply, type SlackTeamBot } from '../support/slack-team-bot.js';

/**
 * Issue 22: a freeze set from Slack that nobody lifts from chat (it expires, or kubectl deletes
 * it) still gets its channel message updated with what it held and what then happened, once.
 * Real Bolt (HTTP mode), the local fake Slack, the real cluster, Redis and helm.
 */
describe("a freeze's end reported in its channel message when nobody lifted it from chat", () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const api = new HelmReleaseApi(kube);
  const freezes = new FreezeApi(kube);
  const { namespace } = namespaceWithController('expiry');
  const channel = 'C0CHANGES';
  const team = uniqueName('oncall');
  let chat: SlackTeamBot;
  let slack: FakeSlack;
  const botPrefix = uniqueName('hc-bot');
  const redis = connectRedis(env.redisUrl);
  const spec = (version: string) => ({ chart: { repository: env.chartRepoUrl, name: 'unicorn', version }, timeout: '90s', interval: '1s' });

  beforeAll(async () => {
    chat = await startSlackTeamBot({
      kube,
      namespace,
      queuePrefix: botPrefix,
      team,
      channel: { id: channel, name: 'changes' },
      verbs: ['status', 'freeze', 'unfreeze'],
      env: { HELMCREW_FREEZE_SWEEP_SECONDS: '1' },
    });
    slack = chat.slack;
    await waitForReconciled(kubeConfig, namespace, 'unicorn', await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'unicorn', spec('1.0.0'))));
  });
  afterAll(async () => {
    await chat?.stop();
    redis.disconnect();
    for (const f of (await freezes.list()).items.filter((f) => f.spec.scope.namespaces?.includes(namespace))) await freezes.delete(f.metadata.name);
  });

  type Reply = ChatReply;
  const slash = (text: string) => chat.slash(text);
  const confirm = async (plan: Reply) => {
    await chat.click('release_confirm', buttonOf(plan, 'release_confirm')!.value);
  };
  /** Sets a freeze from Slack; its name and its channel message. */
  const freezeFromSlack = async (flags: string) => {
    const reason = uniqueName('window');
    await confirm(await slash(`freeze ${namespace} --reason ${reason} ${flags}`));
    const freeze = await pollUntil(
      async () => (await freezes.list()).items.find((f) => f.spec.reason === reason),
      { timeoutMs: 10_000 },
      () => 'the freeze was not created',
    );
    const name = freeze.metadata.name;
    const message = await pollUntil(
      async () => slack.messages(channel).find((m) => m.text.includes(`(${name})`)),
      { timeoutMs: 10_000 },
      () => "the freeze's channel message was not posted",
    );
    return { name, reason, ts: message.ts };
  };
  /** A spec change as Git would make it, and the generation it made, once the freeze holds it. */
  const heldChange = async (version: string, name: string) => {
    const generation = await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'unicorn', spec(version)));
    await pollUntil(
      async () => {
        const frozen = (await api.get(namespace, 'unicorn'))?.status?.conditions?.find((c) => c.type === 'Frozen');
        return frozen?.status === 'True' && frozen.observedGeneration === generation && frozen.message.includes(name) ? true : undefined;
      },
      { timeoutMs: 10_000 },
      () => 'the change was not held',
    );
    return generation;
  };
  /**
   * The bot's sweep has seen the freeze (and, with `holding`, recorded that it holds that release)
   * in Redis, where the report of its end is made from (src/bot/slack/freeze-reports.ts). Was a
   * fixed 1.5 s sleep: under load a 1 s sweep can come later, and a freeze deleted before any
   * sweep saw it is never reported.
   */
  const swept = (name: string, holding?: string) =>
    eventually(
      async () => {
        const uid = (await freezes.get(name))?.metadata.uid ?? '';
        expect(await redis.hexists(`${botPrefix}:bot:freeze:watching`, uid)).toBe(1);
        if (holding) expect(await redis.smembers(`${botPrefix}:bot:freeze:held:${uid}`)).toContain(holding);
      },
      { timeoutMs: 15_000 },
    );
  const endReports = (ts: string) =>
    slack.calls().filter((c) => c.method === 'chat.update' && c.params.ts === ts && String(c.params.text).startsWith(':unlock:'));
  const reported = (ts: string) =>
    pollUntil(
      async () => slack.messages(channel).find((m) => m.ts === ts && m.text.startsWith(':unlock:')),
      { timeoutMs: 60_000 },
      () => "the freeze's message was never updated",
    );

  it('a freeze --for 5s expires by itself: its message says so, with the release it let go and the outcome, once', async () => {
    const { name, reason, ts } = await freezeFromSlack('--for 5s');
    const generation = await heldChange('2.0.0', name);
    const updated = await reported(ts);
    expect(updated.text).toMatch(
      new RegExp(
        `^:unlock: Freeze ${name} \\(${reason}, set by slack:UALICE\\) expired \\(until [^)]+\\)\nIt held, and then:\n:white_check_mark: ${namespace}/unicorn: `,
      ),
    );
    const release = (await api.get(namespace, 'unicorn')) as HelmRelease;
    expect(release.status?.observedGeneration).toBe(generation);
    expect(await servedColor(kubeConfig, namespace, 'unicorn')).toBe('blue');
    // Kept, as the controller keeps an expired freeze, and marked as reported.
    expect((await freezes.get(name))?.metadata.annotations?.[FREEZE_REPORTED_ANNOTATION]).toBeDefined();
    // Proves that nothing more happens: three more sweeps report nothing again.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(endReports(ts)).toHaveLength(1);
  });

  it('a freeze deleted with kubectl: its message says it was lifted outside chat, once', async () => {
    const { name, ts } = await freezeFromSlack('');
    await heldChange('3.0.0', name);
    await swept(name, `${namespace}/unicorn`);
    expect(await freezes.delete(name)).toBe(true);
    const updated = await reported(ts);
    expect(updated.text).toContain(`lifted: its Freeze was deleted outside chat\nIt held, and then:\n:white_check_mark: ${namespace}/unicorn: `);
    expect(await servedColor(kubeConfig, namespace, 'unicorn')).toBe('green');
    // Proves that nothing more happens: later sweeps report nothing again.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(endReports(ts)).toHaveLength(1);
  });

  it('a freeze lifted from chat is reported by that path alone, not by the sweep too', async () => {
    const { name, ts } = await freezeFromSlack('');
    await swept(name); // it would see it deleted
    await confirm(await slash(`unfreeze ${name}`));
    const updated = await reported(ts);
    expect(updated.text).toContain('lifted by <@UALICE>');
    // Proves that nothing more happens: the sweep does not report it too.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(endReports(ts)).toHaveLength(1);
  });
});
