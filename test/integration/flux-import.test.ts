import { execa } from 'execa';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppsV1Api, CoreV1Api } from '@kubernetes/client-node';
import { parseAllDocuments, stringify } from 'yaml';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { ReleaseStorage } from '../../src/core/helm-storage/release-storage.js';
import { waitForReconciled } from '../../src/dev/releases.js';
import { applyFluxCrds, fluxOriginLabelsPlugin, removeFluxCrds } from '../support/flux.js';
import { namespaceWithController, testEnv } from '../support/fixtures.js';
import { waitForReadyReason } from '../support/eventually.js';
import { runHelmcrewCli } from '../support/helmcrew-cli.js';

/**
 * Issue 24, moving from Flux: Flux's own CRDs and objects on the test API server, releases left
 * as Flux's helm-controller leaves them (its origin labels through a helm post-renderer), then
 * `helmcrew import flux` from a file and from the cluster, and a controller taking the releases over.
 */
describe('helmcrew import flux', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const api = new HelmReleaseApi(kube);
  const storage = new ReleaseStorage(kube);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const { namespace, ctl } = namespaceWithController('flux');
  const file = join(tmpdir(), `flux-import-${process.pid}.yaml`);
  const fileWithoutKept = join(tmpdir(), `flux-import-${process.pid}-handover.yaml`);

  const fluxRelease = (name: string, values: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    apiVersion: 'helm.toolkit.fluxcd.io/v2',
    kind: 'HelmRelease',
    metadata: { name, namespace },
    spec: {
      interval: '1m',
      chart: { spec: { chart: 'unicorn', version: '1.0.0', sourceRef: { kind: 'HelmRepository', name: 'charts' }, interval: '5m' } },
      values,
      ...extra,
    },
  });
  const fluxObjects = [
    {
      apiVersion: 'source.toolkit.fluxcd.io/v1',
      kind: 'HelmRepository',
      metadata: { name: 'charts', namespace },
      spec: { interval: '5m', url: env.chartRepoUrl },
    },
    // Installed by Flux: handed over. Carries fields helmcrew has no place for.
    fluxRelease('web', { message: 'from flux' }, { waitStrategy: { name: 'poller' }, persistentClient: true, install: { remediation: { retries: 2 } } }),
    // Never installed: helmcrew installs it.
    fluxRelease('fresh', { message: 'new' }),
    // Installed by hand with the same name: the handover must refuse it.
    fluxRelease('handmade', { message: 'by hand' }),
    // Installed by Flux, imported with --no-handover: refused as ever.
    fluxRelease('kept', { message: 'kept' }),
  ];

  const helm = (args: string[], extraEnv: Record<string, string> = {}) => execa(env.helmBin, args, { env: { KUBECONFIG: env.kubeconfig, ...extraEnv } });
  const importFlux = (args: string[]) =>
    runHelmcrewCli(['import', 'flux', ...args], {
      env: { KUBECONFIG: env.kubeconfig, LOG_LEVEL: 'warn' },
      timeout: 120_000,
    });
  const releasesIn = (yaml: string) => parseAllDocuments(yaml).map((d) => d.toJS() as HelmRelease);

  afterAll(() => removeFluxCrds(kubeConfig), 60_000);
  beforeAll(async () => {
    await applyFluxCrds(kubeConfig);
    for (const object of fluxObjects) {
      const [group, version] = object.apiVersion.split('/') as [string, string];
      await kube.custom.createNamespacedCustomObject({
        group,
        version,
        namespace,
        plural: object.kind === 'HelmRelease' ? 'helmreleases' : 'helmrepositories',
        body: object,
      });
    }
    await writeFile(file, fluxObjects.map((o) => stringify(o)).join('---\n'));
    await writeFile(
      fileWithoutKept,
      fluxObjects
        .filter((o) => o.metadata.name !== 'kept')
        .map((o) => stringify(o))
        .join('---\n'),
    );
    // As Flux's helm-controller would leave them: install then upgrade (revisions 1, 2), its origin labels on every object.
    const plugin = await fluxOriginLabelsPlugin();
    for (const [name, message] of [
      ['web', 'from flux'],
      ['kept', 'kept'],
    ] as const) {
      for (const verb of ['install', 'upgrade']) {
        await helm(
          [
            verb,
            name,
            'unicorn',
            '--repo',
            env.chartRepoUrl,
            '--version',
            '1.0.0',
            '-n',
            namespace,
            '--set',
            `message=${message}`,
            '--wait=watcher',
            '--timeout',
            '2m',
            '--post-renderer',
            plugin.name,
            '--post-renderer-args',
            name,
            '--post-renderer-args',
            namespace,
          ],
          { HELM_PLUGINS: plugin.pluginsDir },
        );
      }
    }
    await helm(['install', 'handmade', 'unicorn', '--repo', env.chartRepoUrl, '--version', '1.0.0', '-n', namespace, '--set', 'message=by hand']);
  }, 300_000);

  it('Flux leaves its origin labels on the objects and in the stored manifest, and none on the record Secret', async () => {
    const history = await storage.history(namespace, 'web');
    expect(history.latest).toMatchObject({ revision: 2, status: 'deployed' });
    expect(history.latest?.manifest).toContain(`helm.toolkit.fluxcd.io/name: web`);
    const record = await core.readNamespacedSecret({ namespace, name: 'sh.helm.release.v1.web.v2' });
    expect(Object.keys(record.metadata?.labels ?? {}).filter((k) => k.includes('/'))).toEqual([]);
    const deployment = await kubeConfig.makeApiClient(AppsV1Api).readNamespacedDeployment({ namespace, name: 'web' });
    expect(deployment.metadata?.labels).toMatchObject({ 'helm.toolkit.fluxcd.io/name': 'web', 'helm.toolkit.fluxcd.io/namespace': namespace });
  });

  it('from a file: helmcrew HelmReleases on stdout, what cannot be carried on stderr', async () => {
    const result = await importFlux(['-f', file]);
    expect(result.exitCode).toBe(0);
    const releases = releasesIn(result.stdout);
    expect(releases.map((r) => r.metadata.name).sort()).toEqual(['fresh', 'handmade', 'kept', 'web']);
    const web = releases.find((r) => r.metadata.name === 'web')!;
    expect(web).toMatchObject({
      apiVersion: 'helmcrew.dev/v1alpha1',
      kind: 'HelmRelease',
      metadata: { annotations: { 'helmcrew.dev/adopt-release': `${namespace}/web`, 'helmcrew.dev/adopt-from-flux': `${namespace}/web` } },
      spec: {
        chart: { repository: env.chartRepoUrl.replace(/\/+$/, ''), name: 'unicorn', version: '1.0.0' },
        releaseName: 'web',
        values: { message: 'from flux' },
      },
    });
    expect(result.stderr).toContain(`HelmRelease ${namespace}/web → helmcrew HelmRelease ${namespace}/web (takes over Helm release ${namespace}/web)`);
    expect(result.stderr).toContain('not carried: spec.waitStrategy: handled differently');
    expect(result.stderr).toContain('not carried: spec.persistentClient: handled differently');
    expect(result.stderr).toContain(`not carried: HelmRepository ${namespace}/charts spec.interval`);
  });

  it('from the cluster: the same HelmReleases, read through the API; --apply applies them (kept: with --no-handover)', async () => {
    const fromFile = releasesIn((await importFlux(['-f', file])).stdout);
    const fromCluster = await importFlux(['-n', namespace]);
    expect(fromCluster.exitCode).toBe(0);
    const sortByName = (list: HelmRelease[]) => [...list].sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
    expect(sortByName(releasesIn(fromCluster.stdout))).toEqual(sortByName(fromFile));

    // "kept" without a handover: imported from the file with --no-handover.
    const keptYaml = releasesIn((await importFlux(['-f', file, '--no-handover'])).stdout).find((r) => r.metadata.name === 'kept')!;
    expect(keptYaml.metadata.annotations).toBeUndefined();
    await kube.custom.createNamespacedCustomObject({ group: 'helmcrew.dev', version: 'v1alpha1', namespace, plural: 'helmreleases', body: keptYaml });
    const applied = await importFlux(['-f', fileWithoutKept, '--apply']);
    expect(applied.exitCode).toBe(0);
    expect(applied.stderr).toContain(`applied HelmRelease ${namespace}/web`);
  });

  it('a release Flux installed is taken over at the next revision, with no uninstall or reinstall', async () => {
    const web = await api.get(namespace, 'web');
    const reconciled = await waitForReconciled(kubeConfig, namespace, 'web', web!.metadata.generation!, 180_000);
    expect(reconciled.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True', reason: 'UpgradeSucceeded' });
    expect(reconciled.status?.handover).toMatchObject({ release: `${namespace}/web`, from: `Flux HelmRelease ${namespace}/web`, revision: 2 });
    const history = await storage.history(namespace, 'web');
    expect(history.releases.map((r) => [r.revision, r.status])).toEqual([
      [3, 'deployed'],
      [2, 'superseded'],
      [1, 'superseded'],
    ]);
    expect(history.latest?.labels).toMatchObject({ 'helmcrew.dev/owner-namespace': namespace, 'helmcrew.dev/owner-name': 'web' });
    // helm's own history: N+1, no uninstall in between.
    const helmHistory = JSON.parse((await helm(['history', 'web', '-n', namespace, '--output', 'json'])).stdout) as Array<{
      revision: number;
      description: string;
    }>;
    expect(helmHistory.map((h) => h.revision)).toEqual([1, 2, 3]);
    expect(helmHistory.map((h) => h.description).join(' ')).not.toMatch(/uninstall/i);
    const invocations = await ctl.helm.invocations();
    expect(invocations.filter((args) => args[0] !== 'pull' && args.includes('web')).map((args) => args[0])).toEqual(['upgrade']);
    const events = (await core.listNamespacedEvent({ namespace, fieldSelector: 'involvedObject.name=web' })).items.map((e) => e.reason);
    expect(events).toContain('ReleaseAdopted');
  });

  it('a HelmRelease Flux never installed is installed', async () => {
    const fresh = await api.get(namespace, 'fresh');
    const reconciled = await waitForReconciled(kubeConfig, namespace, 'fresh', fresh!.metadata.generation!, 180_000);
    expect(reconciled.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True', reason: 'InstallSucceeded' });
    expect(reconciled.status?.handover).toBeUndefined();
  });

  it('a release another tool installed is not taken over, whatever the annotation says', async () => {
    const refused = await waitForReadyReason(kubeConfig, namespace, 'handmade', 'ReleaseOwnedByOther');
    expect(refused.ready.message).toContain('handover refused:');
    expect(refused.ready.message).toContain('carries no Flux labels: not installed by Flux HelmRelease');
    expect((await storage.history(namespace, 'handmade')).releases.map((r) => r.revision)).toEqual([1]);
  });

  it('without the handover annotation the ownership guard refuses as before', async () => {
    const refused = await waitForReadyReason(kubeConfig, namespace, 'kept', 'ReleaseOwnedByOther');
    expect(refused.ready.message).toMatch(/was not installed by this HelmRelease \(it has no helmcrew owner label\); helmcrew will not upgrade/);
    expect((await storage.history(namespace, 'kept')).releases.map((r) => r.revision)).toEqual([2, 1]);
    expect(await ctl.helm.count('uninstall')).toBe(0);
  });
});
