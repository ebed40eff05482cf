import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePorts } from '../../src/dev/free-port.js';
import { sample, scrape } from '../support/scrape.js';
import { startBot, type RunningBot } from '../../src/bot/slack/app.js';
import { readBotConfig } from '../../src/bot/slack/config.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { applyHelmRelease, helmReleaseObject } from '../../src/dev/releases.js';
import { createLogger } from '../../src/core/log.js';
import { buttonClick, FAKE_APP, FAKE_APP_ID, slashCommand, startFakeSlack, type FakeSlack } from '../../src/dev/fake-slack/index.js';
import { createTeam, deleteTeam } from '../../src/dev/harness/index.js';
import { deleteNamespace, freshNamespace, testEnv, uniqueName } from '../support/fixtures.js';
import { eventually } from '../support/eventually.js';

/**
 * Issue 7, Socket Mode: the real @slack/socket-mode client inside Bolt connects to a local
 * WebSocket server speaking Slack's envelope protocol (the local fake Slack: apps.connections.open,
 * hello, envelopes, acks). No controller runs here: these check the transport and that the
 * intent reaches the API server.
 */
describe('/release in Slack (Socket Mode)', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const api = new HelmReleaseApi(kube);
  const team = uniqueName('socket');
  let namespace: string;
  let slack: FakeSlack;
  let bot: RunningBot;
  let healthPort: number;

  beforeAll(async () => {
    namespace = await freshNamespace(kubeConfig, 'sock');
    await applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, 'unicorn', { chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' }, suspend: true }),
    );
    await createTeam(kube, team, { members: { slackUsers: ['UALICE'] }, permissions: [{ namespaces: [namespace], verbs: ['status', 'suspend', 'resume'] }] });
    healthPort = (await freePorts(1))[0] ?? 0;
    slack = await startFakeSlack({
      tokens: ['xoxb-socket'],
      appTokens: ['xapp-socket'],
      users: [{ id: 'UALICE', name: 'alice' }],
      channels: [{ id: 'C0SOCK', name: 'sock' }],
    });
    const config = readBotConfig({
      SLACK_BOT_TOKEN: 'xoxb-socket',
      SLACK_APP_TOKEN: 'xapp-socket',
      SLACK_API_URL: slack.apiUrl,
      REDIS_URL: env.redisUrl,
      KUBECONFIG: env.kubeconfig,
      HELMCREW_QUEUE_PREFIX: uniqueName('hc-sock'),
      HELMCREW_OUTCOME_TIMEOUT_SECONDS: '1',
      // No controller here: a plan's object diff is not answered, and the plan says so.
      HELMCREW_PREVIEW_TIMEOUT_SECONDS: '1',
      HEALTH_PORT: String(healthPort),
    });
    bot = await startBot(config, createLogger('bot', process.env.LOG_LEVEL ?? 'warn'));
    await slack.socketConnected();
  });
  afterAll(async () => {
    await bot?.stop();
    await slack?.stop();
    await deleteTeam(kube, team);
    if (namespace) await deleteNamespace(kubeConfig, namespace);
  });

  const replyOn = async (responseUrl: string) =>
    (await slack.replyOn(responseUrl)) as { text: string; blocks?: Array<{ type: string; elements?: Array<{ action_id: string; value: string }> }> };

  it('a token Slack does not accept stops start-up with one line naming it', async () => {
    const config = readBotConfig({
      SLACK_BOT_TOKEN: 'xoxb-wrong',
      SLACK_APP_TOKEN: 'xapp-socket',
      SLACK_API_URL: slack.apiUrl,
      REDIS_URL: env.redisUrl,
      KUBECONFIG: env.kubeconfig,
    });
    await expect(startBot(config, createLogger('bot', 'silent'))).rejects.toThrow(/^SLACK_BOT_TOKEN was not accepted by the Slack Web API: invalid_auth$/);
  });

  it('connects through apps.connections.open with the app token', () => {
    expect(bot.mode).toBe('socket');
    expect(slack.okCalls('apps.connections.open')).not.toHaveLength(0);
  });

  it('a slash command envelope is acked at once and answered on response_url', async () => {
    const command = slashCommand(slack, `status ${namespace}/unicorn`, 'UALICE', 'C0SOCK');
    const ack = await slack.sendEnvelope('slash_commands', command.form);
    expect(ack.ms).toBeLessThan(3000);
    expect((await replyOn(command.responseUrl)).text).toMatch(/chart unicorn 1\.0\.0 declared, SUSPENDED/);
  });

  it('whoami says who you are and which Teams you are in', async () => {
    const command = slashCommand(slack, 'whoami', 'UALICE', 'C0SOCK');
    await slack.sendEnvelope('slash_commands', command.form);
    expect((await replyOn(command.responseUrl)).text).toBe(`you are <@UALICE> (UALICE)\nuser groups: none\nteams: ${team}`);
  });

  it('plan and Confirm over the socket write the intent to the API server', async () => {
    const command = slashCommand(slack, `resume ${namespace}/unicorn`, 'UALICE', 'C0SOCK');
    await slack.sendEnvelope('slash_commands', command.form);
    const plan = await replyOn(command.responseUrl);
    expect(JSON.stringify(plan.blocks)).toMatch(/what would change is unknown: no controller answered within 1 s/);
    const planId = plan.blocks!.find((b) => b.type === 'actions')!.elements!.find((e) => e.action_id === 'release_confirm')!.value;
    const click = buttonClick(slack, 'release_confirm', planId, 'UALICE', 'C0SOCK');
    const ack = await slack.sendEnvelope('interactive', click.payload);
    expect(ack.ms).toBeLessThan(3000);
    expect((await replyOn(click.responseUrl)).text).toMatch(/^Confirmed: resume/);
    await eventually(async () => expect((await api.get(namespace, 'unicorn'))?.spec.suspend).toBe(false), { timeoutMs: 10_000, intervalMs: 100 });
    expect(slack.okCalls('chat.postMessage').find((c) => c.params.channel === 'C0SOCK')?.params.text).toMatch(/<@UALICE> resume/);
  });

  it('an @-mention (threads have no slash commands) is answered ephemerally', async () => {
    const ack = await slack.sendEnvelope('events_api', {
      token: 'legacy-unused',
      team_id: FAKE_APP.teamId,
      api_app_id: FAKE_APP_ID,
      type: 'event_callback',
      event_id: 'Ev1',
      event_time: Math.floor(Date.now() / 1000),
      authorizations: [{ team_id: FAKE_APP.teamId, user_id: FAKE_APP.userId, is_bot: true }],
      event: {
        type: 'app_mention',
        user: 'UALICE',
        text: `<@${FAKE_APP.userId}> status ${namespace}/unicorn`,
        ts: '1.5',
        channel: 'C0SOCK',
        thread_ts: '1.1',
        event_ts: '1.5',
      },
    });
    expect(ack.envelope_id).toBeTruthy();
    const ephemeral = await eventually(
      () => {
        const posted = slack.okCalls('chat.postEphemeral')[0];
        expect(posted?.params).toMatchObject({ channel: 'C0SOCK', user: 'UALICE', thread_ts: '1.1' });
        return posted!;
      },
      { timeoutMs: 10_000, intervalMs: 50 },
    );
    expect(String(ephemeral.params.text)).toMatch(/chart unicorn 1\.0\.0 declared/);
  });

  it('serves its own /metrics: commands by verb, outcome and way in, ack times; /readyz with the socket open', async () => {
    const ready = await fetch(`http://127.0.0.1:${healthPort}/readyz`);
    expect([ready.status, await ready.text()]).toEqual([200, 'ok']);
    // The Confirm's work goes on after its reply: it waits for the controller's outcome (1 s here).
    const confirmed = { verb: 'confirm', via: 'button', outcome: 'handled' };
    const scraped = await eventually(
      async () => {
        const found = await scrape(healthPort);
        expect(sample(found, 'helmcrew_bot_commands_total', confirmed)).toBeGreaterThan(0);
        return found;
      },
      { timeoutMs: 15_000 },
    );
    expect(scraped.types.get('helmcrew_bot_commands_total')).toBe('counter');
    expect(sample(scraped, 'helmcrew_bot_commands_total', { verb: 'status', via: 'command', outcome: 'handled' })).toBeGreaterThanOrEqual(1);
    expect(sample(scraped, 'helmcrew_bot_commands_total', { verb: 'whoami', via: 'command', outcome: 'handled' })).toBe(1);
    expect(sample(scraped, 'helmcrew_bot_commands_total', confirmed)).toBe(1);
    expect(sample(scraped, 'helmcrew_bot_commands_total', { verb: 'status', via: 'mention' })).toBe(1);
    // Every slash command and button is acked and timed; mentions are events, acked by Bolt.
    expect(sample(scraped, 'helmcrew_bot_ack_duration_seconds_count', { via: 'command' })).toBe(
      sample(scraped, 'helmcrew_bot_commands_total', { via: 'command' }),
    );
    expect(sample(scraped, 'helmcrew_bot_ack_duration_seconds_bucket', { via: 'button', le: '2.5' })).toBe(1);
    for (const series of scraped.series.values()) for (const s of series) expect(Object.keys(s.labels)).not.toContain('user');
  });
});
