import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { connectRedis } from '../../src/core/redis.js';
import type { ReleaseNotification } from '../../src/notify/contract.js';
import { NotifyPublisher } from '../../src/notify/publish/publisher.js';
import { createLogger } from '../../src/core/log.js';
import { deleteNamespace, freshNamespace, testEnv, uniqueName } from '../support/fixtures.js';
import { createSigningSecret, createTeam, deleteTeams, notificationFor, randomKey } from '../support/notify-fixtures.js';
import { spawnNotify } from '../support/notify-process.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * Issue 6: `helmcrew notify` SIGKILLed while deliveries are in flight. Every notification Redis
 * accepted is delivered after a restart. A webhook cannot be told "exactly once" by a sender that
 * died between sending and hearing the answer, so the notification id travels in the
 * X-Helmcrew-Delivery header: only a request in flight at the kill may arrive twice, and a
 * receiver that keeps the ids it has seen gets each notification exactly once.
 */
describe('notify killed mid-delivery', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const run = uniqueName('hc-crash');
  const key = randomKey('crash');
  // A slow receiver: each answer takes 1.5 s, so deliveries are in flight when the kill comes.
  const receiver = new WebhookReceiver({ '/crash': key }, () => ({ status: 200, delayMs: 1500 }));
  const redis = connectRedis(env.redisUrl);
  const publisher = new NotifyPublisher({ connection: redis, prefix: run, log: createLogger('test', 'warn') });
  const subscribed = uniqueName('crashns');
  let hooks: string;
  let dir: string;
  const children: ResultPromise[] = [];

  beforeAll(async () => {
    await receiver.start();
    hooks = await freshNamespace(kubeConfig, 'hooks');
    dir = await mkdtemp(join(tmpdir(), 'helmcrew-crash-'));
    await createSigningSecret(kube, hooks, 'crash', key);
    await createTeam(kube, run, `${run}-team`, {
      subscriptions: [{ namespaces: [subscribed] }],
      channels: [{ webhook: { url: receiver.url('/crash'), secretRef: { namespace: hooks, name: 'crash' } } }],
    });
  });
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await Promise.all(children);
    await publisher.close();
    redis.disconnect();
    await receiver.stop();
    await deleteTeams(kube, run);
    await deleteNamespace(kubeConfig, hooks);
  });

  it('after a restart each accepted notification is delivered; only what was in flight at the kill is sent again', async () => {
    const start = () => {
      const child = spawnNotify(env, run, join(dir, `notify-${children.length}.log`), {
        HELMCREW_NOTIFY_RATE_PER_SECOND: '50',
        HELMCREW_NOTIFY_RATE_BURST: '5',
      });
      children.push(child);
      return child;
    };
    const first = start();
    // Four releases, three operations each: 12 notifications, each its own message.
    const sent: ReleaseNotification[] = [];
    for (let op = 0; op < 3; op++) {
      for (let r = 0; r < 4; r++)
        sent.push(notificationFor({ namespace: subscribed, name: `app-${r}` }, op === 1 ? 'UpgradeFailed' : 'UpgradeSucceeded', `app-${r}:op${op}`));
    }
    for (const n of sent) await publisher.publish(n);

    // Kill once at least two requests have arrived (their answers are still 1.5 s away).
    await receiver.waitFor(() => receiver.requests.length >= 2, 60_000, 'the first deliveries');
    first.kill('SIGKILL');
    await first;
    const killedAt = Date.now();
    const inFlightAtKill = new Set(receiver.requests.filter((r) => r.at + 1500 > killedAt).map((r) => r.json.id));
    expect(inFlightAtKill.size).toBeGreaterThan(0);

    void start(); // a child process, kept in `children` and stopped in afterAll
    const ids = () => new Set(receiver.requests.map((r) => r.json.id));
    await receiver.waitFor(() => sent.every((n) => ids().has(n.id)), 90_000, 'every notification after the restart');
    // Proves that nothing more happens: a late duplicate or a stray delivery would show up now.
    await new Promise((resolve) => setTimeout(resolve, 3000));

    const counts = new Map<unknown, number>();
    for (const r of receiver.requests) counts.set(r.json.id, (counts.get(r.json.id) ?? 0) + 1);
    const twice = [...counts].filter(([, count]) => count > 1).map(([id]) => id);
    // Nothing lost, nothing invented.
    expect([...counts.keys()].sort()).toEqual(sent.map((n) => n.id).sort());
    // A second copy only of what was in flight when the process died, never a third.
    expect(twice.every((id) => inFlightAtKill.has(id))).toBe(true);
    expect([...counts.values()].every((count) => count <= 2)).toBe(true);
    // Each release's operations arrived in order (first arrivals).
    for (let r = 0; r < 4; r++) {
      const firstArrivals = [
        ...new Set(receiver.requests.filter((q) => (q.json.release as { name: string }).name === `app-${r}`).map((q) => q.json.operationId)),
      ];
      expect(firstArrivals).toEqual([`app-${r}:op0`, `app-${r}:op1`, `app-${r}:op2`]);
    }
    expect(receiver.requests.every((q) => q.check === 'valid')).toBe(true);
  });
});
