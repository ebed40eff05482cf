import { readFile } from 'node:fs/promises';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBot, type RunningBot } from '../../src/bot/slack/app.js';
import { readBotConfig } from '../../src/bot/slack/config.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { createLogger } from '../../src/core/log.js';
import { buttonClick, postSigned, slashCommand, startFakeSlack, type FakeSlack } from '../../src/dev/fake-slack/index.js';
import { freePort } from '../../src/dev/free-port.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { createTeam, deleteTeam } from '../../src/dev/harness/index.js';
import { namespaceWithController, testEnv, uniqueName } from '../support/fixtures.js';
import { PLANNER, startPlannerRepo, type PlannerRepo } from '../support/planner-chart.js';
import { eventually } from '../support/eventually.js';

/**
 * `/release` beyond rollback, request → reply blocks through real Bolt and signed requests:
 * list, history and diff answered; an upgrade planned with the objects it would change (the
 * controller renders the new version as the release's identity, nothing written), confirmed and
 * carried out; the JSON audit line written. The `planner` chart's 2.0.0 adds a Service, changes
 * the Deployment's image and a Secret's password, which no reply may show.
 */
describe('/release list, history, diff and upgrade in Slack, with the objects a change touches', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const api = new HelmReleaseApi(kube);
  const { namespace, ctl } = namespaceWithController('chat');
  const secret = 'chat-signing-secret';
  const token = 'xoxb-chat-token';
  const channel = 'C0CHAT';
  const team = uniqueName('chatters');
  let slack: FakeSlack;
  let bot: RunningBot;
  let repo: PlannerRepo;
  let events: string;
  let botLog: string;

  beforeAll(async () => {
    repo = await startPlannerRepo(env.helmBin);
    slack = await startFakeSlack({ tokens: [token], users: [{ id: 'UALICE', name: 'alice' }], channels: [{ id: channel, name: 'chat' }] });
    await createTeam(kube, team, {
      members: { slackUsers: ['UALICE'] },
      permissions: [{ namespaces: [namespace], verbs: ['list', 'status', 'history', 'diff', 'upgrade'] }],
    });
    botLog = join(await mkdtemp(join(tmpdir(), 'helmcrew-chat-')), 'bot.log');
    const config = readBotConfig({
      SLACK_BOT_TOKEN: token,
      SLACK_SIGNING_SECRET: secret,
      SLACK_API_URL: slack.apiUrl,
      PORT: String(await freePort()),
      REDIS_URL: env.redisUrl,
      KUBECONFIG: env.kubeconfig,
      HELMCREW_QUEUE_PREFIX: ctl.prefix,
    });
    bot = await startBot(config, createLogger('bot', 'info', botLog));
    events = `http://127.0.0.1:${bot.port}/slack/events`;
    const generation = await applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, 'planner', { chart: { repository: repo.url, name: PLANNER.name, version: PLANNER.from }, timeout: '60s', interval: '1m' }),
    );
    await waitForReconciled(kubeConfig, namespace, 'planner', generation);
  });
  afterAll(async () => {
    await bot?.stop();
    await slack?.stop();
    await repo?.close();
    await deleteTeam(kube, team);
  });

  type Block = { type: string; text?: { text: string }; elements?: Array<{ action_id: string; value: string }> };
  type Reply = { text: string; blocks?: Block[] };
  const slash = async (text: string) => {
    const request = slashCommand(slack, text, 'UALICE', channel);
    expect((await postSigned(events, request.form, { secret })).status).toBe(200);
    return (await slack.replyOn(request.responseUrl, 60_000)) as Reply;
  };
  const blockText = (reply: Reply) => (reply.blocks ?? []).map((b) => b.text?.text ?? '').join('\n');
  const waitForOutcome = () =>
    eventually(
      () => {
        const updates = slack.okCalls('chat.update');
        const update = updates.find((c) => /:white_check_mark:|:x:/.test(String(c.params.text)));
        expect(update, `no outcome posted; chat.update so far: ${JSON.stringify(updates.map((c) => c.params.text))}`).toBeDefined();
        // The Web API client sends blocks as a JSON string in a form body.
        const raw = update!.params.blocks;
        const blocks = (typeof raw === 'string' ? JSON.parse(raw) : raw) as Block[];
        const buttons = (blocks.find((b) => b.type === 'actions')?.elements ?? []).map((e) => [e.action_id, e.value]);
        return { text: String(update!.params.text), buttons };
      },
      { timeoutMs: 120_000, intervalMs: 100 },
    );
  const noSecretIn = (text: string) => {
    for (const password of PLANNER.passwords) expect(text).not.toContain(password);
    expect(text).not.toMatch(/stringData|password/);
  };

  it('list answers with the release, its chart and readiness', async () => {
    const reply = await slash(`list ${namespace}`);
    expect(reply.text).toMatch(/^\/release list/);
    expect(blockText(reply)).toContain(`${namespace}/planner  planner 1.0.0  ready=True`);
  });

  it('history answers with the deployed revision', async () => {
    const reply = await slash(`history ${namespace}/planner`);
    expect(blockText(reply)).toMatch(/revisions, newest first:\n\s+1\s+deployed\s+planner 1\.0\.0/);
  });

  it("diff against a version shows the objects it would add and change, never a Secret's contents", async () => {
    const reply = await slash(`diff ${namespace}/planner ${PLANNER.to}`);
    const text = blockText(reply);
    expect(text).toContain('chart 1.0.0 → 2.0.0');
    expect(text).toContain('revision 1 (planner 1.0.0) → planner 2.0.0:');
    expect(text).toContain('objects: 1 added, 2 changed');
    expect(text).toContain('+ Service planner');
    expect(text).toContain('~ Deployment planner\n');
    expect(text).toContain('  spec.template.spec.containers[name=web].image: nginx:1.26 → nginx:1.27');
    expect(text).toContain('~ Secret planner-credentials: contents changed (not shown)');
    noSecretIn(text);
  });

  it('diff of the spec as declared: nothing would change', async () => {
    const text = blockText(await slash(`diff ${namespace}/planner`));
    expect(text).toContain('objects: no change');
  });

  it('upgrade: the plan shows the same objects, nothing is written until Confirm; then 2.0.0 is deployed and the JSON audit line is written', async () => {
    const before = (await api.get(namespace, 'planner'))!;
    const plan = await slash(`upgrade ${namespace}/planner ${PLANNER.to} --reason "new image"`);
    const text = blockText(plan);
    expect(plan.text).toBe(`Plan: upgrade ${namespace}/planner to ${PLANNER.to}`);
    expect(text).toContain('spec.chart.version: 1.0.0 → 2.0.0');
    expect(text).toContain('+ Service planner');
    expect(text).toContain('image: nginx:1.26 → nginx:1.27');
    noSecretIn(text);
    // A dry run as the release's identity: no new Helm revision, no Service yet, the spec as it was.
    const after = (await api.get(namespace, 'planner'))!;
    expect(after.metadata.generation).toBe(before.metadata.generation);
    await expect(kube.core.readNamespacedService({ namespace, name: 'planner' })).rejects.toMatchObject({ code: 404 });

    const confirm = plan.blocks!.find((b) => b.type === 'actions')!.elements!.find((e) => e.action_id === 'release_confirm')!;
    const click = buttonClick(slack, 'release_confirm', confirm.value, 'UALICE', channel);
    expect((await postSigned(events, click.form, { secret })).status).toBe(200);
    expect(((await slack.replyOn(click.responseUrl, 30_000)) as Reply).text).toMatch(/^Confirmed: upgrade/);
    // "Confirmed" is answered first; the intent is written right after.
    const upgraded = await eventually(
      async () => {
        const found = (await api.get(namespace, 'planner'))!;
        expect(found.spec.chart.version).toBe(PLANNER.to);
        return found;
      },
      { timeoutMs: 15_000 },
    );
    await waitForReconciled(kubeConfig, namespace, 'planner', upgraded.metadata.generation!);
    expect((await kube.core.readNamespacedService({ namespace, name: 'planner' })).metadata?.name).toBe('planner');

    // The channel's record of it, once the controller reported, offers Status (the release is not suspended: no Resume).
    const outcome = await waitForOutcome();
    expect(outcome.text).toMatch(/<@UALICE> upgrade .* — _new image_\n:white_check_mark:/);
    expect(outcome.buttons).toEqual([['release_status', `${namespace}/planner`]]);

    const audit = (await readFile(botLog, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((line) => line.msg === 'release action requested');
    expect(audit).toMatchObject({
      level: 30,
      component: 'bot',
      release: `${namespace}/planner`,
      action: 'upgrade',
      actor: 'slack:UALICE',
      channel,
      reason: 'new image',
    });
    noSecretIn(await readFile(botLog, 'utf8'));
  });
});
