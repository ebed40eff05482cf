import { CoreV1Api } from '@kubernetes/client-node';
import { execa } from 'execa';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReleaseStorage } from '../../src/core/helm-storage/release-storage.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { waitForReadyReason } from '../../src/dev/harness/reconciled.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { parse } from 'yaml';
import { startGitHttpServer, type GitHttpServer } from '../../src/dev/git-server.js';
import { createChartGitRepo } from '../../src/dev/git-repos.js';
import { startTestChartServer, type TestChartServer } from '../support/chart-servers.js';
import { namespaceWithController, testEnv } from '../support/fixtures.js';

/** `layered` 1.0.0: values.yaml (defaults) and values-prod.yaml, rendered into one ConfigMap. */
async function layeredChart(helmBin: string, repoDir: string): Promise<void> {
  const chartDir = join(repoDir, '..', 'src', 'layered');
  await mkdir(join(chartDir, 'templates'), { recursive: true });
  await writeFile(join(chartDir, 'Chart.yaml'), 'apiVersion: v2\nname: layered\nversion: 1.0.0\n');
  await writeFile(join(chartDir, 'values.yaml'), 'colour: grey\nsize: small\nshape: round\n');
  await writeFile(join(chartDir, 'values-prod.yaml'), 'colour: prod-red\nsize: large\n');
  await writeFile(
    join(chartDir, 'templates', 'configmap.yaml'),
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-look\ndata:\n  colour: {{ .Values.colour | quote }}\n  size: {{ .Values.size | quote }}\n  shape: {{ .Values.shape | quote }}\n',
  );
  await execa(helmBin, ['package', chartDir, '--destination', repoDir]);
  await execa(helmBin, ['repo', 'index', repoDir]);
}

/** Issue 24: spec.chart.valuesFiles, the chart's own values files merged in order under spec.values. */
describe('spec.chart.valuesFiles', () => {
  const { env, kubeConfig } = testEnv();
  const storage = new ReleaseStorage(makeKubeClients(kubeConfig));
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const { namespace } = namespaceWithController('valuesfiles');
  let dir: string;
  let server: TestChartServer;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'helmcrew-layered-'));
    await mkdir(join(dir, 'repo'));
    await layeredChart(env.helmBin, join(dir, 'repo'));
    server = await startTestChartServer(join(dir, 'repo'));
  });
  afterAll(async () => {
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('a listed file is merged over values.yaml and under spec.values; a missing one is skipped only when allowed', async () => {
    const generation = await applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, 'prod', {
        chart: {
          repository: server.url,
          name: 'layered',
          version: '1.0.0',
          valuesFiles: ['values-prod.yaml', 'values-absent.yaml'],
          ignoreMissingValuesFiles: true,
        },
        timeout: '60s',
        values: { size: 'inline' },
      }),
    );
    const release = await waitForReconciled(kubeConfig, namespace, 'prod', generation);
    expect(release.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True' });
    expect((await storage.history(namespace, 'prod')).deployed?.config).toEqual({ colour: 'prod-red', size: 'inline' });
    const look = await core.readNamespacedConfigMap({ namespace, name: 'prod-look' });
    expect(look.data).toEqual({ colour: 'prod-red', size: 'inline', shape: 'round' });

    // the list is part of the values: dropping the file upgrades back to the chart's defaults
    const next = await applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, 'prod', {
        chart: { repository: server.url, name: 'layered', version: '1.0.0' },
        timeout: '60s',
        values: { size: 'inline' },
      }),
    );
    await waitForReconciled(kubeConfig, namespace, 'prod', next);
    const history = await storage.history(namespace, 'prod');
    expect(history.deployed).toMatchObject({ revision: 2, config: { size: 'inline' } });
    expect((await core.readNamespacedConfigMap({ namespace, name: 'prod-look' })).data).toEqual({ colour: 'grey', size: 'inline', shape: 'round' });
  });

  it('a file the chart does not have is a ValuesInvalid naming the file and the chart', async () => {
    await applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, 'typo', {
        chart: { repository: server.url, name: 'layered', version: '1.0.0', valuesFiles: ['values-prd.yaml'] },
        timeout: '60s',
      }),
    );
    const { ready } = await waitForReadyReason(kubeConfig, namespace, 'typo', 'ValuesInvalid');
    expect(ready.status).toBe('False');
    expect(ready.message).toContain('values file values-prd.yaml is not in chart layered 1.0.0');
    expect((await storage.history(namespace, 'typo')).deployed).toBeUndefined();
    // a path out of the chart never reaches the controller: the API server refuses it
    await expect(
      applyHelmRelease(
        kubeConfig,
        helmReleaseObject(namespace, 'escape', { chart: { repository: server.url, name: 'layered', version: '1.0.0', valuesFiles: ['../../etc/passwd'] } }),
      ),
    ).rejects.toThrow(/valuesFiles\[0\]/);
  });

  it('a git chart: the file is read from the checkout folder', async () => {
    const root = join(dir, 'git');
    await mkdir(root);
    await createChartGitRepo(root, 'charts', '1.0.0', 'pink');
    const http: GitHttpServer = await startGitHttpServer(root);
    try {
      const git = { url: `${http.url}/charts.git`, ref: { branch: 'main' }, path: 'charts/unicorn' };
      const generation = await applyHelmRelease(
        kubeConfig,
        helmReleaseObject(namespace, 'fromgit', { chart: { name: 'unicorn', git, valuesFiles: ['values.yaml'] }, timeout: '60s', values: { color: 'teal' } }),
      );
      const release = await waitForReconciled(kubeConfig, namespace, 'fromgit', generation);
      expect(release.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True' });
      // Helm's stored values hold the whole listed file (the chart's defaults otherwise stay out of them), spec.values on top
      const file = parse(await readFile(join(root, 'charts.work', 'charts', 'unicorn', 'values.yaml'), 'utf8')) as Record<string, unknown>;
      expect(Object.keys(file).length).toBeGreaterThan(1);
      expect((await storage.history(namespace, 'fromgit')).deployed?.config).toEqual({ ...file, color: 'teal' });
    } finally {
      await http.stop();
    }
  });
});
