import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_GROUP, API_VERSION, TEAM_PLURAL } from '../../src/api/vocabulary.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { FakePagerDuty } from '../../src/dev/fake-pagerduty/index.js';
import { applyHelmRelease, ensureNamespace, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { deleteNamespace, startTestController, testEnv, uniqueName, type TestController } from '../support/fixtures.js';
import { createTeam, deleteTeams } from '../support/notify-fixtures.js';
import { spawnNotify } from '../support/notify-process.js';

/**
 * Issue 21: a release fails, then recovers, with the real controller and a `helmcrew notify`
 * process talking to the local PagerDuty (src/dev/fake-pagerduty). notify is killed after the
 * failure reached PagerDuty and the recovery happens while it is down: the restarted process
 * resolves the same incident. One incident, opened then resolved, under one dedup_key.
 */
describe('PagerDuty: an incident per failing release, resolved by its recovery', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const prod = uniqueName('pdprod');
  const routingKey = randomBytes(16).toString('hex'); // 32 characters, as PagerDuty's integration keys
  const pagerduty = new FakePagerDuty();
  const cluster = 'test-cluster';
  let ctl: TestController;
  let run: string;
  let dir: string;
  const children: ResultPromise[] = [];
  const logs: string[] = [];

  const startNotify = () => {
    const logFile = join(dir, `notify-${children.length}.log`);
    logs.push(logFile);
    const child = spawnNotify(env, run, logFile, { HELMCREW_PAGERDUTY_URL: pagerduty.url, HELMCREW_CLUSTER_NAME: cluster });
    children.push(child);
    return child;
  };
  const declare = (version: string) =>
    applyHelmRelease(kubeConfig, helmReleaseObject(prod, 'unicorn', { chart: { repository: env.chartRepoUrl, name: 'unicorn', version }, timeout: '20s' }));

  beforeAll(async () => {
    await pagerduty.start();
    await ensureNamespace(kubeConfig, prod);
    // notify and the controller meet in the named cluster's keyspace (HELMCREW_CLUSTER_NAME names both).
    ctl = await startTestController([prod], { HELMCREW_CLUSTER_NAME: cluster });
    run = ctl.prefix;
    dir = await mkdtemp(join(tmpdir(), 'helmcrew-pd-'));
    await kube.core.createNamespacedSecret({
      namespace: prod,
      body: { metadata: { name: 'pagerduty', namespace: prod }, stringData: { 'routing-key': routingKey } },
    });
    // On-call hears failures only; the recovery still reaches its PagerDuty channel to resolve.
    await createTeam(kube, run, `${run}-oncall`, {
      subscriptions: [{ namespaces: [prod], severity: 'error' }],
      channels: [{ pagerduty: { secretRef: { namespace: prod, name: 'pagerduty' } } }],
    });
  });
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await Promise.all(children);
    await ctl?.stop();
    await pagerduty.stop();
    await deleteTeams(kube, run);
    await deleteNamespace(kubeConfig, prod);
  });

  it('fails, notify restarts, recovers: one incident triggered then resolved with the same dedup_key', async () => {
    const dedupKey = `helmcrew/${cluster}/${prod}/unicorn`;
    const first = startNotify();
    await waitForReconciled(kubeConfig, prod, 'unicorn', await declare('1.0.0'));
    await waitForReconciled(kubeConfig, prod, 'unicorn', await declare('4.0.0'));
    await pagerduty.waitFor(() => pagerduty.alerts.byDedupKey(dedupKey).some((a) => a.status === 'triggered'), 60_000, 'the failed upgrade to trigger');

    // notify dies after PagerDuty heard the failure; the release recovers while it is down. (Not a
    // synchronisation: if notify dies before it records the delivery, it triggers again after the
    // restart under the same dedup_key, which the assertions below allow.)
    await new Promise((resolve) => setTimeout(resolve, 1000));
    first.kill('SIGKILL');
    await first;
    const restartedAt = Date.now();
    await waitForReconciled(kubeConfig, prod, 'unicorn', await declare('2.0.0'));
    expect(pagerduty.alerts.byDedupKey(dedupKey)[0]!.status).toBe('triggered');
    void startNotify(); // a child process, kept in `children` and stopped in afterAll
    await pagerduty.waitFor(() => pagerduty.alerts.byDedupKey(dedupKey).some((a) => a.status === 'resolved'), 60_000, 'the recovery to resolve');
    // Proves that nothing more happens: late or repeated deliveries would show up now.
    await new Promise((resolve) => setTimeout(resolve, 3000));

    const alerts = pagerduty.alerts.byDedupKey(dedupKey);
    expect(alerts).toHaveLength(1); // nothing duplicated: one incident
    const [alert] = alerts;
    expect(alert!.status).toBe('resolved'); // nothing lost: the recovery after the restart resolved it
    const actions = alert!.log.map((entry) => entry.action);
    expect(actions.at(-1)).toBe('resolve');
    expect(actions.filter((a) => a === 'resolve')).toHaveLength(1);
    expect(actions.filter((a) => a === 'trigger').length).toBeGreaterThanOrEqual(1);
    expect(alert!.log.at(-1)!.at).toBeGreaterThan(restartedAt);
    const trigger = alert!.log[0]!.event as { payload: Record<string, unknown> };
    expect(trigger.payload).toMatchObject({
      severity: 'error',
      class: 'UpgradeFailed',
      component: 'unicorn',
      group: prod,
      source: `${cluster}/${prod}/unicorn`,
    });
    expect(String(trigger.payload.summary)).toMatch(new RegExp(`${prod}/unicorn in ${cluster}: Helm upgrade to unicorn@4\\.0\\.0 failed`));
    // Every event PagerDuty accepted was valid and about this release's one key; no incident anywhere else.
    expect(pagerduty.requests.every((r) => r.status === 202)).toBe(true);
    expect(pagerduty.alerts.alerts).toHaveLength(1);
    expect(pagerduty.requests.every((r) => r.event?.dedup_key === dedupKey)).toBe(true);

    // The routing key is in routing_key and nowhere else: not in another field, a log line or the Team's status.
    for (const request of pagerduty.requests) {
      expect(request.event!.routing_key).toBe(routingKey);
      expect(JSON.stringify({ ...request.event, routing_key: undefined })).not.toContain(routingKey);
    }
    for (const file of logs) expect(await readFile(file, 'utf8')).not.toContain(routingKey);
    const team = await kube.custom.getClusterCustomObject({ group: API_GROUP, version: API_VERSION, plural: TEAM_PLURAL, name: `${run}-oncall` });
    expect(JSON.stringify(team)).not.toContain(routingKey);
  });
});
