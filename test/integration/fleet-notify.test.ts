import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterKeyspace, fleetIndexKey } from '../../src/core/fleet/cluster-keys.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { connectRedis } from '../../src/core/redis.js';
import { startFakeSlack, type FakeMessage, type FakeSlack } from '../../src/dev/fake-slack/index.js';
import { FLEET_SLACK_MESSAGES_CONFIGMAP } from '../../src/notify/providers/slack/message-store.js';
import { PHASE_COLOR } from '../../src/notify/providers/slack/render.js';
import { eventually } from '../support/eventually.js';
import { readNotifyConfig } from '../../src/notify/config.js';
import { startNotify, type RunningNotify } from '../../src/notify/notify.js';
import { NotifyPublisher } from '../../src/notify/publish/publisher.js';
import { createSigningSecret, createTeam, deleteTeams, memoryLogger, notificationFor, randomKey } from '../support/notify-fixtures.js';
import { deleteNamespace, freshNamespace, testEnv, uniqueName } from '../support/fixtures.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * Issue 32: one notify for a fleet (HELMCREW_NOTIFY_CLUSTERS) reads each cluster's keyspace, names
 * the cluster it read from in every message (whatever the job says), and routes by Team `clusters`:
 * a Team without `clusters` hears every cluster, one with `staging-*` only those. Slack too: each
 * cluster's operation is one message (posted, then edited to its outcome) naming its cluster, its
 * reference kept in the fleet's one ConfigMap in notify's own namespace.
 */
describe('one notify for the fleet', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const fleet = uniqueName('hc-fnotify');
  const { log, lines } = memoryLogger();
  const keys = { '/all': randomKey('all'), '/staging': randomKey('staging') };
  const receiver = new WebhookReceiver(keys, () => ({ status: 200 }));
  const redis = connectRedis(env.redisUrl);
  const publishers = {
    'prod-eu': new NotifyPublisher({ connection: redis, prefix: clusterKeyspace(fleet, 'prod-eu'), log }),
    'staging-1': new NotifyPublisher({ connection: redis, prefix: clusterKeyspace(fleet, 'staging-1'), log }),
  };
  const ns = uniqueName('web');
  const slackNs = uniqueName('slackweb');
  const TOKEN = 'xoxb-fleet-notify-token';
  let slack: FakeSlack;
  let hooks = '';
  let notify: RunningNotify | undefined;

  beforeAll(async () => {
    slack = await startFakeSlack({ tokens: [TOKEN], channels: [{ name: 'fleet-oncall' }] });
    await receiver.start();
    hooks = await freshNamespace(kubeConfig, 'hooks');
    for (const [path, key] of Object.entries(keys)) await createSigningSecret(kube, hooks, path.slice(1), key);
    const hook = (path: keyof typeof keys) => ({ webhook: { url: receiver.url(path), secretRef: { namespace: hooks, name: path.slice(1) } } });
    await createTeam(kube, fleet, `${fleet}-all`, { subscriptions: [{ namespaces: [ns] }], channels: [hook('/all')] });
    await createTeam(kube, fleet, `${fleet}-staging`, { subscriptions: [{ namespaces: [ns], clusters: ['staging-*'] }], channels: [hook('/staging')] });
    await createTeam(kube, fleet, `${fleet}-slack`, { subscriptions: [{ namespaces: [slackNs] }], channels: [{ slack: '#fleet-oncall' }] });
    // staging-1 is found through the fleet index (a glob); prod-eu is named.
    await redis.sadd(fleetIndexKey(fleet), 'staging-1');
    const notifyEnv = {
      REDIS_URL: env.redisUrl,
      KUBECONFIG: env.kubeconfig,
      HELMCREW_QUEUE_PREFIX: fleet,
      HELMCREW_NOTIFY_CLUSTERS: 'prod-eu,staging-*',
      HELMCREW_TEAM_SELECTOR: `helmcrew.dev/test-run=${fleet}`,
      HELMCREW_TEAM_REFRESH_MS: '500',
      SLACK_BOT_TOKEN: TOKEN,
      SLACK_API_URL: slack.apiUrl,
      // Where the fleet's Slack message references are kept (the releases' namespaces are other clusters').
      HELMCREW_NAMESPACE: hooks,
    };
    notify = await startNotify(readNotifyConfig(notifyEnv), log, { env: notifyEnv });
  });
  afterAll(async () => {
    await notify?.stop();
    for (const p of Object.values(publishers)) await p.close();
    redis.disconnect();
    await receiver.stop();
    await slack?.stop();
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

  it('Slack: one message per cluster’s operation, edited to its outcome and naming its cluster; the reference in notify’s namespace', async () => {
    const release = { namespace: slackNs, name: 'web' };
    for (const [cluster, op] of [
      ['prod-eu', 'op-slack-prod'],
      ['staging-1', 'op-slack-staging'],
    ] as const) {
      await publishers[cluster].publish(notificationFor(release, 'UpgradeStarted', op));
      await publishers[cluster].publish(notificationFor(release, 'UpgradeSucceeded', op));
    }
    const color = (m: FakeMessage) => (m.attachments?.[0] as { color?: string } | undefined)?.color;
    await eventually(
      () => {
        const messages = slack.messages('fleet-oncall');
        expect(messages.map(color), JSON.stringify(lines.filter((l) => /slack|deliver|warn|error/i.test(l)).slice(-8))).toEqual([
          PHASE_COLOR.succeeded,
          PHASE_COLOR.succeeded,
        ]);
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    const clusters = slack.messages('fleet-oncall').map((m) => /\*Cluster\*\\n`([^`]+)`/.exec(JSON.stringify(m.attachments))?.[1]);
    expect(clusters.sort()).toEqual(['prod-eu', 'staging-1']);
    expect(slack.okCalls('chat.postMessage').filter((c) => c.params.channel !== undefined && !c.params.thread_ts)).toHaveLength(2);
    const refs = await kube.core.readNamespacedConfigMap({ namespace: hooks, name: FLEET_SLACK_MESSAGES_CONFIGMAP });
    const kept = Object.values(refs.data ?? {}).join('\n');
    expect(kept).toContain('op-slack-prod');
    expect(kept).toContain('op-slack-staging');
    // Each reference names its cluster: the web links a release's thread, not a same-named release's of another cluster.
    const clusterOf = Object.fromEntries(Object.values(refs.data ?? {}).map((raw) => [JSON.parse(raw).operationId, JSON.parse(raw).cluster]));
    expect(clusterOf).toMatchObject({ 'op-slack-prod': 'prod-eu', 'op-slack-staging': 'staging-1' });
  });
});
