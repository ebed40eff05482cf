import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BREAK_GLASS_ANNOTATION, readBreakGlass } from '../../src/api/annotations.js';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { API_GROUP, API_VERSION, FREEZE_KIND } from '../../src/api/vocabulary.js';
import { startBot, type RunningBot } from '../../src/bot/slack/app.js';
import { readBotConfig } from '../../src/bot/slack/config.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { FreezeApi } from '../../src/core/kube/freeze-api.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { createLogger } from '../../src/core/log.js';
import { buttonClick, postSigned, slashCommand, startFakeSlack, type FakeSlack } from '../../src/dev/fake-slack/index.js';
import { freePort } from '../../src/dev/free-port.js';
import { pollUntil } from '../../src/dev/harness/poll.js';
import { applyHelmRelease, helmReleaseObject, servedColor, waitForReconciled } from '../../src/dev/releases.js';
import { createTeam, deleteTeam } from '../../src/dev/harness/index.js';
import { eventually } from '../support/eventually.js';
import { namespaceWithController, testEnv, uniqueName } from '../support/fixtures.js';

/**
 * Issue 22, break-glass: a change to a frozen release from chat needs two people, names the
 * freeze, and is audited. Real Bolt (HTTP mode, signed requests), the local fake Slack, the real
 * cluster, Redis and helm.
 */
describe('/release upgrade --break-glass through a freeze', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const api = new HelmReleaseApi(kube);
  const freezes = new FreezeApi(kube);
  const { namespace, ctl } = namespaceWithController('glass');
  const secret = 'test-signing-secret';
  const token = 'xoxb-test-token';
  const channel = 'C0INCIDENT';
  const team = uniqueName('oncall');
  const freezeName = uniqueName('incident');
  let slack: FakeSlack;
  let bot: RunningBot;
  let events: string;
  const spec = (version: string) => ({ chart: { repository: env.chartRepoUrl, name: 'unicorn', version }, timeout: '90s', interval: '1s' });

  beforeAll(async () => {
    slack = await startFakeSlack({
      tokens: [token],
      users: ['UALICE', 'UBOB'].map((id) => ({ id, name: id.slice(1).toLowerCase() })),
      channels: [{ id: channel, name: 'incident' }],
    });
    await createTeam(kube, team, {
      members: { slackUsers: ['UALICE', 'UBOB'] },
      permissions: [{ namespaces: [namespace], verbs: ['status', 'upgrade', 'freeze', 'unfreeze'] }],
    });
    const port = await freePort();
    const config = readBotConfig({
      SLACK_BOT_TOKEN: token,
      SLACK_SIGNING_SECRET: secret,
      SLACK_API_URL: slack.apiUrl,
      PORT: String(port),
      REDIS_URL: env.redisUrl,
      KUBECONFIG: env.kubeconfig,
      HELMCREW_QUEUE_PREFIX: uniqueName('hc-bot'),
      // No controller answers previews on this queue (its dry runs would count as helm upgrades
      // below): each upgrade plan waited the default 20 s for one.
      HELMCREW_PREVIEW_TIMEOUT_SECONDS: '1',
    });
    bot = await startBot(config, createLogger('bot', process.env.LOG_LEVEL ?? 'warn'));
    events = `http://127.0.0.1:${bot.port}/slack/events`;
    await waitForReconciled(kubeConfig, namespace, 'unicorn', await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'unicorn', spec('1.0.0'))));
    await freezes.create(
      {
        apiVersion: `${API_GROUP}/${API_VERSION}`,
        kind: FREEZE_KIND,
        metadata: { name: freezeName },
        spec: { scope: { namespaces: [namespace] }, reason: 'INC-4242', setBy: 'kube:incident-commander' },
      },
      'test',
    );
  });
  afterAll(async () => {
    await bot?.stop();
    await slack?.stop();
    await freezes.delete(freezeName);
    await deleteTeam(kube, team);
  });

  const send = (form: Record<string, string>) => postSigned(events, form, { secret });
  type Reply = { text: string; blocks?: Array<{ type: string; elements?: Array<{ action_id: string; value: string }> }> };
  const slash = async (text: string, user = 'UALICE') => {
    const request = slashCommand(slack, text, user, channel);
    await send(request.form);
    return (await slack.replyOn(request.responseUrl, 30_000)) as Reply;
  };
  const click = async (actionId: string, value: string, user = 'UALICE') => {
    const request = buttonClick(slack, actionId, value, user, channel);
    await send(request.form);
    return (await slack.replyOn(request.responseUrl, 30_000)) as Reply;
  };
  const button = (reply: Reply | { blocks?: unknown }, id: string) =>
    (reply.blocks as Reply['blocks'])?.find((b) => b.type === 'actions')?.elements?.find((e) => e.action_id === id);
  const get = async (): Promise<HelmRelease> => (await api.get(namespace, 'unicorn'))!;
  const eventsOf = async (reason: string) =>
    (await kubeConfig.makeApiClient(CoreV1Api).listNamespacedEvent({ namespace, fieldSelector: `involvedObject.name=unicorn,reason=${reason}` })).items;

  it('without --break-glass the plan says the freeze holds it, and how to go through', async () => {
    const reply = await slash(`upgrade ${namespace}/unicorn 2.0.0`);
    expect(JSON.stringify(reply.blocks)).toContain(`held by freeze ${freezeName} (INC-4242, set by kube:incident-commander)`);
    expect(JSON.stringify(reply.blocks)).toContain('add --break-glass to go through it now');
  });

  it('break-glass is refused for one person, done with two, names the freeze and is audited', async () => {
    const plan = await slash(`upgrade ${namespace}/unicorn 2.0.0 --break-glass --reason hotfix for INC-4242`);
    expect(JSON.stringify(plan.blocks)).toContain(`BREAK-GLASS through freeze ${freezeName}`);
    const mark = slack.calls().length;
    const confirmed = await click('release_confirm', button(plan, 'release_confirm')!.value);
    expect(confirmed.text).toMatch(/Waiting for a second authorized person/);
    const request = slack
      .calls()
      .slice(mark)
      .find((c) => c.method === 'chat.postMessage')!;
    const approve = button(request.params, 'release_approve')!;

    // One person is not enough: Alice cannot approve her own break-glass.
    const self = await click('release_approve', approve.value, 'UALICE');
    expect(self.text).toMatch(/^Refused: you asked for this upgrade; a second, different person must approve it/);
    expect((await get()).spec.chart.version).toBe('1.0.0');
    expect((await eventsOf('ActionRefused')).length).toBe(1);
    expect(await servedColor(kubeConfig, namespace, 'unicorn')).toBe('pink');

    const approvedMark = slack.calls().length;
    const bob = await click('release_approve', approve.value, 'UBOB');
    expect(bob.text).toMatch(/^Approved/);
    // The reply comes first; the bot then posts its audit message and writes the change.
    const release = await eventually(async () => {
      const written = await get();
      expect(written.spec.chart.version).toBe('2.0.0');
      return written;
    });
    expect(readBreakGlass(release.metadata.annotations)).toMatchObject({
      freezes: [freezeName],
      generation: release.metadata.generation,
      by: 'slack:UALICE',
      approvedBy: 'slack:UBOB',
    });
    const done = await waitForReconciled(kubeConfig, namespace, 'unicorn', release.metadata.generation!, 60_000);
    expect(done.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True', reason: 'UpgradeSucceeded' });
    expect(await servedColor(kubeConfig, namespace, 'unicorn')).toBe('blue');

    const audit = await eventually(async () => {
      const [recorded] = await eventsOf('ActionRequested');
      expect(recorded).toBeDefined();
      return recorded;
    });
    expect(audit?.message).toBe(
      `slack:UALICE in ${channel} asked for the upgrade of ${namespace}/unicorn to 2.0.0 (BREAK-GLASS through freeze ${freezeName}, approved by slack:UBOB): hotfix for INC-4242`,
    );
    const update = await pollUntil(
      async () =>
        slack
          .calls()
          .slice(approvedMark)
          .find((c) => c.method === 'chat.update' && /:white_check_mark:|:x:/.test(String(c.params.text))),
      { timeoutMs: 60_000 },
      () => 'no outcome posted in the channel',
    );
    expect(String(update.params.text)).toContain(`BREAK-GLASS through freeze ${freezeName}`);
    expect(String(update.params.text)).toMatch(/approved by <@UBOB>/);
  });

  it('the glass is broken for that change only: the next spec change is held again', async () => {
    const generation = await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'unicorn', spec('3.0.0')));
    const frozen = await pollUntil(
      async () => {
        const condition = (await get()).status?.conditions?.find((c) => c.type === 'Frozen');
        return condition?.status === 'True' && condition.observedGeneration === generation ? condition : undefined;
      },
      { timeoutMs: 30_000 },
      () => 'the next change was not held',
    );
    expect(frozen.message).toContain(freezeName);
    expect((await get()).metadata.annotations?.[BREAK_GLASS_ANNOTATION]).toBeDefined();
    expect(await servedColor(kubeConfig, namespace, 'unicorn')).toBe('blue');
    expect(await ctl.helm.count('upgrade')).toBe(1);
  });

  it("freeze and unfreeze from Slack: the freeze's own message then says what it held and what happened", async () => {
    const plan = await slash(`freeze ${namespace} --reason "change window in ${namespace}"`);
    await click('release_confirm', button(plan, 'release_confirm')!.value);
    const name = await pollUntil(
      async () => (await freezes.list()).items.find((f) => f.spec.reason === `change window in ${namespace}`)?.metadata.name,
      { timeoutMs: 10_000 },
      () => 'the freeze was not created',
    );
    const posted = slack.messages(channel).find((m) => m.text.includes(`(${name})`))!;
    await freezes.delete(freezeName); // only the chat freeze holds it now
    const list = await slash('freezes');
    expect(list.text).toContain(`${name}  ACTIVE  namespace ${namespace} until lifted by slack:UALICE: change window in ${namespace}`);

    const lift = await slash(`unfreeze ${name}`, 'UBOB');
    expect(JSON.stringify(lift.blocks)).toContain(`the controller goes on with 1 held release at once: ${namespace}/unicorn`);
    await click('release_confirm', button(lift, 'release_confirm')!.value, 'UBOB');
    const updated = await pollUntil(
      async () => slack.messages(channel).find((m) => m.ts === posted.ts && m.text.startsWith(':unlock:')),
      { timeoutMs: 60_000 },
      () => "the freeze's message was never updated",
    );
    expect(updated.text).toMatch(
      new RegExp(
        `^:unlock: Freeze ${name} \\(change window in ${namespace}, set by slack:UALICE\\) lifted by <@UBOB>\nIt held, and then:\n:white_check_mark: ${namespace}/unicorn: `,
      ),
    );
    expect(await servedColor(kubeConfig, namespace, 'unicorn')).toBe('green');
  });
});
