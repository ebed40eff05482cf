import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterKeyspace, fleetIndexKey } from '../../src/core/fleet/cluster-keys.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { connectRedis } from '../../src/core/redis.js';
import { readNotifyConfig } from '../../src/notify/config.js';
import { startNotify, type RunningNotify } from '../../src/notify/notify.js';
import { NotifyPublisher } from '../../src/notify/publish/publisher.js';
import { createSigningSecret, createTeam, deleteTeams, memoryLogger, notificationFor, randomKey } from '../support/notify-fixtures.js';
import { deleteNamespace, freshNamespace, testEnv, uniqueName } from '../support/fixtures.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * Issue 32: one notify for a fleet (HELMCREW_NOTIFY_CLUSTERS) reads each cluster's keyspace, names
 * the cluster it read from in every message (whatever the job says), and routes by Team `clusters`:
 * a Team without `clusters` hears every cluster, one with `staging-*` only those.
 */
describe('one notify for the fleet', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const fleet = uniqueName('hc-fnotify');
  const { log } = memoryLogger();
  const keys = { '/all': randomKey('all'), '/staging': randomKey('staging') };
  const receiver = new WebhookReceiver(keys, () => ({ status: 200 }));
  const redis = connectRedis(env.redisUrl);
  const publishers = {
    'prod-eu': new NotifyPublisher({ connection: redis, prefix: clusterKeyspace(fleet, 'prod-eu'), log }),
    'staging-1': new NotifyPublisher({ connection: redis, prefix: clusterKeyspace(fleet, 'staging-1'), log }),
  };
  const ns = uniqueName('web');
  let hooks = '';
  let notify: RunningNotify | undefined;

  beforeAll(async () => {
    await receiver.start();
    hooks = await freshNamespace(kubeConfig, 'hooks');
    for (const [path, key] of Object.entries(keys)) await createSigningSecret(kube, hooks, path.slice(1), key);
    const hook = (path: keyof typeof keys) => ({ webhook: { url: receiver.url(path), secretRef: { namespace: hooks, name: path.slice(1) } } });
    await createTeam(kube, fleet, `${fleet}-all`, { subscriptions: [{ namespaces: [ns] }], channels: [hook('/all')] });
    await createTeam(kube, fleet, `${fleet}-staging`, { subscriptions: [{ namespaces: [ns], clusters: ['staging-*'] }], channels: [hook('/staging')] });
    // staging-1 is found through the fleet index (a glob); prod-eu is named.
    await redis.sadd(fleetIndexKey(fleet), 'staging-1');
    notify = await startNotify(
      readNotifyConfig({
        REDIS_URL: env.redisUrl,
        KUBECONFIG: env.kubeconfig,
        HELMCREW_QUEUE_PREFIX: fleet,
        HELMCREW_NOTIFY_CLUSTERS: 'prod-eu,staging-*',
        HELMCREW_TEAM_SELECTOR: `helmcrew.dev/test-run=${fleet}`,
        HELMCREW_TEAM_REFRESH_MS: '500',
      }),
      log,
    );
  });
  afterAll(async () => {
    await notify?.stop();
    for (const p of Object.values(publishers)) await p.close();
    redis.disconnect();
    await receiver.stop();
    await deleteTeams(kube, fleet);
    if (hooks) await deleteNamespace(kubeConfig, hooks);
  });

  it('each cluster’s event is named by its cluster; the staging-only Team hears staging only', async () => {
    const prod = notificationFor({ namespace: ns, name: 'web' }, 'UpgradeSucceeded', 'op-prod');
    // A job claiming another cluster: the keyspace it is read from decides.
    const staging = { ...notificationFor({ namespace: ns, name: 'web' }, 'UpgradeSucceeded', 'op-staging'), cluster: 'prod-eu' };
    await publishers['prod-eu'].publish(prod);
    await publishers['staging-1'].publish(staging);
    await receiver.waitFor(() => receiver.delivered('/all').length === 2 && receiver.delivered('/staging').length === 1);
    const clusterOf = (path: string) =>
      Object.fromEntries(receiver.delivered(path).map((r) => [(r.json as { id: string }).id, (r.json as { cluster?: string }).cluster]));
    expect(clusterOf('/all')).toEqual({ [prod.id]: 'prod-eu', [staging.id]: 'staging-1' });
    expect(clusterOf('/staging')).toEqual({ [staging.id]: 'staging-1' });
  });
});
