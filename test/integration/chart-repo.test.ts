// The local chart repository: packaging every unicorn version, serving them, and nothing else.
import { access, mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { createLogger } from '../../src/core/log.js';
import { startChartRepo } from '../../src/dev/chart-repo.js';
import { toolchainPaths } from '../../src/dev/paths.js';
import { brokenContainerPort, chartVersions, packagedVersions } from '../../src/dev/unicorn-versions.js';
import { pidAlive } from '../../src/dev/processes.js';
import { eventually } from '../support/eventually.js';

const helmBin = toolchainPaths().helm;

/** GET with the request target sent exactly as written (fetch would normalise `/../`). */
function rawGet(url: string, path: string): Promise<number> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path, method: 'GET' }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('local chart repository', () => {
  let dir: string;
  let repo: { url: string; pid: number } | undefined;
  let helmEnv: Record<string, string>;

  const helm = (args: string[]) => execa(helmBin, args, { env: helmEnv });

  /** The rendered page of `version` (ConfigMap `<release>-page`) and its Deployment. */
  async function render(version: string) {
    const { stdout } = await helm(['template', 'demo', 'unicorn', '--repo', repo!.url, '--version', version]);
    const docs = parseAllDocuments(stdout)
      .map((d) => d.toJS())
      .filter(Boolean);
    const page = docs.find((d) => d.kind === 'ConfigMap' && d.metadata.name === 'demo-page');
    const deployment = docs.find((d) => d.kind === 'Deployment' && d.metadata.name === 'demo');
    return { html: page?.data?.['index.html'] as string, deployment };
  }

  beforeAll(async () => {
    await access(helmBin).catch(() => {
      throw new Error(`helm not found at ${helmBin}: run scripts/build-toolchain.sh helm`);
    });
    dir = await mkdtemp(join(tmpdir(), 'helmcrew-chart-repo-'));
    helmEnv = {
      HELM_CACHE_HOME: join(dir, 'helm', 'cache'),
      HELM_CONFIG_HOME: join(dir, 'helm', 'config'),
      HELM_DATA_HOME: join(dir, 'helm', 'data'),
    };
    repo = await startChartRepo({ stateDir: join(dir, 'state'), helmBin, log: createLogger('test', 'warn') });
  }, 60_000);

  afterAll(async () => {
    if (repo) {
      process.kill(repo.pid, 'SIGTERM');
      const pid = repo.pid;
      await eventually(() => expect(pidAlive(pid)).toBe(false), { timeoutMs: 5_000, intervalMs: 100 });
    }
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('serves an index listing every version', async () => {
    expect(repo!.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await fetch(`${repo!.url}/index.yaml`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/yaml');
    const index = parse(await res.text());
    const entries = index.entries.unicorn as Array<{ version: string; appVersion: string; urls: string[] }>;
    expect(entries.map((e) => e.version).sort()).toEqual(packagedVersions.map((v) => v.version).sort());
    for (const e of entries) {
      expect(e.appVersion).toBe(e.version);
      const tgz = await fetch(`${repo!.url}/${e.urls[0]}`);
      expect(tgz.status).toBe(200);
      expect(tgz.headers.get('content-type')).toBe('application/gzip');
      await tgz.body?.cancel();
    }
  });

  it('runs detached from this process', () => {
    expect(repo!.pid).not.toBe(process.pid);
    expect(pidAlive(repo!.pid)).toBe(true);
  });

  it('lets helm show the chart through the repo URL', async () => {
    const { stdout } = await helm(['show', 'chart', 'unicorn', '--repo', repo!.url, '--version', '1.0.0']);
    const chart = parse(stdout);
    expect(chart).toMatchObject({ name: 'unicorn', version: '1.0.0', appVersion: '1.0.0' });
  }, 30_000);

  it('renders 1.0.0 pink and 3.0.0 green', async () => {
    const pink = await render('1.0.0');
    expect(pink.html).toContain('data-color="pink"');
    expect(pink.html).toContain('<title>The pink unicorn</title>');
    const green = await render('3.0.0');
    expect(green.html).toContain('data-color="green"');
    expect(green.html).not.toContain('pink');
    // A new colour rolls the pods.
    const checksum = (d: { spec: { template: { metadata: { annotations: Record<string, string> } } } }) =>
      d.spec.template.metadata.annotations['checksum/page'];
    expect(checksum(green.deployment)).not.toBe(checksum(pink.deployment));
  }, 30_000);

  it('renders the broken version fine: it only fails when applied', async () => {
    const broken = chartVersions.find((v) => v.broken)!;
    const { deployment } = await render(broken.version);
    expect(deployment.spec.template.spec.containers[0].ports[0].containerPort).toBe(brokenContainerPort);
  }, 30_000);

  it('answers 404 outside the chart folder', async () => {
    expect(await rawGet(repo!.url, '/../package.json')).toBe(404);
    expect(await rawGet(repo!.url, '/%2e%2e/package.json')).toBe(404);
    expect(await rawGet(repo!.url, '/..%2fpackage.json')).toBe(404);
    expect(await rawGet(repo!.url, '/no-such-chart-9.9.9.tgz')).toBe(404);
    expect(await rawGet(repo!.url, '/')).toBe(404);
  });
});
