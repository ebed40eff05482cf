import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppsV1Api } from '@kubernetes/client-node';
import type { ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpBot } from '../support/slack-team-bot.js';
import type { RunningBot } from '../../src/bot/slack/app.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { jsonPatch } from '../../src/core/kube/kube-clients.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { buttonClick, postSigned, startFakeSlack, type FakeMessage, type FakeSlack } from '../../src/dev/fake-slack/index.js';
import { pollUntil } from '../../src/dev/harness/poll.js';
import { applyHelmRelease, ensureNamespace, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { deleteNamespace, startTestController, testEnv, uniqueName, type TestController } from '../support/fixtures.js';
import { createTeam, deleteTeams } from '../support/notify-fixtures.js';
import { spawnNotify } from '../support/notify-process.js';

const TOKEN = 'xoxb-drift-correct-now';
const SECRET = 'drift-signing-secret';
const IMAGE = 'nginxinc/nginx-unprivileged:1.27-alpine';
const IMAGE_POINTER = '/spec/template/spec/containers/0/image';

type Button = { action_id: string; value: string };
const buttons = (m: FakeMessage): Button[] =>
  ((m.attachments?.[0] as { blocks?: Array<{ type: string; elements?: Button[] }> } | undefined)?.blocks ?? []).flatMap((b) =>
    b.type === 'actions' ? (b.elements ?? []) : [],
  );

/**
 * Issue 19 through chat: warn reports drift to the Team's channel (notify, its own process, to the
 * local fake Slack), naming the object and field, with "Correct now"; the bot (real Bolt, signed
 * requests) plans, authorizes against the Team, and writes the request the controller carries out.
 */
describe('drift in Slack: the "Correct now" button', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const api = new HelmReleaseApi(kube);
  const apps = kubeConfig.makeApiClient(AppsV1Api);
  const ns = uniqueName('driftchat');
  let slack: FakeSlack;
  let ctl: TestController;
  let bot: RunningBot;
  let notify: ResultPromise;
  let events: string;

  beforeAll(async () => {
    slack = await startFakeSlack({
      tokens: [TOKEN],
      users: ['UALICE', 'UMALLORY'].map((id) => ({ id, name: id.slice(1).toLowerCase() })),
      channels: [{ id: 'C0DRIFT', name: 'drift' }],
    });
    await ensureNamespace(kubeConfig, ns);
    ctl = await startTestController([ns]);
    await createTeam(kube, ctl.prefix, `${ctl.prefix}-web`, {
      members: { slackUsers: ['UALICE'] },
      subscriptions: [{ namespaces: [ns], events: ['DriftDetected', 'DriftCorrected'] }],
      channels: [{ slack: '#drift' }],
      permissions: [{ namespaces: [ns], verbs: ['status', 'history', 'correct'] }],
    });
    const dir = await mkdtemp(join(tmpdir(), 'helmcrew-drift-chat-'));
    notify = spawnNotify(env, ctl.prefix, join(dir, 'notify.log'), { SLACK_BOT_TOKEN: TOKEN, SLACK_API_URL: slack.apiUrl });
    ({ bot, events } = await startHttpBot(slack, { token: TOKEN, secret: SECRET, queuePrefix: uniqueName('hc-bot') }));
  });
  afterAll(async () => {
    await bot?.stop();
    notify?.kill('SIGKILL');
    await notify;
    await ctl?.stop();
    await slack?.stop();
    await deleteTeams(kube, ctl.prefix);
    await deleteNamespace(kubeConfig, ns);
  });

  const click = async (actionId: string, value: string, user: string) => {
    const request = buttonClick(slack, actionId, value, user, 'C0DRIFT');
    await postSigned(events, request.form, { secret: SECRET });
    return (await slack.replyOn(request.responseUrl, 30_000)) as { text: string; blocks?: Array<{ type: string; elements?: Button[] }> };
  };
  const imageOf = async () => (await apps.readNamespacedDeployment({ name: 'unicorn', namespace: ns })).spec?.template.spec?.containers[0]?.image;

  it('the report names the object and field; a person without the verb is refused; Alice corrects it and the message says so', async () => {
    const spec = { chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' }, interval: '2s', driftDetection: { mode: 'warn' as const } };
    await waitForReconciled(kubeConfig, ns, 'unicorn', await applyHelmRelease(kubeConfig, helmReleaseObject(ns, 'unicorn', spec)));
    await apps.patchNamespacedDeployment(
      { name: 'unicorn', namespace: ns, fieldManager: 'kubectl-edit', body: [{ op: 'replace', path: IMAGE_POINTER, value: 'nginx:by-hand' }] },
      jsonPatch,
    );
    const report = await pollUntil(
      async () => slack.messages('drift').find((m) => m.text.includes('Drift detected')),
      { timeoutMs: 60_000 },
      () => `no drift message; messages: ${JSON.stringify(slack.messages('drift').map((m) => m.text))}`,
    );
    expect(JSON.stringify(report.attachments)).toContain(`Deployment ${ns}/unicorn (${IMAGE_POINTER})`);
    const correct = buttons(report).find((b) => b.action_id === 'release_correct');
    expect(correct?.value).toBe(`${ns}/unicorn`);

    // Mallory is in no Team: refused at the plan, nothing written.
    const refused = await click('release_correct', correct!.value, 'UMALLORY');
    expect(refused.text).toMatch(/^Refused: you may not correct/);
    expect((await api.get(ns, 'unicorn'))?.metadata.annotations?.['helmcrew.dev/correct-drift-request']).toBeUndefined();

    const plan = await click('release_correct', correct!.value, 'UALICE');
    expect(plan.text).toMatch(/^Plan: correct drift of/);
    const confirm = plan.blocks?.find((b) => b.type === 'actions')?.elements?.find((e) => e.action_id === 'release_confirm');
    await click('release_confirm', confirm!.value, 'UALICE');
    await pollUntil(
      async () => ((await imageOf()) === IMAGE ? true : undefined),
      { timeoutMs: 60_000 },
      () => 'the image was not put back',
    );
    const record = (await api.get(ns, 'unicorn'))?.status?.lastDriftCorrection;
    expect(record).toMatchObject({ succeeded: true, revision: 1 });
    expect(record?.requestId).toMatch(/^dc-/);
    // The report's own message moves to "Drift corrected" (one operation, edited in place).
    await pollUntil(
      async () =>
        slack
          .messages('drift')
          .find((m) => m.ts === report.ts)
          ?.text.includes('Drift corrected')
          ? true
          : undefined,
      { timeoutMs: 60_000 },
      () => `the drift message was not updated: ${JSON.stringify(slack.messages('drift').map((m) => m.text))}`,
    );
  });
});
