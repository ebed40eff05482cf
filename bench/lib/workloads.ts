// The charts burst.ts and helm-env.ts can run: unicorn (this project's own small chart: a ConfigMap, a Deployment
// and a Service, 1.0.0 → 2.0.0) and podinfo 6.9.2 (Flux's benchmark chart, vendored under
// bench/charts/ with its licence; the upgrade is a values change, the same on both sides).
import { execFileSync } from 'node:child_process';
import { copyFile, mkdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import type { HelmReleaseSpec } from '../../src/api/helmrelease.js';
import { pushChart } from '../../src/dev/oci-registry.js';
import { REPO_ROOT } from '../../src/dev/paths.js';
import type { Cleanup } from './cleanup.js';
import type { BenchEnv } from './environment.js';

export interface Step {
  version: string;
  values: Record<string, unknown>;
  /** The same values for the floor's `helm upgrade --install`. */
  floorSet: string[];
  /** The chart archive the floor installs. */
  tgz: string;
  /** What the floor gives helm instead of `tgz` (an OCI reference, its version and flags), as a person would type it. */
  floorChartArgs?: string[];
}

export interface Workload {
  chart: string;
  repoUrl: string;
  /** spec.chart.insecure: the chart's OCI registry speaks plain HTTP (the dev registry on loopback). */
  insecure?: boolean;
  install: Step;
  upgrade: Step;
}

export function releaseSpec(w: Workload, step: Step, interval: string, extra: Record<string, unknown> = {}): HelmReleaseSpec {
  return {
    chart: { repository: w.repoUrl, name: w.chart, version: step.version, ...(w.insecure ? { insecure: true } : {}) },
    interval,
    values: { ...step.values, ...extra },
  };
}

export async function prepareWorkload(chart: string, be: BenchEnv, cleanup: Cleanup): Promise<Workload> {
  const dir = join(be.dir, 'charts');
  await mkdir(dir, { recursive: true });
  if (chart === 'unicorn') {
    const tgz: Record<string, string> = {};
    for (const version of ['1.0.0', '2.0.0']) {
      execFileSync(be.env.helmBin, ['pull', 'unicorn', '--repo', be.env.chartRepoUrl, '--version', version, '--destination', dir], {
        env: { ...process.env, HELM_CACHE_HOME: join(dir, '.cache') },
      });
      tgz[version] = join(dir, `unicorn-${version}.tgz`);
    }
    const zero = { values: { replicaCount: 0 }, floorSet: ['--set', 'replicaCount=0'] };
    return {
      chart,
      repoUrl: be.env.chartRepoUrl,
      install: { version: '1.0.0', tgz: tgz['1.0.0']!, ...zero },
      upgrade: { version: '2.0.0', tgz: tgz['2.0.0']!, ...zero },
    };
  }
  if (chart === 'podinfo' || chart === 'podinfo-oci') {
    const tgz = join(dir, 'podinfo-6.9.2.tgz');
    await copyFile(join(REPO_ROOT, 'bench', 'charts', 'podinfo-6.9.2.tgz'), tgz);
    const oci = chart === 'podinfo-oci';
    // OCI: the shape of Flux's own benchmark (podinfo from an OCI registry), the dev environment's
    // plain-HTTP registry on loopback; the floor pulls it as a person's helm does, each run.
    if (oci) await pushChart({ archive: tgz, url: be.env.ociRegistry.url, helmBin: be.env.helmBin });
    const repoUrl = oci ? be.env.ociRegistry.url : await serveRepository(dir, cleanup, be.env.helmBin);
    const floorChartArgs = oci ? [`${repoUrl}/podinfo`, '--version', '6.9.2', '--plain-http'] : undefined;
    return {
      chart: 'podinfo',
      repoUrl,
      ...(oci ? { insecure: true } : {}),
      install: { version: '6.9.2', tgz, floorChartArgs, values: { replicaCount: 0 }, floorSet: ['--set', 'replicaCount=0'] },
      upgrade: {
        version: '6.9.2',
        tgz,
        floorChartArgs,
        values: { replicaCount: 0, ui: { message: 'upgraded' } },
        floorSet: ['--set', 'replicaCount=0', '--set', 'ui.message=upgraded'],
      },
    };
  }
  throw new Error(`--chart must be unicorn, podinfo or podinfo-oci, got "${chart}"`);
}

/** A static chart repository on 127.0.0.1 (index.yaml written by `helm repo index`), stopped at clean-up. */
async function serveRepository(dir: string, cleanup: Cleanup, helmBin: string): Promise<string> {
  const server: Server = createServer((req, res) => {
    const file = (req.url ?? '/').split('?')[0]!.replace(/^\/+/, '');
    if (!/^[\w.-]+\.(tgz|yaml)$/.test(file)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': file.endsWith('.yaml') ? 'text/yaml' : 'application/gzip' });
    createReadStream(join(dir, file))
      .on('error', () => res.destroy())
      .pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.add('stop the podinfo chart repository', () => new Promise<void>((resolve) => server.close(() => resolve())));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  execFileSync(helmBin, ['repo', 'index', dir, '--url', url]);
  return url;
}
