import { execa } from 'execa';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HelmReleaseSpec } from '../../src/api/helmrelease.js';
import type { ResolvedChartSource } from '../../src/controller/reconcile/desired/compose-desired.js';
import { composeDesiredRelease } from '../../src/controller/reconcile/desired/compose-desired.js';
import { resolveDesiredRelease, type DesiredReleasePorts } from '../../src/controller/reconcile/desired/resolve-desired.js';
import type { KubeClients } from '../../src/core/kube/client.js';
import { postRenderDigest } from '../../src/core/release/post-render.js';
import { SecretValues } from '../../src/core/release/secret-values.js';
import { ValuesDigester } from '../../src/core/release/values-digest.js';
import { helmReleaseObject } from '../../src/dev/harness/releases.js';

const digester = new ValuesDigester(Buffer.alloc(32, 7));
const postRenderers: HelmReleaseSpec['postRenderers'] = [
  {
    kustomize: {
      patches: [{ patch: '- op: add\n  path: /data/x\n  value: "1"\n', target: { kind: 'ConfigMap' } }],
      images: [{ name: 'nginx', newTag: '1.28' }],
    },
  },
];
const commonMetadata = { labels: { 'cost-center': 'cc-1' } };
const password = 'Chart-Sesame-4-All';
const b64 = (text: string) => Buffer.from(text).toString('base64');

const sources: Array<{ name: string; chart: HelmReleaseSpec['chart']; digest: string | undefined }> = [
  {
    name: 'http(s) index',
    chart: { repository: 'https://charts.example.test', name: 'unicorn', version: '1.x', secretRef: { name: 'login' } },
    digest: undefined,
  },
  {
    name: 'OCI registry',
    chart: { repository: 'oci://registry.example.test/charts', name: 'unicorn', version: '1.x', secretRef: { name: 'login' } },
    digest: 'sha256:abc',
  },
  {
    name: 'Git',
    chart: { name: 'unicorn', git: { url: 'https://git.example.test/charts.git', path: 'charts/unicorn', secretRef: { name: 'login' } } },
    digest: 'git:c0ffee',
  },
];

/** In-memory chart sources: each answers version 1.2.0; the chart (folder or archive) holds values-prod.yaml. */
describe('resolveDesiredRelease: one composition, whatever the chart source (issue 31: Git charts lost their post-rendering)', () => {
  let dir = '';
  let ports: DesiredReleasePorts;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'helmcrew-desired-'));
    await mkdir(join(dir, 'unicorn'));
    await writeFile(join(dir, 'unicorn', 'Chart.yaml'), 'name: unicorn\nversion: 1.2.0\n');
    await writeFile(join(dir, 'unicorn', 'values-prod.yaml'), 'color: red\nsize: large\n');
    await execa('tar', ['-czf', join(dir, 'unicorn-1.2.0.tgz'), '-C', dir, 'unicorn']);
    // Only the credentials Secret is read: no valuesFrom.
    const kube = { core: { readNamespacedSecret: async () => ({ data: { username: b64('charts'), password: b64(password) } }) } } as unknown as KubeClients;
    ports = {
      kube,
      digester,
      charts: {
        resolveChart: async (chart) =>
          chart.repository?.startsWith('oci://')
            ? { version: '1.2.0', digest: 'sha256:abc', ociRef: `${chart.repository}/unicorn` }
            : { version: '1.2.0', archiveUrl: `${chart.repository}/unicorn-1.2.0.tgz` },
        downloadArchive: () => Promise.reject(new Error('helm pulls in this test')),
      },
      gitCharts: { resolve: async () => ({ commit: 'c0ffee', ref: 'HEAD', chartDir: join(dir, 'unicorn'), version: '1.2.0' }) },
      helm: { pullChart: async () => join(dir, 'unicorn-1.2.0.tgz') },
      tenancy: { allowCrossNamespaceTargets: false },
      log: pino({ level: 'silent' }),
    };
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it.each(sources)(
    '$name: values files, values and their digest, post-rendering, common metadata and credentials reach the desired release',
    async ({ chart, digest }) => {
      const spec: HelmReleaseSpec = { chart: { ...chart, valuesFiles: ['values-prod.yaml'] }, values: { color: 'blue' }, postRenderers, commonMetadata };
      const resolved = await resolveDesiredRelease(ports, helmReleaseObject('web', 'unicorn', spec));
      if (!resolved.ok) throw new Error(resolved.message);
      const { desired } = resolved;
      expect(desired).toMatchObject({ chartName: 'unicorn', chartVersion: '1.2.0' });
      expect(desired.chartDigest).toBe(digest);
      // chart defaults < valuesFiles < valuesFrom < values
      expect(desired.values).toEqual({ color: 'blue', size: 'large' });
      expect(desired.valuesDigest).toBe(digester.digest({ color: 'blue', size: 'large' }));
      expect(desired.postRender).toEqual({ renderers: postRenderers, commonMetadata: { labels: { 'cost-center': 'cc-1' }, annotations: {} } });
      expect(desired.postRenderDigest).toBe(postRenderDigest(desired.postRender));
      expect(desired.secrets.list()).toContain(password);
    },
  );

  it('a Git chart in a controller without Git: a chart problem naming the repository', async () => {
    const { gitCharts: _, ...withoutGit } = ports;
    const resolved = await resolveDesiredRelease(withoutGit, helmReleaseObject('web', 'unicorn', { chart: sources[2]!.chart }));
    expect(resolved).toEqual({
      ok: false,
      problem: 'chart',
      message: 'charts from Git are not enabled in this controller (https://git.example.test/charts.git)',
    });
  });
});

describe('composeDesiredRelease', () => {
  const source: ResolvedChartSource = {
    chartName: 'unicorn',
    chartVersion: '1.2.0',
    chartSource: { repository: 'https://charts.example.test', access: { insecure: false, cacheKey: 'anonymous' } },
    secrets: ['chart-password'],
  };
  const secrets = new SecretValues();
  secrets.add('value-secret');
  const digest = (values: Record<string, unknown>) => digester.digest(values);

  it.each<{
    name: string;
    spec: Pick<HelmReleaseSpec, 'postRenderers' | 'commonMetadata'>;
    valuesFiles?: Record<string, unknown>;
    values: Record<string, unknown>;
  }>([
    { name: 'nothing to post-render, no values files', spec: {}, values: { a: 1 } },
    { name: 'values files under the composed values', spec: {}, valuesFiles: { a: 0, b: 2 }, values: { a: 1, b: 2 } },
    { name: 'common metadata only', spec: { commonMetadata: { annotations: { x: 'y' } } }, values: { a: 1 } },
    { name: 'post-renderers', spec: { postRenderers }, values: { a: 1 } },
  ])('$name', ({ spec, valuesFiles, values }) => {
    const desired = composeDesiredRelease({ spec, source, composed: { values: { a: 1 }, secrets }, ...(valuesFiles ? { valuesFiles } : {}) }, digest);
    expect(desired.values).toEqual(values);
    expect(desired.valuesDigest).toBe(digest(values));
    const asked = spec.postRenderers || spec.commonMetadata;
    expect(desired.postRender === undefined).toBe(!asked);
    expect(desired.postRenderDigest).toBe(asked ? postRenderDigest(desired.postRender) : undefined);
    expect(desired.secrets.list().sort()).toEqual(['chart-password', 'value-secret']);
    // The composed values' own secrets are not added to: each desired release has its own set.
    expect(secrets.list()).toEqual(['value-secret']);
  });

  it('overlays status.approvedOverrides over the values files and the declared values, and reports one that gave way', () => {
    const approvedOverrides = [
      { valuesPath: 'image.tag', value: '1.5.0', declared: '1.4.2' },
      { valuesPath: 'image.digest', value: 'sha256:ab' },
    ];
    const desired = composeDesiredRelease(
      {
        spec: {},
        source,
        composed: { values: { a: 1, image: { tag: '1.4.2' } }, secrets },
        valuesFiles: { image: { digest: 'sha256:00' } },
        approvedOverrides,
      },
      digest,
    );
    // The digest path is declared by a values file now (it was not when approved): that change gave way.
    expect(desired.values).toEqual({ a: 1, image: { tag: '1.5.0', digest: 'sha256:00' } });
    expect(desired.valuesDigest).toBe(digest(desired.values));
    expect(desired.overridesGivenWay).toEqual([{ valuesPath: 'image.digest', why: 'the declared values now set image.digest themselves' }]);
  });
});
