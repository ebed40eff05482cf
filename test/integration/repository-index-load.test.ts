import { createServer, type Server } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { waitForReadyCondition } from '../support/eventually.js';
import { namespaceWithController, testEnv } from '../support/fixtures.js';

/** An index shaped like a large public one: `charts` charts with `versions` full entries each. */
function bigIndex(charts: number, versions: number): string {
  const lines = ['apiVersion: v1', 'entries:'];
  for (let c = 0; c < charts; c++) {
    lines.push(`  chart-${c}:`);
    for (let v = 0; v < versions; v++) {
      lines.push(
        '  - apiVersion: v2',
        `    name: chart-${c}`,
        `    version: 1.${v}.0`,
        `    appVersion: 1.${v}.0`,
        '    description: A chart that exists only to make this index as large as a real public one',
        '    created: "2026-01-01T00:00:00.000000000Z"',
        `    digest: ${'ab'.repeat(32)}`,
        '    urls:',
        `    - https://charts.example.test/chart-${c}-1.${v}.0.tgz`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

/** Issue 5: big repository indexes neither starve other releases nor get downloaded without end. */
describe('repository index load', () => {
  const { env, kubeConfig } = testEnv();
  const { namespace } = namespaceWithController('index', { HELMCREW_MAX_INDEX_BYTES: String(8 * 1024 * 1024) });
  const index = bigIndex(60, 220);
  const served = { big: 0, endlessBytes: 0 };
  let server: Server;
  let base = '';

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/big/index.yaml') {
        served.big++;
        res.writeHead(200, { 'content-type': 'application/yaml' });
        res.end(index);
      } else if (req.url === '/endless/index.yaml') {
        // No content-length, never ends: only the reader's limit stops it.
        res.writeHead(200, { 'content-type': 'application/yaml' });
        const chunk = Buffer.alloc(64 * 1024, 0x23);
        const pump = () => {
          while (!res.destroyed && res.write(chunk)) served.endlessBytes += chunk.length;
          if (!res.destroyed) res.once('drain', pump);
        };
        res.on('close', () => res.removeAllListeners('drain'));
        pump();
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('20 releases on a 5 MB index: fetched once, parsed off the event loop, an unrelated release installs promptly', async () => {
    expect(index.length).toBeGreaterThan(4_000_000);
    const lag = monitorEventLoopDelay({ resolution: 20 });
    lag.enable();
    const names = Array.from({ length: 20 }, (_, i) => `big-${i}`);
    await Promise.all(
      names.map((name) =>
        applyHelmRelease(kubeConfig, helmReleaseObject(namespace, name, { chart: { repository: `${base}/big`, name: 'chart-1', version: '9.x' } })),
      ),
    );
    const started = Date.now();
    const generation = await applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, 'unrelated', { chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' } }),
    );
    const unrelated = await waitForReconciled(kubeConfig, namespace, 'unrelated', generation);
    const unrelatedSeconds = (Date.now() - started) / 1000;
    for (const name of names) {
      const ready = await waitForReadyCondition(kubeConfig, namespace, name, 'ChartPullFailed');
      expect(ready.message).toBe('chart "chart-1" has no version matching 9.x');
    }
    lag.disable();
    const maxLagMs = lag.max / 1e6;
    console.error(
      `unrelated release Ready after ${unrelatedSeconds.toFixed(1)}s; index GETs ${served.big}; event-loop delay max ${maxLagMs.toFixed(0)} ms, p99 ${(lag.percentile(99) / 1e6).toFixed(0)} ms`,
    );
    expect(unrelated.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    // Before: each attempt of each release downloaded and parsed the index on the event loop
    // (~3 s a parse here), delaying the unrelated install by a minute and more.
    expect(unrelatedSeconds).toBeLessThan(60);
    // One fetch per URL, then the cache (30 s): a handful at most, however many releases retry.
    expect(served.big).toBeLessThanOrEqual(4);
    // Generous: a single parse on the event loop takes ~3 s on this machine.
    expect(maxLagMs).toBeLessThan(2000);
  }, 180_000);

  it('an index that never ends is cut off at the limit and reported', async () => {
    await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'endless', { chart: { repository: `${base}/endless`, name: 'x', version: '1.x' } }));
    const ready = await waitForReadyCondition(kubeConfig, namespace, 'endless', 'ChartPullFailed');
    expect(ready.message).toBe(`the repository index of ${base}/endless is larger than the 8 MiB limit (HELMCREW_MAX_INDEX_BYTES)`);
    // The download stopped near the limit (socket buffers add a little), not at the server's whim.
    expect(served.endlessBytes).toBeLessThan(24 * 1024 * 1024);
  }, 90_000);
});
