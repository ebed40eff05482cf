import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpBot } from '../support/slack-team-bot.js';
import type { RunningBot } from '../../src/bot/slack/app.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { buttonClick, postSigned, slashCommand, startFakeSlack, type FakeSlack } from '../../src/dev/fake-slack/index.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { eventually } from '../support/eventually.js';
import { namespaceWithController, testEnv } from '../support/fixtures.js';
import { createTeam, deleteTeams } from '../support/notify-fixtures.js';
import { spawnNotify } from '../support/notify-process.js';

/**
 * Issue 33, "who started it" and "tell the person who started it", on the real parts: Bolt with
 * signed requests, the controller and a `helmcrew notify` process on one Redis, helm, the fake
 * Slack. Alice rolls back from Slack: the channel's notification names her and the image now
 * deployed, and she gets a direct message with the outcome and a link. Bob turned direct
 * messages off: his resume is named in the channel, and he gets none.
 */
describe('who started it, and telling them', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const { namespace, ctl } = namespaceWithController('who');
  const secret = 'test-signing-secret';
  const token = 'xoxb-test-token';
  const incident = 'C0INCIDENT';
  let slack: FakeSlack;
  let bot: RunningBot;
  let notify: ResultPromise;
  let events: string;

  const declare = (version: string, tag: string) =>
    applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, 'unicorn', {
        chart: { repository: env.chartRepoUrl, name: 'unicorn', version },
        values: { image: { tag } },
        timeout: '90s',
        interval: '1h',
      }),
    );

  beforeAll(async () => {
    slack = await startFakeSlack({
      tokens: [token],
      users: [
        { id: 'UALICE', name: 'alice' },
        { id: 'UBOB', name: 'bob' },
      ],
      channels: [
        { id: incident, name: 'incident' },
        { id: 'C0RELEASES', name: 'releases' },
      ],
    });
    const run = ctl.prefix;
    await createTeam(kube, run, `${run}-web`, {
      members: { slackUsers: ['UALICE', 'UBOB'] },
      permissions: [{ namespaces: [namespace], verbs: ['status', 'rollback', 'resume'] }],
      subscriptions: [{ namespaces: [namespace] }],
      channels: [{ slack: '#releases' }],
    });
    ({ bot, events } = await startHttpBot(slack, { token: token, secret: secret, queuePrefix: run }));
    notify = spawnNotify(env, run, join(await mkdtemp(join(tmpdir(), 'helmcrew-who-')), 'notify.log'), {
      SLACK_BOT_TOKEN: token,
      SLACK_API_URL: slack.apiUrl,
    });
    await waitForReconciled(kubeConfig, namespace, 'unicorn', await declare('1.0.0', '1.26-alpine'));
    await waitForReconciled(kubeConfig, namespace, 'unicorn', await declare('2.0.0', '1.27-alpine'));
  });
  afterAll(async () => {
    await bot?.stop();
    notify?.kill('SIGTERM');
    await notify;
    await slack?.stop();
    await deleteTeams(kube, ctl.prefix);
  });

  type Reply = { blocks?: Array<{ type: string; elements?: Array<{ action_id: string; value: string }> }> };
  const slash = async (text: string, user: string) => {
    const request = slashCommand(slack, text, user, incident);
    expect((await postSigned(events, request.form, { secret })).status).toBe(200);
    return (await slack.replyOn(request.responseUrl, 30_000)) as Reply;
  };
  /** Runs the command and clicks its plan's Confirm, as the user. */
  const confirmed = async (text: string, user: string) => {
    const plan = await slash(text, user);
    const confirm = plan.blocks?.find((b) => b.type === 'actions')?.elements?.find((e) => e.action_id === 'release_confirm');
    expect(confirm, JSON.stringify(plan)).toBeDefined();
    const click = buttonClick(slack, 'release_confirm', confirm!.value, user, incident);
    expect((await postSigned(events, click.form, { secret })).status).toBe(200);
  };
  /** The operation message in #releases for an event, once its fields say who and what. */
  const notification = (title: string, who: string) =>
    eventually(
      () => {
        // Notify's message: its fields sit in an attachment (the colour bar).
        const found = slack.messages('C0RELEASES').find((m) => m.text.includes(title));
        const blocks = JSON.stringify([found?.blocks ?? [], found?.attachments ?? []]);
        expect(blocks, `no "${title}" message naming ${who}: ${JSON.stringify(slack.messages('C0RELEASES').map((m) => m.text))}`).toContain(
          `*Started*\\nby ${who}`,
        );
        return blocks;
      },
      { timeoutMs: 90_000, intervalMs: 200 },
    );
  /** The bot's audit message in the incident channel once it carries the outcome. */
  const auditOutcome = () =>
    eventually(
      () => {
        const audit = slack.messages(incident).find((m) => /:white_check_mark:|:x:/.test(m.text));
        expect(audit, 'no outcome in the audit message').toBeDefined();
        return audit!;
      },
      { timeoutMs: 90_000, intervalMs: 200 },
    );

  it('a rollback from Slack: the channel names Alice and the image deployed; Alice gets the outcome and the link directly', async () => {
    await confirmed(`rollback ${namespace}/unicorn --reason "1.27 breaks checkout"`, 'UALICE');
    const blocks = await notification('Rolled back', '<@UALICE>');
    expect(blocks).toContain('*Images*\\nnginxinc/nginx-unprivileged:1.26-alpine');

    const audit = await auditOutcome();
    const dm = await eventually(
      () => {
        const [message] = slack.messages('DALICE');
        expect(message, 'no direct message to Alice').toBeDefined();
        return message!;
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    const text = JSON.stringify(dm.blocks);
    expect(text).toContain(':white_check_mark: done: roll back');
    expect(text).toContain(`/archives/${incident}/p${audit.ts.replace('.', '')}|the channel's message>`);
    expect(slack.okCalls('conversations.open').map((c) => c.params.users)).toEqual(['UALICE']);
  });

  it('with direct messages turned off, Bob’s resume is named in the channel and he gets none', async () => {
    const off = await slash('notify off', 'UBOB');
    expect(JSON.stringify(off)).toContain('No more direct messages');
    const auditsBefore = slack.messages(incident).length;
    await confirmed(`resume ${namespace}/unicorn`, 'UBOB');
    // The resume goes back to the declared spec: Resumed, then the upgrade to 2.0.0, both Bob's.
    const blocks = await notification('Resumed · Upgraded', '<@UBOB>');
    expect(blocks).toContain('*Images*\\nnginxinc/nginx-unprivileged:1.27-alpine');
    await eventually(
      () =>
        expect(
          slack
            .messages(incident)
            .slice(auditsBefore)
            .some((m) => /:white_check_mark:|:x:/.test(m.text)),
        ).toBe(true),
      { timeoutMs: 90_000, intervalMs: 200 },
    );
    expect(slack.channel('DBOB')).toBeUndefined();
    expect(slack.okCalls('conversations.open').map((c) => c.params.users)).toEqual(['UALICE']);
  });
});
