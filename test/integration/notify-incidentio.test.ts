import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterKeyspace } from '../../src/core/fleet/cluster-keys.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { TeamApi } from '../../src/core/kube/team-api.js';
import { createLogger } from '../../src/core/log.js';
import { connectRedis } from '../../src/core/redis.js';
import { FakeIncidentIo } from '../../src/dev/fake-incidentio/index.js';
import { NotifyPublisher } from '../../src/notify/publish/publisher.js';
import { eventually } from '../support/eventually.js';
import { deleteNamespace, freshNamespace, testEnv, uniqueName } from '../support/fixtures.js';
import { createTeam, deleteTeams, notificationFor, TEST_LABEL } from '../support/notify-fixtures.js';
import { spawnNotify } from '../support/notify-process.js';

/**
 * Issue 34: a `helmcrew notify` process sends a release's failure to incident.io (the local fake of
 * its Alert Events API) as a firing alert under the release's deduplication_key, and its recovery
 * resolves that alert, for a Team that hears failures only. A 429 is waited out (Retry-After); a
 * wrong token is a permanent error on that Team's status, named without the token; the token is
 * sent only as the bearer and appears in no log and no Team.
 */
describe('incident.io: an alert per failing release, resolved by its recovery', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const run = uniqueName('hc-inc');
  const token = `inc_${randomBytes(20).toString('hex')}`;
  const wrong = `inc_${randomBytes(20).toString('hex')}`;
  const incidentio = new FakeIncidentIo({ retryAfterSeconds: 1 });
  const redis = connectRedis(env.redisUrl);
  const publisher = new NotifyPublisher({ connection: redis, prefix: clusterKeyspace(run, 'test-cluster'), log: createLogger('test', 'warn') });
  const subscribed = uniqueName('incns');
  let ns: string;
  let source: string;
  let logFile: string;
  let notify: ResultPromise;

  beforeAll(async () => {
    await incidentio.start();
    source = incidentio.addSource(token);
    ns = await freshNamespace(kubeConfig, 'inchook');
    for (const [name, value] of [
      ['incident-io', token],
      ['stale', wrong],
    ] as [string, string][])
      await kube.core.createNamespacedSecret({ namespace: ns, body: { metadata: { name, namespace: ns }, stringData: { token: value } } });
    await createTeam(kube, run, `${run}-oncall`, {
      subscriptions: [{ namespaces: [subscribed], severity: 'error' }],
      channels: [{ incidentio: { url: source, secretRef: { namespace: ns, name: 'incident-io' } } }],
    });
    await createTeam(kube, run, `${run}-stale`, {
      subscriptions: [{ namespaces: [subscribed], severity: 'error' }],
      channels: [{ incidentio: { url: source, secretRef: { namespace: ns, name: 'stale' } } }],
    });
    logFile = join(await mkdtemp(join(tmpdir(), 'helmcrew-inc-')), 'notify.log');
    notify = spawnNotify(env, run, logFile, { HELMCREW_CLUSTER_NAME: 'test-cluster', HELMCREW_STATUS_URL: 'https://status.example.test/{namespace}/{name}' });
  });
  afterAll(async () => {
    notify?.kill('SIGTERM');
    await notify;
    await publisher.close();
    redis.disconnect();
    await incidentio.stop();
    await deleteTeams(kube, run);
    await deleteNamespace(kubeConfig, ns);
  });

  it('a failure fires the release’s alert, a 429 is waited out, the recovery resolves it; a wrong token is named on its Team only', async () => {
    const key = `helmcrew/test-cluster/${subscribed}/unicorn`;
    const release = { namespace: subscribed, name: 'unicorn' };
    incidentio.throttleNext(1);
    await publisher.publish({ ...notificationFor(release, 'UpgradeFailed', 'unicorn:op1'), errorExcerpt: 'Error: UPGRADE FAILED: timed out' });
    await incidentio.waitFor(() => incidentio.byDeduplicationKey(key).some((a) => a.status === 'firing'), 60_000, 'the firing alert');
    // The Team hears failures only (severity: error), yet the recovery reaches incident.io.
    await publisher.publish(notificationFor(release, 'UpgradeSucceeded', 'unicorn:op2'));
    await incidentio.waitFor(() => incidentio.byDeduplicationKey(key).some((a) => a.status === 'resolved'), 60_000, 'the resolved alert');

    const accepted = incidentio.requests.filter((r) => r.status === 202);
    expect(accepted.map((r) => r.outcome)).toEqual(['created', 'resolved']);
    const throttled = incidentio.requests.filter((r) => r.status === 429);
    expect(throttled).toHaveLength(1);
    expect(accepted[0]!.at - throttled[0]!.at).toBeGreaterThanOrEqual(900); // Retry-After: 1
    const alerts = incidentio.byDeduplicationKey(key);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]!.events[0]).toMatchObject({
      status: 'firing',
      title: `${subscribed}/unicorn in test-cluster: UpgradeFailed of ${subscribed}/unicorn`,
      source_url: `https://status.example.test/${subscribed}/unicorn`,
      metadata: { event: 'UpgradeFailed', cluster: 'test-cluster', namespace: subscribed, helmrelease: 'unicorn', severity: 'error' },
    });
    expect(String(alerts[0]!.events[0]!.description)).toContain('Error: UPGRADE FAILED: timed out');

    // The stale token: 401, a permanent error on its own Team, named without the token.
    const statuses = await eventually(
      async () => {
        const teams = (await new TeamApi(kube).list(`${TEST_LABEL}=${run}`)).items;
        const stale = teams.find((t) => t.metadata.name === `${run}-stale`)?.status?.channels?.[0];
        expect(stale?.errorCode).toBe('incidentio_unauthorized');
        return teams;
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    const stale = statuses.find((t) => t.metadata.name === `${run}-stale`)!.status!.channels![0]!;
    expect(stale.lastError).toMatch(
      /^incident\.io at http:\/\/127\.0\.0\.1:\d+ refused the (firing|resolved) event with HTTP 401: authentication_error: The provided token is not valid/,
    );
    expect(stale.channel).toMatch(/^incidentio http:\/\/127\.0\.0\.1:\d+ #[0-9a-f]{12}$/);

    // The token only as the bearer of its own source's requests.
    for (const request of incidentio.requests) {
      expect([`Bearer ${token}`, `Bearer ${wrong}`]).toContain(request.authorization);
      expect(request.raw).not.toContain(token);
      expect(request.raw).not.toContain(wrong);
    }
    const log = await readFile(logFile, 'utf8');
    const written = JSON.stringify(statuses);
    for (const value of [token, wrong]) {
      expect(log).not.toContain(value);
      expect(written).not.toContain(value);
    }
  });
});
