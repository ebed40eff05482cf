import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CoreV1Api } from '@kubernetes/client-node';
import { WebClient } from '@slack/web-api';
import { execa } from 'execa';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBot } from '../../src/bot/slack/app.js';
import { assistantSlack, mcpDeps } from '../../src/cli/compose/mcp-surface.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { connectKube } from '../../src/core/kube/slim-clients.js';
import { createLogger } from '../../src/core/log.js';
import { SlackUserGroups } from '../../src/core/slack/user-groups.js';
import { buttonClick, postSigned, startFakeSlack, type FakeSlack } from '../../src/dev/fake-slack/index.js';
import { createTeam, deleteTeam } from '../../src/dev/harness/index.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { PlanStore, type StoredPlan } from '../../src/session/execute/plan-store.js';
import { releaseOperations } from '../../src/session/execute/wiring.js';
import { ReleaseSession } from '../../src/session/flow/release-session.js';
import { TokenStore } from '../../src/session/tokens/token-store.js';
import { namespaceWithController, testEnv, uniqueName } from '../support/fixtures.js';
import { listenMcp } from '../support/mcp-server.js';
import type { ChatReply } from '../support/slack-team-bot.js';
import { startHttpBot } from '../support/slack-team-bot.js';

/**
 * An assistant's proposal approved in Slack, on real parts: the SDK's Client over Streamable HTTP
 * on the web server's `/mcp` (a Bearer token from the token store), the bot in HTTP mode taking
 * signed button clicks from the local fake Slack, one Redis keyspace (the plan store both use),
 * the API server and the controller with helm. The Team asks for approval on rollback, so an
 * assistant's proposal takes two people other than the token's. People: Ana (the token's), Ben (by
 * id), Cat (through a Slack user group), Dev (through the email Slack's profile gives), Max (no Team).
 */
describe('assistants (MCP): proposals approved in Slack', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const { namespace, ctl } = namespaceWithController('mcpappr');
  const team = uniqueName('mcpappr');
  const channel = { id: 'C0MCPAPPR', name: 'mcp-approvals' };
  const secret = 'test-signing-secret';
  const botToken = 'xoxb-mcp-approvals';
  const users = { ana: 'UANA4MCP', ben: 'UBEN4MCP', cat: 'UCAT4MCP', dev: 'UDEV4MCP', max: 'UMAX4MCP' };
  let slack: FakeSlack;
  let bot: RunningBot;
  let events: string;
  let web: FastifyInstance;
  let mcpUrl: URL;
  let redis: Redis;
  let tokens: TokenStore;
  const clients: Client[] = [];

  const connect = async (user: string) => {
    const { token } = await tokens.create(user, 'propose', 3_600_000);
    const client = new Client({ name: 'helmcrew-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    clients.push(client);
    return client;
  };
  const textOf = (result: Awaited<ReturnType<Client['callTool']>>) => (result.content as { type: string; text: string }[]).map((c) => c.text).join('\n');
  const click = async (actionId: string, value: string, user: string) => {
    const request = buttonClick(slack, actionId, value, user, channel.id);
    await postSigned(events, request.form, { secret });
    return ((await slack.replyOn(request.responseUrl, 30_000)) as ChatReply).text;
  };
  const release = async () => (await releaseOperations(kube, createLogger('mcp-appr-read', 'warn'), 'helmcrew-test').api.get(namespace, 'unicorn'))!;
  const helmHistory = async () =>
    JSON.parse((await execa(env.helmBin, ['history', 'unicorn', '-n', namespace, '-o', 'json'], { env: { KUBECONFIG: env.kubeconfig } })).stdout) as Array<{
      revision: number;
      description: string;
      app_version?: string;
      chart: string;
      status: string;
    }>;
  /** The channel's message carrying this plan's buttons or its end, as Slack holds it now. */
  const requestMessage = (planId: string) => slack.messages(channel.id).find((m) => m.text.includes(`/plans/${planId}`) && m.text.includes('via an assistant'));

  beforeAll(async () => {
    slack = await startFakeSlack({
      tokens: [botToken],
      users: Object.values(users).map((id) => ({ id, name: id.toLowerCase() })),
      channels: [channel],
      userGroups: { S0MCPAPPR: [users.cat] },
    });
    await createTeam(kube, team, {
      members: { slackUsers: [users.ana, users.ben], slackUserGroups: ['S0MCPAPPR'], emails: [`${users.dev.toLowerCase()}@example.org`] },
      channels: [{ slack: channel.id }],
      permissions: [{ namespaces: [namespace], verbs: ['status', 'history', 'rollback'], requireApproval: true }],
    });
    for (const version of ['1.0.0', '2.0.0']) {
      const generation = await applyHelmRelease(
        kubeConfig,
        helmReleaseObject(namespace, 'unicorn', { chart: { repository: env.chartRepoUrl, name: 'unicorn', version }, interval: '1h' }),
      );
      await waitForReconciled(kubeConfig, namespace, 'unicorn', generation);
    }
    // The bot on the controller's keyspace (HELMCREW_CLUSTER_NAME unset: the queue prefix), where the assistant's plans are kept too.
    ({ bot, events } = await startHttpBot(slack, { token: botToken, secret, queuePrefix: ctl.prefix, env: { HELMCREW_WEB_URL: 'http://127.0.0.1:8080' } }));
    redis = new Redis(env.redisUrl, { maxRetriesPerRequest: null });
    tokens = new TokenStore(redis, ctl.prefix);
    const log = createLogger('mcp-appr', process.env.LOG_LEVEL ?? 'warn');
    const parts = releaseOperations(kube, log, 'helmcrew-mcp-test');
    const session = new ReleaseSession({ ...parts, outcomeTimeoutMs: 30_000 });
    // Slack as `helmcrew web` reaches it: the bot's token through a WebClient (SLACK_API_URL: the fake).
    const webClient = new WebClient(botToken, { slackApiUrl: slack.apiUrl });
    const deps = mcpDeps({
      rest: connectKube(env.kubeconfig),
      redis,
      keyspace: ctl.prefix,
      session,
      api: parts.api,
      webUrl: 'http://127.0.0.1:8080',
      log,
      slack: assistantSlack(webClient, new SlackUserGroups(webClient)),
    });
    ({ web, mcpUrl } = await listenMcp(env, kube, redis, ctl.prefix, deps, log));
  });
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await web?.close();
    await bot?.stop();
    await slack?.stop();
    redis?.disconnect();
    await deleteTeam(kube, team);
  });

  it("Ana's assistant proposes a rollback: nothing changes, the Team's channel is asked; Ana may not approve; Ben and Cat do, and helm rolls back", async () => {
    const assistant = await connect(users.ana);
    const proposed = await assistant.callTool({
      name: 'propose_change',
      arguments: { verb: 'rollback', namespace, name: 'unicorn', reason: 'pink was fine' },
    });
    expect(proposed.isError, textOf(proposed)).toBeFalsy();
    const { planId, approvalsNeeded, slackChannels } = proposed.structuredContent as { planId: string; approvalsNeeded: number; slackChannels: string[] };
    expect(approvalsNeeded).toBe(2);
    expect(slackChannels).toEqual([channel.id]);
    expect(textOf(proposed)).toContain('waiting for the approval of 2 other people');
    const before = await release();
    expect(before.metadata.annotations?.['helmcrew.dev/rollback-request']).toBeUndefined();
    const revisionsBefore = (await helmHistory()).length;

    // The request in the Team's channel: who proposed it and how, its page, Approve and Cancel for this plan.
    const posted = requestMessage(planId)!;
    expect(posted.text).toContain(`Proposed by <@${users.ana}> via an assistant`);
    expect(posted.text).toContain(`<http://127.0.0.1:8080/plans/${planId}|The plan on the web>`);
    expect(posted.text).toContain('pink was fine');
    const buttons = (posted.blocks as Array<{ type: string; elements?: Array<{ action_id: string; value: string }> }>).find(
      (b) => b.type === 'actions',
    )!.elements!;
    expect(buttons.map((b) => [b.action_id, b.value])).toEqual([
      ['release_approve', planId],
      ['release_cancel', planId],
    ]);

    // Ana's own click (the token's person) and Max's (no Team) are refused; Ben's counts, one more needed.
    expect(await click('release_approve', planId, users.ana)).toMatch(/^Refused: you asked for this rollback; a second, different person must approve it/);
    expect(await click('release_approve', planId, users.max)).toMatch(/^Refused: you may not approve rollback/);
    expect(await click('release_approve', planId, users.ben)).toMatch(/^Approval counted: .*It needs 1 more, from other people/);
    expect(await click('release_approve', planId, users.ben)).toMatch(/^Refused: you approved this rollback already/);
    expect(requestMessage(planId)!.text).toContain(`Approved so far by <@${users.ben}>`);
    expect((await release()).metadata.annotations?.['helmcrew.dev/rollback-request']).toBeUndefined();

    // Cat, in the Team through a Slack user group, makes it two: the rollback is written as Ana's, via an assistant.
    expect(await click('release_approve', planId, users.cat)).toMatch(/^Approved: /);
    // The bot answers the click first, then writes the intent.
    await expect.poll(async () => (await release()).metadata.annotations?.['helmcrew.dev/rollback-request'], { timeout: 30_000 }).toMatch(/^rb-/);
    const requestId = (await release()).metadata.annotations?.['helmcrew.dev/rollback-request'];
    await expect.poll(async () => (await release()).status?.rollback, { timeout: 90_000, interval: 500 }).toMatchObject({ requestId, succeeded: true });
    const history = await helmHistory();
    expect(history.length).toBe(revisionsBefore + 1);
    expect(history.at(-1)!.description).toMatch(/Rollback to 1/);
    expect(history.at(-1)!.chart).toBe('unicorn-1.0.0');

    const audit = await kubeConfig.makeApiClient(CoreV1Api).listNamespacedEvent({ namespace, fieldSelector: 'involvedObject.name=unicorn' });
    expect(audit.items.map((e) => e.message)).toContainEqual(
      expect.stringMatching(new RegExp(`^slack:${users.ana} via an assistant asked for the rollback of ${namespace}/unicorn.*: pink was fine`)),
    );
    // The request says it was approved, without buttons; the channel's record names both approvers and the outcome.
    const ended = requestMessage(planId)!;
    expect(ended.text).toContain(`Approved by <@${users.ben}>, <@${users.cat}>`);
    expect((ended.blocks as Array<{ type: string }>).some((b) => b.type === 'actions')).toBe(false);
    await expect
      .poll(() => slack.messages(channel.id).find((m) => m.text.includes(`(approved by <@${users.ben}>, <@${users.cat}>)`))?.text, { timeout: 30_000 })
      .toMatch(/:white_check_mark:/);
    // A late click finds it used.
    expect(await click('release_approve', planId, users.dev)).toMatch(/expired or was already used/);
  });

  it("a token's person is matched by Slack user group and by profile email, as in chat; someone in neither is refused", async () => {
    const cat = await connect(users.cat);
    const status = await cat.callTool({ name: 'release_status', arguments: { namespace, name: 'unicorn' } });
    expect(status.isError, textOf(status)).toBeFalsy();
    expect(textOf(status)).toContain(`${namespace}/unicorn: chart unicorn`);
    const dev = await connect(users.dev);
    const byEmail = await dev.callTool({ name: 'release_history', arguments: { namespace, name: 'unicorn' } });
    expect(byEmail.isError, textOf(byEmail)).toBeFalsy();
    const max = await connect(users.max);
    const refused = await max.callTool({ name: 'release_status', arguments: { namespace, name: 'unicorn' } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/^you may not status .*you are in no Team/);
  });

  it("Cat's assistant proposes through her user group; she withdraws it with Cancel, and nobody can approve it after", async () => {
    const assistant = await connect(users.cat);
    const proposed = await assistant.callTool({ name: 'propose_change', arguments: { verb: 'rollback', namespace, name: 'unicorn', reason: 'try again' } });
    expect(proposed.isError, textOf(proposed)).toBeFalsy();
    const { planId } = proposed.structuredContent as { planId: string };
    expect(requestMessage(planId)!.text).toContain(`Proposed by <@${users.cat}> via an assistant`);
    expect(await click('release_cancel', planId, users.ben)).toMatch(/only the person who asked can cancel/);
    expect(await click('release_cancel', planId, users.cat)).toBe('Cancelled; nothing changed.');
    expect(requestMessage(planId)!.text).toContain(`Cancelled by <@${users.cat}>`);
    expect(await click('release_approve', planId, users.ben)).toMatch(/expired or was already used/);
  });

  it('the plan store counts approvals made at the same moment without losing one, and keeps the expiry', async () => {
    const plans = new PlanStore(redis, ctl.prefix, 600);
    const stored = {
      action: {},
      requester: { slackUser: users.ana, channel: '' },
      awaitingApproval: true,
      approvals: { needed: 9, by: [] },
    } as unknown as StoredPlan;
    const id = await plans.put(stored);
    const people = ['slack:U1', 'slack:U2', 'slack:U3', 'slack:U4', 'slack:U5', 'slack:U6'];
    await Promise.all(people.map((person) => plans.update(id, (plan) => ({ ...plan, approvals: { needed: 9, by: [...(plan.approvals?.by ?? []), person] } }))));
    expect([...((await plans.peek(id))?.approvals?.by ?? [])].sort()).toEqual(people);
    expect(await redis.ttl(`${ctl.prefix}:bot:plan:${id}`)).toBeGreaterThan(590);
    expect(await plans.update('no-such-plan', (plan) => plan)).toBeUndefined();
  });
});
