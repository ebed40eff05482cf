import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { API_GROUP, API_VERSION, TEAM_PLURAL } from '../../src/api/vocabulary.js';
import { startBot, type RunningBot } from '../../src/bot/slack/app.js';
import { readBotConfig } from '../../src/bot/slack/config.js';
import { makeKubeClients, mergePatch } from '../../src/core/kube/client.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { applyHelmRelease, helmReleaseObject, servedColor, waitForReconciled } from '../../src/dev/releases.js';
import { freePort } from '../../src/dev/free-port.js';
import { createLogger } from '../../src/core/log.js';
import { buttonClick, postSigned, slashCommand, startFakeSlack, type FakeSlack } from '../../src/dev/fake-slack/index.js';
import { createTeam, deleteTeam } from '../../src/dev/harness/index.js';
import { namespaceWithController, testEnv, uniqueName } from '../support/fixtures.js';
import { auditEntriesSince, auditLogEnd } from '../support/audit-log.js';
import { eventually } from '../support/eventually.js';
import { statePaths } from '../../src/dev/paths.js';

/**
 * Issue 7 through Slack: real Bolt in HTTP mode, real signed requests, the local fake Slack,
 * the real cluster, Redis and helm. Alice and Bob are on-call (Bob through a user group);
 * Mallory is in no Team. The release `vault` has the two-person rule.
 */
describe('/release in Slack (HTTP mode, signed requests)', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const api = new HelmReleaseApi(kube);
  const auditLog = statePaths(env.stateDir).auditLog;
  const { namespace, ctl } = namespaceWithController('slack');
  const secret = 'test-signing-secret';
  const token = 'xoxb-test-token';
  const channel = 'C0INCIDENT';
  const team = uniqueName('oncall');
  let slack: FakeSlack;
  let bot: RunningBot;
  let events: string;

  beforeAll(async () => {
    slack = await startFakeSlack({
      tokens: [token],
      users: ['UALICE', 'UBOB', 'UMALLORY'].map((id) => ({ id, name: id.slice(1).toLowerCase() })),
      channels: [{ id: channel, name: 'incident' }],
      userGroups: { S0ONCALL: ['UBOB'] },
    });
    await createTeam(kube, team, {
      members: { slackUsers: ['UALICE'], slackUserGroups: ['S0ONCALL'] },
      permissions: [
        { namespaces: [namespace], releases: ['unicorn'], verbs: ['status', 'history', 'diff', 'suspend', 'resume', 'upgrade', 'rollback'] },
        { namespaces: [namespace], releases: ['vault'], verbs: ['status', 'suspend', 'resume'], requireApproval: true },
      ],
    });
    const port = await freePort();
    const config = readBotConfig({
      SLACK_BOT_TOKEN: token,
      SLACK_SIGNING_SECRET: secret,
      SLACK_API_URL: slack.apiUrl,
      PORT: String(port),
      REDIS_URL: env.redisUrl,
      KUBECONFIG: env.kubeconfig,
      // The controller's prefix: plans ask it what a change would do (core/preview).
      HELMCREW_QUEUE_PREFIX: ctl.prefix,
      HELMCREW_PLAN_TTL_SECONDS: '3',
      // Answers and plans about a release link to its web page.
      HELMCREW_WEB_URL: 'https://helmcrew.example.org/',
    });
    bot = await startBot(config, createLogger('bot', process.env.LOG_LEVEL ?? 'warn'));
    events = `http://127.0.0.1:${bot.port}/slack/events`;
    for (const [name, version] of [
      ['unicorn', '1.0.0'],
      ['unicorn', '2.0.0'],
      ['vault', '1.0.0'],
    ] as const) {
      const generation = await applyHelmRelease(
        kubeConfig,
        helmReleaseObject(namespace, name, { chart: { repository: env.chartRepoUrl, name: 'unicorn', version }, timeout: '90s', interval: '1s' }),
      );
      await waitForReconciled(kubeConfig, namespace, name, generation);
    }
  });
  afterAll(async () => {
    await bot?.stop();
    await slack?.stop();
    await deleteTeam(kube, team);
  });

  const send = (form: Record<string, string>, opts: { timestamp?: number; signature?: string } = {}) => postSigned(events, form, { secret, ...opts });
  /** Sends a slash command; returns the ack and the first reply on its response_url. */
  const slash = async (text: string, user = 'UALICE') => {
    const request = slashCommand(slack, text, user, channel);
    const ack = await send(request.form);
    return { ack, reply: await replyOn(request.responseUrl) };
  };
  const click = async (actionId: string, value: string, user = 'UALICE') => {
    const request = buttonClick(slack, actionId, value, user, channel);
    const ack = await send(request.form);
    return { ack, reply: await replyOn(request.responseUrl) };
  };
  type Reply = { text: string; blocks?: Array<{ type: string; elements?: Array<{ action_id: string; style?: string; value: string }> }> };
  const replyOn = async (responseUrl: string, timeoutMs = 30_000) => (await slack.replyOn(responseUrl, timeoutMs)) as Reply;
  const confirmButton = (reply: Awaited<ReturnType<typeof replyOn>>) =>
    reply.blocks?.find((b) => b.type === 'actions')?.elements?.find((e) => e.action_id === 'release_confirm');
  /** Waits for the in-channel audit message to be updated with the controller's outcome. */
  const outcomeUpdate = (after: number) =>
    eventually(
      () => {
        const updates = slack
          .calls()
          .slice(after)
          .filter((c) => c.method === 'chat.update')
          .map((c) => String(c.params.text));
        const outcome = updates.find((text) => /:white_check_mark:|:x:/.test(text));
        expect(outcome, `no outcome posted; chat.update since: ${JSON.stringify(updates)}`).toBeDefined();
        return outcome!;
      },
      { timeoutMs: 120_000, intervalMs: 100 },
    );
  const get = async (name = 'unicorn'): Promise<HelmRelease> => (await api.get(namespace, name))!;
  const refusedEvents = async (name: string) =>
    (await kubeConfig.makeApiClient(CoreV1Api).listNamespacedEvent({ namespace, fieldSelector: `involvedObject.name=${name},reason=ActionRefused` })).items;

  it('a forged signature gets 401 and nothing happens', async () => {
    const request = slashCommand(slack, `suspend ${namespace}/unicorn`, 'UALICE', channel);
    const sent = await send(request.form, { signature: 'v0=' + '0'.repeat(64) });
    expect(sent.status).toBe(401);
    await expect(replyOn(request.responseUrl, 1500)).rejects.toThrow(/no reply/);
    expect((await get()).spec.suspend).toBeFalsy();
  });

  it('a correctly signed request older than 5 minutes is rejected', async () => {
    const request = slashCommand(slack, `suspend ${namespace}/unicorn`, 'UALICE', channel);
    const sent = await send(request.form, { timestamp: Math.floor(Date.now() / 1000) - 6 * 60 });
    expect(sent.status).toBe(401);
    await expect(replyOn(request.responseUrl, 1500)).rejects.toThrow(/no reply/);
  });

  it('acks at once; the answer follows on response_url', async () => {
    const { ack, reply } = await slash(`status ${namespace}/unicorn`);
    expect(ack.status).toBe(200);
    expect(ack.ms).toBeLessThan(3000);
    expect(reply.text).toMatch(/chart unicorn 2\.0\.0 declared/);
    expect(reply.text).toContain(`/release status · <https://helmcrew.example.org/releases/-/${namespace}/unicorn|page>`);
  });

  it('a query names its release with its namespace: the bot GETs that one HelmRelease, once, and lists none', async () => {
    const from = await auditLogEnd(auditLog);
    const { reply } = await slash(`history ${namespace}/unicorn`);
    expect(reply.text).toMatch(/unicorn/);
    // Counted by the API server (its audit log): every HelmRelease GET and LIST in this namespace or the whole cluster.
    const own = `/apis/${API_GROUP}/${API_VERSION}/namespaces/${namespace}/helmreleases`;
    const reads = (await auditEntriesSince(auditLog, from))
      .map((e) => e.requestURI.split('?')[0]!)
      .filter((uri) => uri.startsWith(own) || uri === `/apis/${API_GROUP}/${API_VERSION}/helmreleases`);
    expect(reads).toEqual([`${own}/unicorn`]);
  });

  it('a typo is answered with "did you mean"', async () => {
    const { reply } = await slash('rolback unicorn');
    expect(reply.text).toBe('unknown command "rolback" — did you mean "rollback"?');
  });

  it('an unauthorized user is refused and audited; nothing changes', async () => {
    const before = await get();
    const { reply } = await slash(`rollback ${namespace}/unicorn`, 'UMALLORY');
    expect(reply.text).toMatch(/^Refused: you may not rollback .* you are in no Team/);
    expect(confirmButton(reply)).toBeUndefined();
    const after = await get();
    expect(after.metadata.generation).toBe(before.metadata.generation);
    expect(after.metadata.annotations).toEqual(before.metadata.annotations);
    const refused = await refusedEvents('unicorn');
    expect(refused.map((e) => e.message)).toEqual([expect.stringMatching(/^slack:UMALLORY in C0INCIDENT was refused roll back/)]);
  });

  it('/release rollback: plan with a danger Confirm, then blue → pink deployed and suspended, recorded in the channel', async () => {
    const { reply } = await slash(`rollback ${namespace}/unicorn --reason "blue is broken"`);
    expect(reply.text).toBe(`Plan: roll back ${namespace}/unicorn: revision 2 → 1`);
    expect(JSON.stringify(reply.blocks)).toContain(`<https://helmcrew.example.org/releases/-/${namespace}/unicorn|page>`);
    const confirm = confirmButton(reply)!;
    expect(confirm.style).toBe('danger');
    expect(confirm.value).toMatch(/^[A-Za-z0-9_-]{24}$/); // an opaque id, not a command
    const mark = slack.calls().length;
    const clicked = await click('release_confirm', confirm.value);
    expect(clicked.reply.text).toMatch(/^Confirmed/);
    expect(await outcomeUpdate(mark)).toMatch(/<@UALICE> roll back .* — _blue is broken_\n:white_check_mark: .*Rolled back revision 2/);
    // Left suspended: the record offers Resume (the same as typing it: plan, confirm) and Status.
    const recorded = slack
      .okCalls('chat.update')
      .slice(-1)
      .map((c) => (typeof c.params.blocks === 'string' ? JSON.parse(c.params.blocks) : c.params.blocks) as NonNullable<Reply['blocks']>)[0]!;
    expect(recorded.find((b) => b.type === 'actions')?.elements?.map((e) => [e.action_id, e.value])).toEqual([
      ['release_resume', `${namespace}/unicorn`],
      ['release_status', `${namespace}/unicorn`],
    ]);
    expect(
      slack
        .calls()
        .slice(mark)
        .find((c) => c.method === 'chat.postMessage')?.params.channel,
    ).toBe(channel);
    expect(await servedColor(kubeConfig, namespace, 'unicorn')).toBe('pink');
    const release = await get();
    expect(release.spec.suspend).toBe(true);
    expect(release.status?.suspension).toMatchObject({ by: 'slack:UALICE', channel, reason: 'blue is broken' });

    // the same Confirm again: the plan was taken, so nothing runs twice
    const replay = await click('release_confirm', confirm.value);
    expect(replay.reply.text).toMatch(/expired or was already used/);
  });

  it('/release resume (by Bob, through his user group) → back to the spec: blue', async () => {
    const { reply } = await slash(`resume ${namespace}/unicorn`, 'UBOB');
    const mark = slack.calls().length;
    await click('release_confirm', confirmButton(reply)!.value, 'UBOB');
    expect(await outcomeUpdate(mark)).toMatch(/:white_check_mark:/);
    expect(await servedColor(kubeConfig, namespace, 'unicorn')).toBe('blue');
    expect((await get()).spec.suspend).toBe(false);
  });

  it('the Roll back button of a failure notification does the same after confirmation', async () => {
    const { reply } = await click('release_rollback', `${namespace}/unicorn`);
    expect(reply.text).toMatch(/^Plan: roll back .*: revision 4 → 3/);
    const mark = slack.calls().length;
    await click('release_confirm', confirmButton(reply)!.value);
    expect(await outcomeUpdate(mark)).toMatch(/:white_check_mark:/);
    expect(await servedColor(kubeConfig, namespace, 'unicorn')).toBe('pink');
    expect((await get()).spec.suspend).toBe(true);
  });

  it('a Confirm clicked after the plan expired is refused; nothing changes', async () => {
    const { reply } = await slash(`resume ${namespace}/unicorn`);
    const before = await get();
    await new Promise((resolve) => setTimeout(resolve, 4000)); // plan TTL is 3 s here
    const late = await click('release_confirm', confirmButton(reply)!.value);
    expect(late.reply.text).toMatch(/expired or was already used/);
    expect((await get()).metadata.generation).toBe(before.metadata.generation);
  });

  it('two-person rule: Alice cannot approve her own request, Bob can', async () => {
    const { reply } = await slash(`suspend ${namespace}/vault --reason audit`);
    expect(JSON.stringify(reply.blocks)).toMatch(/Two-person rule/);
    const mark = slack.calls().length;
    const confirmed = await click('release_confirm', confirmButton(reply)!.value);
    expect(confirmed.reply.text).toMatch(/Waiting for a second authorized person/);
    const request = slack
      .calls()
      .slice(mark)
      .find((c) => c.method === 'chat.postMessage')!;
    const approve = (request.params.blocks as Array<{ type: string; elements?: Array<{ action_id: string; value: string }> }>).find(
      (b) => b.type === 'actions',
    )!.elements![0]!;
    expect(approve.action_id).toBe('release_approve');

    const self = await click('release_approve', approve.value, 'UALICE');
    expect(self.reply.text).toMatch(/^Refused: you asked for this suspend; a second, different person must approve it/);
    const stranger = await click('release_approve', approve.value, 'UMALLORY');
    expect(stranger.reply.text).toMatch(/^Refused: you may not approve suspend/);
    expect((await get('vault')).spec.suspend).toBeFalsy();
    expect((await refusedEvents('vault')).length).toBe(2);

    const approvedMark = slack.calls().length;
    const bob = await click('release_approve', approve.value, 'UBOB');
    expect(bob.reply.text).toMatch(/^Approved/);
    expect(await outcomeUpdate(approvedMark)).toMatch(/\(approved by <@UBOB>\).*\n:white_check_mark:/s);
    expect((await get('vault')).spec.suspend).toBe(true);
  });

  it('Confirm checks authorization again: removed from the Team after the plan → refused, nothing changes', async () => {
    const { reply } = await slash(`status ${namespace}/unicorn`);
    expect(reply.text).toMatch(/declared, SUSPENDED/);
    const plan = await slash(`resume ${namespace}/unicorn`);
    const before = await get();
    await kube.custom.patchClusterCustomObject(
      {
        group: API_GROUP,
        version: API_VERSION,
        plural: TEAM_PLURAL,
        name: team,
        body: { spec: { members: { slackUsers: [], slackUserGroups: ['S0ONCALL'] } } },
      },
      mergePatch,
    );
    const late = await click('release_confirm', confirmButton(plan.reply)!.value);
    // Teams are cluster-wide and other files' Teams may hold UALICE too (for their own namespaces):
    // refused either as in no Team or as in none that grants it, never through this Team.
    expect(late.reply.text).toMatch(/^Refused: you may not resume .*(you are in no Team|none of your Teams \([^)]*\) grants "resume")/);
    expect(late.reply.text).not.toContain(team);
    expect((await get()).metadata.generation).toBe(before.metadata.generation);
  });

  it('the controller is unaffected by the bot: still one worker per release', async () => {
    expect(await ctl.helm.count('rollback')).toBe(2);
  });
});
