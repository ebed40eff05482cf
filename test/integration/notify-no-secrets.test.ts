import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { TeamApi } from '../../src/core/kube/team-api.js';
import { createLogger } from '../../src/core/log.js';
import { connectRedis } from '../../src/core/redis.js';
import { startAlertmanager, type GettableAlert, type LocalAlertmanager } from '../../src/dev/alertmanager.js';
import { FakeGoogleChat } from '../../src/dev/fake-googlechat/index.js';
import { FakeIncidentIo } from '../../src/dev/fake-incidentio/index.js';
import { FakeMSTeams } from '../../src/dev/fake-msteams/index.js';
import { FakePagerDuty } from '../../src/dev/fake-pagerduty/index.js';
import { startFakeSlack, type FakeSlack } from '../../src/dev/fake-slack/index.js';
import { NotifyPublisher } from '../../src/notify/publish/publisher.js';
import { deleteNamespace, freshNamespace, testEnv, uniqueName } from '../support/fixtures.js';
import { createSigningSecret, createTeam, deleteTeams, notificationFor, TEST_LABEL } from '../support/notify-fixtures.js';
import { spawnNotify } from '../support/notify-process.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { eventually } from '../support/eventually.js';
import { clusterKeyspace } from '../../src/core/fleet/cluster-keys.js';

const secret = (label: string) => `${label}-${randomBytes(12).toString('hex')}`;

/**
 * Issue 21: one Team told on every kind of channel — Slack, a signed webhook, PagerDuty, a
 * Teams Workflows webhook, a real Alertmanager (with a bearer token from a Secret), incident.io
 * and a Google Chat webhook (issue 34) — by one `helmcrew notify` process, for a release that fails and then
 * recovers. Not one credential (the Slack bot token, the webhook's signing key and the token in
 * its URL, the PagerDuty routing key, the token in the Teams URL, incident.io's token, the key and
 * token in the Google Chat URL) appears in any payload any
 * service received, in notify's log or in the Team's status; the routing key only in `routing_key`, where
 * PagerDuty needs it.
 */
describe('no token, routing key or Secret value in any payload or log', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const run = uniqueName('hc-nosecrets');
  const creds = {
    slackToken: `xoxb-${secret('slack')}`,
    signingKey: secret('signing'),
    urlToken: secret('urltoken'),
    routingKey: randomBytes(16).toString('hex'),
    teamsToken: secret('teams'),
    alertmanagerToken: secret('alertmanager'),
    incidentioToken: secret('incidentio'),
    chatKey: `AIza${randomBytes(16).toString('hex')}`,
    chatToken: secret('chattoken'),
  };
  const receiver = new WebhookReceiver({ [`/hook/${creds.urlToken}`]: creds.signingKey });
  const pagerduty = new FakePagerDuty();
  const msteams = new FakeMSTeams();
  const incidentio = new FakeIncidentIo();
  const chat = new FakeGoogleChat();
  const redis = connectRedis(env.redisUrl);
  const publisher = new NotifyPublisher({ connection: redis, prefix: clusterKeyspace(run, 'test-cluster'), log: createLogger('test', 'warn') });
  let slack: FakeSlack;
  let alertmanager: LocalAlertmanager;
  let ns: string;
  let logFile: string;
  let notify: ResultPromise;

  beforeAll(async () => {
    await receiver.start();
    await pagerduty.start();
    await msteams.start();
    await incidentio.start();
    await chat.start();
    alertmanager = await startAlertmanager();
    slack = await startFakeSlack({ tokens: [creds.slackToken], channels: [{ name: 'releases' }] });
    ns = await freshNamespace(kubeConfig, 'nosecrets');
    await createSigningSecret(kube, ns, 'hook', creds.signingKey);
    await kube.core.createNamespacedSecret({
      namespace: ns,
      body: { metadata: { name: 'pagerduty', namespace: ns }, stringData: { 'routing-key': creds.routingKey } },
    });
    await kube.core.createNamespacedSecret({
      namespace: ns,
      body: { metadata: { name: 'teams', namespace: ns }, stringData: { url: msteams.url(`/workflows/${creds.teamsToken}`) } },
    });
    await kube.core.createNamespacedSecret({
      namespace: ns,
      body: { metadata: { name: 'alertmanager', namespace: ns }, stringData: { token: creds.alertmanagerToken } },
    });
    await kube.core.createNamespacedSecret({
      namespace: ns,
      body: { metadata: { name: 'incidentio', namespace: ns }, stringData: { token: creds.incidentioToken } },
    });
    await kube.core.createNamespacedSecret({
      namespace: ns,
      body: {
        metadata: { name: 'chat', namespace: ns },
        stringData: { url: chat.addWebhook('AAAAnosecrets', { key: creds.chatKey, token: creds.chatToken }) },
      },
    });
    await createTeam(kube, run, `${run}-everywhere`, {
      subscriptions: [{ namespaces: [ns] }],
      channels: [
        { slack: '#releases' },
        { webhook: { url: receiver.url(`/hook/${creds.urlToken}`, `?token=${creds.urlToken}`), secretRef: { namespace: ns, name: 'hook' } } },
        { pagerduty: { secretRef: { namespace: ns, name: 'pagerduty' } } },
        { msteams: { secretRef: { namespace: ns, name: 'teams' } } },
        { alertmanager: { url: alertmanager.url, secretRef: { namespace: ns, name: 'alertmanager' } } },
        { incidentio: { url: incidentio.addSource(creds.incidentioToken), secretRef: { namespace: ns, name: 'incidentio' } } },
        { googlechat: { secretRef: { namespace: ns, name: 'chat' } } },
      ],
    });
    logFile = join(await mkdtemp(join(tmpdir(), 'helmcrew-nosecrets-')), 'notify.log');
    notify = spawnNotify(env, run, logFile, {
      SLACK_BOT_TOKEN: creds.slackToken,
      SLACK_API_URL: slack.apiUrl,
      HELMCREW_PAGERDUTY_URL: pagerduty.url,
      HELMCREW_CLUSTER_NAME: 'test-cluster',
      LOG_LEVEL: 'debug',
    });
  });
  afterAll(async () => {
    notify?.kill('SIGTERM');
    await notify;
    await publisher.close();
    redis.disconnect();
    await Promise.all([receiver.stop(), pagerduty.stop(), msteams.stop(), incidentio.stop(), chat.stop(), slack?.stop(), alertmanager?.stop()]);
    await deleteTeams(kube, run);
    await deleteNamespace(kubeConfig, ns);
  });

  it('a failure and its recovery reach all seven channels; no credential leaves where it belongs', async () => {
    const release = { namespace: ns, name: 'unicorn' };
    const failed = { ...notificationFor(release, 'UpgradeFailed', 'uid-n:4:upgrade:a'), errorExcerpt: 'Error: UPGRADE FAILED: the Deployment was refused' };
    await publisher.publish(failed);
    await pagerduty.waitFor(() => pagerduty.alerts.alerts.some((a) => a.status === 'triggered'), 60_000, 'the incident');
    const ours = async (): Promise<GettableAlert[]> => (await alertmanager.alerts()).filter((a) => a.labels.namespace === ns);
    const fired = await eventually(
      async () => {
        const alerts = await ours();
        expect(alerts).toHaveLength(1);
        return alerts;
      },
      { timeoutMs: 60_000, intervalMs: 250 },
    );
    await publisher.publish(notificationFor(release, 'UpgradeSucceeded', 'uid-n:5:upgrade:b'));
    await pagerduty.waitFor(() => pagerduty.alerts.alerts.some((a) => a.status === 'resolved'), 60_000, 'the incident resolved');
    await eventually(async () => expect(await ours()).toEqual([]), { timeoutMs: 60_000, intervalMs: 250 });
    await receiver.waitFor(() => receiver.delivered(`/hook/${creds.urlToken}`).length === 2, 60_000, 'both webhook deliveries');
    await msteams.waitFor(() => msteams.cards(`/workflows/${creds.teamsToken}`).length === 2, 60_000, 'both Teams cards');
    await incidentio.waitFor(() => incidentio.alerts.some((a) => a.status === 'resolved'), 60_000, 'the incident.io alert resolved');
    await chat.waitFor(() => chat.messages('AAAAnosecrets').length === 2, 60_000, 'both Google Chat cards');
    const messages = () => slack.messages('releases').map((m) => m.text);
    await msteams.waitFor(() => messages().length === 2 && /Upgraded/.test(messages()[1]!), 60_000, 'both Slack messages');
    await msteams.waitFor(() => slack.okCalls('chat.postMessage').length === 4, 30_000, 'both Slack thread replies');

    const values = Object.values(creds);
    const payloads: Array<[string, string]> = [
      ...slack.calls().map((c): [string, string] => [`slack ${c.method}`, JSON.stringify(c.params)]),
      ...receiver.requests.map((r): [string, string] => [`webhook`, `${r.body} ${JSON.stringify(r.headers)}`]),
      ...pagerduty.requests.map((r): [string, string] => [`pagerduty`, JSON.stringify({ ...r.event, routing_key: undefined })]),
      ...msteams.posts.map((p): [string, string] => [`msteams`, p.raw]),
      ...incidentio.requests.map((r): [string, string] => [`incidentio`, `${r.path} ${r.raw}`]),
      ...chat.posts.map((p): [string, string] => [`googlechat`, `${p.path} ${p.raw}`]),
      ...fired.map((a): [string, string] => [`alertmanager`, JSON.stringify(a)]),
    ];
    expect(payloads.length).toBeGreaterThanOrEqual(14); // Slack 2 posts + 2 replies, 2 each elsewhere
    for (const [where, payload] of payloads) for (const value of values) expect(payload, `${where} carries a credential`).not.toContain(value);
    // Where it belongs: the routing key in routing_key, the URL tokens in the URL called, the Slack token in Authorization.
    expect(pagerduty.requests.every((r) => r.event?.routing_key === creds.routingKey)).toBe(true);
    expect(receiver.requests.every((r) => r.check === 'valid')).toBe(true);
    expect(incidentio.requests.every((r) => r.authorization === `Bearer ${creds.incidentioToken}`)).toBe(true);

    const log = await readFile(logFile, 'utf8');
    expect(log).toContain('"msg":"delivered"');
    for (const value of values) expect(log).not.toContain(value);
    // The status notify writes, once it names all seven channels (the webhook's URL is in the Team's spec as its author wrote it).
    const statuses = async () => (await new TeamApi(kube).list(`${TEST_LABEL}=${run}`)).items.map((t) => t.status);
    const written = JSON.stringify(
      await eventually(
        async () => {
          const now = await statuses();
          expect(
            now[0]?.channels?.filter((c) => c.lastDeliveryAt),
            JSON.stringify(now),
          ).toHaveLength(7);
          return now;
        },
        { timeoutMs: 30_000, intervalMs: 250 },
      ),
    );
    expect(written.match(/lastDeliveryAt/g)?.length ?? 0).toBeGreaterThanOrEqual(7);
    for (const value of values) expect(written).not.toContain(value);
  });
});
