import { execa } from 'execa';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { readControllerConfig } from '../../src/controller/config.js';
import { REPO_ROOT } from '../../src/dev/paths.js';
import { testEnv } from '../support/fixtures.js';

/** The chart that installs helmcrew, checked with the pinned helm and a server-side dry run. */
describe('helm/helmcrew', () => {
  const { env } = testEnv();
  const chart = join(REPO_ROOT, 'helm/helmcrew');

  it('lints, and refuses to render without Redis', async () => {
    const lint = await execa(env.helmBin, ['lint', chart, '--set', 'redis.url=redis://redis:6379'], { reject: false });
    expect(lint.exitCode, lint.stdout).toBe(0);
    const noRedis = await execa(env.helmBin, ['template', 'hc', chart], { reject: false });
    expect(noRedis.exitCode).not.toBe(0);
    expect(noRedis.stderr).toMatch(/set redis.url or redis.existingSecret/);
  });

  it('renders objects the API server accepts (server-side dry run), CRD included', async () => {
    const rendered = await execa(env.helmBin, ['template', 'hc', chart, '--namespace', 'helmcrew', '--include-crds', '--set', 'redis.existingSecret=hc-redis']);
    const kinds = parseAllDocuments(rendered.stdout)
      .map((d) => (d.toJSON() as { kind?: string } | null)?.kind)
      .filter(Boolean);
    expect(kinds).toEqual(expect.arrayContaining(['CustomResourceDefinition', 'ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Deployment']));
    const applied = await execa(
      env.kubectlBin,
      ['--kubeconfig', env.kubeconfig, 'apply', '--dry-run=server', '--server-side', '--force-conflicts', '-f', '-'],
      {
        input: rendered.stdout.replace(/namespace: helmcrew/g, 'namespace: default'),
        reject: false,
      },
    );
    expect(applied.exitCode, applied.stderr).toBe(0);
  });

  it('exposes the repository allow-list and the size limits, in a form the controller accepts', async () => {
    const rendered = await execa(env.helmBin, [
      'template',
      'hc',
      chart,
      '--set',
      'redis.url=redis://redis:6379',
      '--set',
      'repositories.allowedHosts=charts.example.com\\,10.0.0.0/8',
    ]);
    const deployment = parseAllDocuments(rendered.stdout)
      .map((d) => d.toJSON())
      .find((o) => o?.kind === 'Deployment');
    const vars = Object.fromEntries((deployment.spec.template.spec.containers[0].env as Array<{ name: string; value?: string }>).map((e) => [e.name, e.value]));
    expect(vars).toMatchObject({
      HELMCREW_ALLOWED_REPOSITORY_HOSTS: 'charts.example.com,10.0.0.0/8',
      HELMCREW_MAX_INDEX_BYTES: String(20 * 1024 * 1024),
      HELMCREW_INDEX_CACHE_BYTES: String(64 * 1024 * 1024),
      HELMCREW_MAX_RELEASE_RECORD_BYTES: String(32 * 1024 * 1024),
    });
    const config = readControllerConfig(vars);
    expect(config).toMatchObject({ maxIndexBytes: 20 * 1024 * 1024, indexCacheBytes: 64 * 1024 * 1024, maxReleaseRecordBytes: 32 * 1024 * 1024 });
    expect(config.allowedRepositoryHosts.names.has('charts.example.com')).toBe(true);
  });
});
