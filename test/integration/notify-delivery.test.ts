import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Team } from '../../src/api/team.js';
import { readNotifyConfig } from '../../src/notify/config.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { TeamApi } from '../../src/core/kube/team-api.js';
import { connectRedis } from '../../src/core/redis.js';
import { freePorts } from '../../src/dev/free-port.js';
import { sample, scrape } from '../support/scrape.js';
import { startNotify, type RunningNotify } from '../../src/notify/notify.js';
import { NotifyPublisher } from '../../src/notify/publish/publisher.js';
import { createSigningSecret, createTeam, deleteTeams, memoryLogger, notificationFor, randomKey, TEST_LABEL } from '../support/notify-fixtures.js';
import { deleteNamespace, freshNamespace, testEnv, uniqueName } from '../support/fixtures.js';
import { WebhookReceiver, type ReceivedRequest, type Reply } from '../support/webhook-receiver.js';
import { eventually } from '../support/eventually.js';

/**
 * Issue 6: notify delivering to a real webhook receiver through real Redis and the real API
 * server. Notifications are published with the controller's own publisher (the controller end
 * to end is notify-end-to-end.test.ts).
 */
describe('notify delivering to webhooks', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const teams = new TeamApi(kube);
  const run = uniqueName('hc-notify');
  const { log, lines } = memoryLogger();
  const keys = {
    '/ok': randomKey('ok'),
    '/flaky': randomKey('flaky'),
    '/gone': randomKey('gone'),
    '/also': randomKey('also'),
    '/burst': randomKey('burst'),
    '/paced': randomKey('paced'),
    '/failing': randomKey('failing'),
  };
  const URL_TOKEN = randomKey('urltoken');
  // Each Team hears one namespace of its own (no cluster needed for these: the names are just names).
  const ns = {
    ok: uniqueName('ok'),
    flaky: uniqueName('flaky'),
    gone: uniqueName('gone'),
    burst: uniqueName('burst'),
    slack: uniqueName('slack'),
    paced: uniqueName('paced'),
    failing: uniqueName('failing'),
  };
  const replies: Record<string, () => Reply> = {};
  const receiver: WebhookReceiver = new WebhookReceiver(keys, (path) => replies[path]?.() ?? { status: 200 });
  const redis = connectRedis(env.redisUrl);
  const publisher = new NotifyPublisher({ connection: redis, prefix: run, log });
  let hooks: string;
  let notify: RunningNotify;

  const team = (name: string) => `${run}-${name}`;
  const webhook = (path: keyof typeof keys, query = '') => ({
    webhook: { url: receiver.url(path, query), secretRef: { namespace: hooks, name: path.slice(1) } },
  });

  let healthPort: number;
  /** Failed tries of a delivery here (HELMCREW_NOTIFY_DELIVERY_ATTEMPTS, default 30): fewer, so more 429s than attempts take seconds. */
  const ATTEMPTS = 4;

  beforeAll(async () => {
    healthPort = (await freePorts(1))[0] ?? 0;
    await receiver.start();
    hooks = await freshNamespace(kubeConfig, 'hooks');
    for (const [path, key] of Object.entries(keys)) await createSigningSecret(kube, hooks, path.slice(1), key);
    await createTeam(kube, run, team('ok'), { subscriptions: [{ namespaces: [ns.ok] }], channels: [webhook('/ok', `?token=${URL_TOKEN}`)] });
    await createTeam(kube, run, team('flaky'), { subscriptions: [{ namespaces: [ns.flaky] }], channels: [webhook('/flaky')] });
    await createTeam(kube, run, team('gone'), { subscriptions: [{ namespaces: [ns.gone] }], channels: [webhook('/gone')] });
    await createTeam(kube, run, team('also'), { subscriptions: [{ namespaces: [ns.gone] }], channels: [webhook('/also')] });
    await createTeam(kube, run, team('slacky'), { subscriptions: [{ namespaces: [ns.slack] }], channels: [{ slack: '#releases' }, webhook('/also')] });
    await createTeam(kube, run, team('burst'), { subscriptions: [{ namespaces: [ns.burst] }], channels: [webhook('/burst')] });
    await createTeam(kube, run, team('paced'), { subscriptions: [{ namespaces: [ns.paced] }], channels: [webhook('/paced')] });
    await createTeam(kube, run, team('failing'), { subscriptions: [{ namespaces: [ns.failing] }], channels: [webhook('/failing')] });
    const config = readNotifyConfig({
      REDIS_URL: env.redisUrl,
      KUBECONFIG: env.kubeconfig,
      HELMCREW_QUEUE_PREFIX: run,
      HELMCREW_TEAM_SELECTOR: `${TEST_LABEL}=${run}`,
      HELMCREW_TEAM_REFRESH_MS: '500',
      HELMCREW_NOTIFY_LOCK_MS: '5000',
      HELMCREW_NOTIFY_DELIVERY_ATTEMPTS: String(ATTEMPTS),
      HEALTH_PORT: String(healthPort),
    });
    notify = await startNotify(config, log);
  });
  afterAll(async () => {
    await notify?.stop();
    await publisher.close();
    redis.disconnect();
    await receiver.stop();
    await deleteTeams(kube, run);
    await deleteNamespace(kubeConfig, hooks);
  });

  it('a delivery is signed; the receiver verifies it and refuses the same request replayed 10 minutes later', async () => {
    const sent = notificationFor({ namespace: ns.ok, name: 'unicorn' }, 'UpgradeSucceeded', 'op-ok');
    await publisher.publish(sent);
    await receiver.waitFor(() => receiver.delivered('/ok').length === 1);
    const [got] = receiver.delivered('/ok');
    expect(got!.check).toBe('valid');
    expect(got!.json).toMatchObject({
      id: sent.id,
      operationId: 'op-ok',
      event: 'UpgradeSucceeded',
      team: team('ok'),
      release: { namespace: ns.ok, name: 'unicorn' },
    });
    expect(got!.headers['x-helmcrew-delivery']).toBe(sent.id);

    const replay = (skewSeconds: number, body = got!.body) => {
      receiver.clockSkewSeconds = skewSeconds;
      return fetch(receiver.url('/ok'), {
        method: 'POST',
        headers: {
          'x-helmcrew-timestamp': got!.headers['x-helmcrew-timestamp'] as string,
          'x-helmcrew-signature': got!.headers['x-helmcrew-signature'] as string,
        },
        body,
      }).then((r) => r.status);
    };
    try {
      expect(await replay(600)).toBe(401);
      expect(receiver.requests.at(-1)!.check).toBe('stale-timestamp');
      expect(await replay(0, got!.body.replace('UpgradeSucceeded', 'UpgradeFailed'))).toBe(401);
      expect(receiver.requests.at(-1)!.check).toBe('bad-signature');
    } finally {
      receiver.clockSkewSeconds = 0;
    }
    // The Team says when it was last told.
    await waitForTeam(team('ok'), (t) => Boolean(t.status?.lastDeliveryAt));
  });

  it('one channel is kept to about one message per second, across releases (a token bucket in Redis)', async () => {
    const before = receiver.delivered('/ok').length;
    const sent = Array.from({ length: 5 }, (_, i) => notificationFor({ namespace: ns.ok, name: `app-${i}` }, 'UpgradeSucceeded', `rate-${i}`));
    for (const n of sent) await publisher.publish(n);
    await receiver.waitFor(() => receiver.delivered('/ok').length === before + 5, 30_000);
    const times = receiver
      .delivered('/ok')
      .slice(before)
      .map((r) => r.at);
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    // Five releases, five mailboxes, one channel: slots a second apart. Arrival times jitter on a
    // loaded 2-core machine (one late request shortens the next gap), so judge the whole span and
    // allow any single gap some slack; without the limit all five arrive within milliseconds.
    expect(times.at(-1)! - times[0]!).toBeGreaterThanOrEqual(3500);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(500);
  });

  it('a receiver answering 500, then 429 with Retry-After, then 200 → everything delivered later, in order per release', async () => {
    const nameOf = (r: ReceivedRequest) => (r.json.release as { name: string }).name;
    const oneRequests = () => receiver.requests.filter((r) => r.path === '/flaky' && nameOf(r) === 'one');
    // Release "one" meets a 500, then a 429 asking for 4 s; release "two" on the same channel is always accepted.
    replies['/flaky'] = () => {
      const seen = oneRequests().length;
      const latest = receiver.requests.at(-1)!;
      if (nameOf(latest) !== 'one') return { status: 200 };
      return seen === 1 ? { status: 500 } : seen === 2 ? { status: 429, headers: { 'retry-after': '4' } } : { status: 200 };
    };
    const one = { namespace: ns.flaky, name: 'one' };
    const sent = [
      notificationFor(one, 'UpgradeStarted', 'op1'),
      notificationFor(one, 'InstallFailed', 'op2'),
      notificationFor(one, 'Resumed', 'op3'),
      notificationFor({ namespace: ns.flaky, name: 'two' }, 'UpgradeSucceeded', 'op4'),
    ];
    for (const n of sent) await publisher.publish(n);
    await receiver.waitFor(() => new Set(receiver.delivered('/flaky').map((r) => r.json.id)).size === 4, 60_000);
    const [first, second, third] = oneRequests();
    expect([first!.status, second!.status, third!.status]).toEqual([500, 429, 200]);
    // All three are the first notification, retried: nothing overtook it.
    expect([first!.json.id, second!.json.id, third!.json.id]).toEqual([sent[0]!.id, sent[0]!.id, sent[0]!.id]);
    // Retry-After: 4 was honoured (the exponential step there would have been 2 s).
    expect(third!.at - second!.at).toBeGreaterThanOrEqual(3900);
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(900);
    const releaseOne = receiver.delivered('/flaky').filter((r) => nameOf(r) === 'one');
    expect(releaseOne.map((r) => r.json.id)).toEqual(sent.slice(0, 3).map((n) => n.id));
  });

  it('a receiver pacing with 429 + Retry-After more times than there are attempts → still delivered (waits obey it, no attempt used)', async () => {
    // More 429s than the delivery attempts (ATTEMPTS here, 30 by default): counted as attempts, the
    // job would give up (a busy Slack workspace does this to chat.update within a minute, bench/RESULTS.md).
    const pacing = ATTEMPTS + 3;
    replies['/paced'] = () =>
      receiver.requests.filter((r) => r.path === '/paced').length <= pacing ? { status: 429, headers: { 'retry-after': '0' } } : { status: 200 };
    // The control, side by side: a receiver failing with 500 as many times does use the attempts, and
    // after ATTEMPTS tries the delivery waits in its mailbox (so the setting is the one in force).
    replies['/failing'] = () => (receiver.requests.filter((r) => r.path === '/failing').length <= pacing ? { status: 500 } : { status: 200 });
    const sent = notificationFor({ namespace: ns.paced, name: 'unicorn' }, 'UpgradeSucceeded', 'op-paced');
    const failing = notificationFor({ namespace: ns.failing, name: 'unicorn' }, 'UpgradeSucceeded', 'op-failing');
    await publisher.publish(sent);
    await publisher.publish(failing);
    const gaveUp = () => lines.some((l) => l.includes('delivery still failing after every retry') && l.includes(ns.failing));
    await receiver.waitFor(() => receiver.delivered('/paced').length === 1 && gaveUp(), 120_000);
    expect(receiver.requests.filter((r) => r.path === '/failing').map((r) => r.status)).toEqual(Array.from({ length: ATTEMPTS }, () => 500));
    const requests = receiver.requests.filter((r) => r.path === '/paced');
    expect(requests.map((r) => r.status)).toEqual([...Array.from({ length: pacing }, () => 429), 200]);
    expect(requests.every((r) => r.json.id === sent.id)).toBe(true);
    // Retry-After: 0 still waits a second between calls (no spinning against the server).
    const gaps = requests.slice(1).map((r, i) => r.at - requests[i]!.at);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(900);
    expect(lines.some((l) => l.includes('delivery paced by the server'))).toBe(true);
  }, 150_000);

  it('a receiver answering 404 → the Team status says so, not retried; another Team hearing the same event is told', async () => {
    replies['/gone'] = () => ({ status: 404 });
    await publisher.publish(notificationFor({ namespace: ns.gone, name: 'unicorn' }, 'UpgradeFailed', 'op-gone'));
    await receiver.waitFor(() => receiver.delivered('/also').length === 1);
    const gone = await waitForTeam(team('gone'), (t) => t.status?.channels?.[0]?.errorCode === 'http_404');
    expect(gone.status?.channels?.[0]).toMatchObject({ errorCode: 'http_404', lastError: expect.stringContaining('HTTP 404') });
    expect(gone.status?.channels?.[0]?.channel).toMatch(/^webhook http:\/\/127\.0\.0\.1:\d+ #[0-9a-f]{12}$/);
    expect(gone.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'False', reason: 'DeliveryFailed' });
    const also = await waitForTeam(team('also'), (t) => Boolean(t.status?.lastDeliveryAt));
    expect(also.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    // Proves that nothing more happens: a late duplicate or a stray delivery would show up now.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(receiver.requests.filter((r) => r.path === '/gone')).toHaveLength(1);
    expect(lines.some((l) => l.includes('delivery refused for good') && l.includes('http_404'))).toBe(true);
  });

  it('a burst of 20 events of one release operation → a first message and few updates, the latest state last', async () => {
    const release = { namespace: ns.burst, name: 'unicorn' };
    const burst = Array.from({ length: 20 }, (_, i) =>
      notificationFor(release, i === 0 ? 'UpgradeStarted' : i === 19 ? 'UpgradeSucceeded' : 'ChartPullFailed', 'op-burst'),
    );
    for (const n of burst) await publisher.publish(n);
    await receiver.waitFor(() => receiver.delivered('/burst').some((r) => r.json.id === burst[19]!.id), 30_000);
    // Proves that nothing more happens: a late duplicate or a stray delivery would show up now.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const delivered = receiver.delivered('/burst');
    expect(delivered.length).toBeGreaterThanOrEqual(1);
    expect(delivered.length).toBeLessThanOrEqual(4);
    expect(delivered.at(-1)!.json.id).toBe(burst[19]!.id);
    // The ids delivered keep publishing order.
    const order = delivered.map((r) => burst.findIndex((n) => n.id === r.json.id));
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it('the same failure of one operation said again soon (a retried chart pull) is coalesced; a new operation is not', async () => {
    const release = { namespace: ns.burst, name: 'narwhal' };
    await publisher.publish(notificationFor(release, 'ChartPullFailed', 'uid:7:prepare'));
    await receiver.waitFor(() => receiver.delivered('/burst').some((r) => (r.json.release as { name: string }).name === 'narwhal'));
    // The retry a moment later (not a synchronisation: a release's notifications go out in the
    // order published, so uid:8 below arrives only after the repeat was handled).
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await publisher.publish(notificationFor(release, 'ChartPullFailed', 'uid:7:prepare'));
    await publisher.publish(notificationFor(release, 'ChartPullFailed', 'uid:8:prepare'));
    const narwhal = () => receiver.delivered('/burst').filter((r) => (r.json.release as { name: string }).name === 'narwhal');
    await receiver.waitFor(() => narwhal().some((r) => r.json.operationId === 'uid:8:prepare'));
    expect(narwhal().map((r) => r.json.operationId)).toEqual(['uid:7:prepare', 'uid:8:prepare']);
    expect(lines.some((l) => l.includes('suppressed'))).toBe(true);
  });

  it('a Slack channel while no Slack provider is configured → the Team status says so; its webhook is still told', async () => {
    const sent = notificationFor({ namespace: ns.slack, name: 'unicorn' }, 'InstallFailed', 'op-slack');
    await publisher.publish(sent);
    const slacky = await waitForTeam(team('slacky'), (t) => t.status?.channels?.some((c) => c.errorCode === 'provider_not_configured') ?? false);
    expect(slacky.status?.channels?.find((c) => c.channel === '#releases')).toMatchObject({
      errorCode: 'provider_not_configured',
      lastError: expect.stringMatching(/no slack provider/),
    });
    await receiver.waitFor(() => receiver.delivered('/also').some((r) => r.json.id === sent.id));
  });

  it('no signing key, URL token or Secret value appears in logs or Team status', async () => {
    const statuses = JSON.stringify((await teams.list(`${TEST_LABEL}=${run}`)).items.map((t) => t.status));
    const logs = lines.join('');
    expect(logs).toContain('delivered');
    for (const secret of [...Object.values(keys), URL_TOKEN]) {
      expect(logs).not.toContain(secret);
      expect(statuses).not.toContain(secret);
    }
  });

  async function waitForTeam(name: string, predicate: (team: Team) => boolean, timeoutMs = 20_000): Promise<Team> {
    return eventually(
      async () => {
        const current = await teams.get(name);
        if (!current || !predicate(current)) throw new Error(`Team ${name} status does not match: ${JSON.stringify(current?.status)}`);
        return current;
      },
      { timeoutMs, intervalMs: 250 },
    );
  }

  it('serves its own /metrics: deliveries by provider and result, latency, its queues; /readyz once Teams are listed', async () => {
    const ready = await fetch(`http://127.0.0.1:${healthPort}/readyz`);
    expect([ready.status, await ready.text()]).toEqual([200, 'ok']);
    const scraped = await scrape(healthPort);
    expect(scraped.types.get('helmcrew_notify_deliveries_total')).toBe('counter');
    expect(sample(scraped, 'helmcrew_notify_deliveries_total', { provider: 'webhook', result: 'success' })).toBeGreaterThan(10);
    // The 500 and the 429s of the flaky and paced receivers; the 404 of the gone one.
    expect(sample(scraped, 'helmcrew_notify_deliveries_total', { provider: 'webhook', result: 'retryable' })).toBeGreaterThanOrEqual(2);
    expect(sample(scraped, 'helmcrew_notify_deliveries_total', { provider: 'webhook', result: 'permanent' })).toBeGreaterThanOrEqual(1);
    expect(sample(scraped, 'helmcrew_notify_delivery_duration_seconds_count', { provider: 'webhook' })).toBe(
      sample(scraped, 'helmcrew_notify_deliveries_total'),
    );
    expect(sample(scraped, 'helmcrew_notify_delivery_latency_seconds_count', { provider: 'webhook' })).toBe(
      sample(scraped, 'helmcrew_notify_deliveries_total', { result: 'success' }),
    );
    for (const queue of ['notify', 'notify-delivery']) expect(scraped.series.get('helmcrew_queue_jobs')?.some((s) => s.labels.queue === queue)).toBe(true);
    // Bounded labels: no team, channel or release names.
    for (const series of scraped.series.values())
      for (const s of series) expect(Object.keys(s.labels).every((k) => !['team', 'channel', 'release'].includes(k))).toBe(true);
  });
});
