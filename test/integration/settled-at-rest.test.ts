import { CoreV1Api } from '@kubernetes/client-node';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { ReleaseStorage } from '../../src/core/helm-storage/release-storage.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { statePaths } from '../../src/dev/paths.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { waitForCheckBegunNow, waitForChecks } from '../support/checks.js';
import { auditEntriesSince, auditLogEnd } from '../support/audit-log.js';
import { eventually } from '../support/eventually.js';
import { namespaceWithController, testEnv } from '../support/fixtures.js';

/**
 * Issue 36: a settled release's periodic check reads Helm's records only when the watch of their
 * metadata shows they changed. Counted by the API server itself: its audit log records every LIST
 * and GET of Secrets with its URL (src/dev/control-plane.ts). A read is a LIST by label or, when
 * the record watch names the records, a GET of each by name (stages/gate.ts readRecords).
 */
describe('settled releases at rest', () => {
  const { env, kubeConfig } = testEnv();
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const { namespace, ctl } = namespaceWithController('at-rest');
  const auditLog = statePaths(env.stateDir).auditLog;
  const spec = { chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' }, interval: '1s', values: { replicaCount: 0, message: 'kept' } };
  const key = (name: string) => `${namespace}/${name}`;

  /**
   * The controller's reads of `release`'s record Secrets in the audit log from byte `from` on: LISTs
   * by label, GETs by name. Helm's own reads and this test's (client-node) are told by their user agent.
   */
  async function recordReads(release: string, from: number, only?: 'list' | 'get'): Promise<number> {
    const selector = encodeURIComponent(`owner=helm,name=${release}`);
    const isList = (uri: string) => uri.startsWith(`/api/v1/namespaces/${namespace}/secrets?`) && uri.includes(selector);
    const isGet = (uri: string) => uri.startsWith(`/api/v1/namespaces/${namespace}/secrets/sh.helm.release.v1.${release}.v`);
    return (await auditEntriesSince(auditLog, from))
      .filter((entry) => !/^(Helm|kubernetes-client-javascript)\//.test(entry.userAgent ?? ''))
      .filter(({ requestURI: uri }) => (only !== 'get' && isList(uri)) || (only !== 'list' && isGet(uri))).length;
  }
  const logSize = () => auditLogEnd(auditLog);

  /** Someone runs `helm upgrade` outside helmcrew, with a value the spec does not have. */
  async function helmUpgradeByHand(release: string): Promise<void> {
    const args = ['upgrade', release, 'unicorn', '--repo', env.chartRepoUrl, '--version', '1.0.0', '--namespace', namespace, '--set', 'message=by-hand'];
    await execa(env.helmBin, args, { env: { KUBECONFIG: env.kubeconfig } });
  }

  /** helmcrew noticed the change and upgraded back to its spec (revision 3 or later). */
  async function expectSpecAppliedAgain(release: string): Promise<void> {
    const storage = new ReleaseStorage(makeKubeClients(kubeConfig));
    await eventually(
      async () => {
        const { deployed } = await storage.history(namespace, release);
        expect(deployed?.revision).toBeGreaterThanOrEqual(3);
        expect(deployed?.config).toEqual(spec.values);
      },
      { timeoutMs: 60_000, intervalMs: 250 },
    );
  }

  async function installed(names: string[]): Promise<void> {
    for (const name of names)
      await waitForReconciled(kubeConfig, namespace, name, await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, name, spec)));
    // Past the install's follow-up passes (each read of the records is remembered).
    await waitForCheckBegunNow(env.redisUrl, ctl.prefix, names.map(key));
  }

  it('checked again and again without a LIST of its records, no helm and no write', async () => {
    const from = await logSize();
    await installed(['quiet']);
    // The audit log does see this release's reads: the install's and the first check's.
    expect(await recordReads('quiet', from)).toBeGreaterThan(0);
    const helmRuns = (await ctl.helm.invocations()).length;
    const atRest = await logSize();
    const checks = await waitForChecks(env.redisUrl, ctl.prefix, [key('quiet')], 4, 30_000);
    expect(checks.get(key('quiet'))!.size).toBeGreaterThanOrEqual(4);
    expect(await recordReads('quiet', atRest)).toBe(0);
    expect((await ctl.helm.invocations()).length).toBe(helmRuns);
  });

  it("the checks right after our own install read no record: the run's history stands once the watch shows its record", async () => {
    const name = 'just-installed';
    await waitForReconciled(kubeConfig, namespace, name, await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, name, spec)));
    const afterInstall = await logSize();
    const checks = await waitForChecks(env.redisUrl, ctl.prefix, [key(name)], 3, 30_000);
    expect(checks.get(key(name))!.size).toBeGreaterThanOrEqual(3);
    expect(await recordReads(name, afterInstall)).toBe(0);
  });

  it('helm upgrade by hand right after our own install, before the watch has vouched for our record, is noticed', async () => {
    const name = 'by-hand-early';
    await waitForReconciled(kubeConfig, namespace, name, await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, name, spec)));
    await helmUpgradeByHand(name);
    await expectSpecAppliedAgain(name);
  });

  it('helm run by hand behind its back is noticed: the records are read and the spec is applied again', async () => {
    await installed(['by-hand']);
    const atRest = await logSize();
    await helmUpgradeByHand('by-hand');
    await expectSpecAppliedAgain('by-hand');
    // The record watch saw helm's new records, newer than the HelmRelease: it names them, and they are read by name.
    expect(await recordReads('by-hand', atRest, 'get')).toBeGreaterThan(0);
    expect(await ctl.helm.count('upgrade')).toBeGreaterThanOrEqual(1);
  });

  it('a deleted record is noticed: the release is installed again', async () => {
    await installed(['deleted']);
    const installs = await ctl.helm.count('install');
    await core.deleteNamespacedSecret({ namespace, name: 'sh.helm.release.v1.deleted.v1' });
    await eventually(async () => expect(await ctl.helm.count('install')).toBeGreaterThan(installs), { timeoutMs: 60_000, intervalMs: 250 });
    const storage = new ReleaseStorage(makeKubeClients(kubeConfig));
    await eventually(async () => expect((await storage.history(namespace, 'deleted')).deployed?.config).toEqual(spec.values), {
      timeoutMs: 60_000,
      intervalMs: 250,
    });
  });
});
