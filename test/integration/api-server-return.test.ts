import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { deleteNamespace, freshNamespace, startTestController, testEnv, type TestController } from '../support/fixtures.js';
import { memoryLogger } from '../support/notify-fixtures.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

/**
 * How long the API server is unreachable. The informer's restart backoff (1, 2, 4, 8, 16 s …)
 * tries again 1, 3, 7, 15 and 31 s after the cut: after a 16 s outage the old code saw nothing
 * for 15 s more; the probe of an outage tries every ≤ 2 s.
 */
const OUTAGE_MS = 16_000;
/**
 * The promise: spec changes applied within this long of the API server's return. Measured: 24.4 s
 * before issue 33 (the informer's next backoff step, then helm), 6.6 s after (a probe every ≤ 2 s,
 * a relist, then helm); generous for a loaded machine.
 */
const BACK_WITHIN_MS = 12_000;

/**
 * Issue 33: back at once after the API server returns. The controller talks to the API server
 * through a proxy this test cuts; the spec changes are written directly, one just after the cut
 * and one just after the return, while periodic checks (a 2 s interval) keep failing meanwhile.
 */
describe('the API server returns', () => {
  const { env, kubeConfig } = testEnv();
  const logged = memoryLogger('controller');
  let namespace: string;
  let proxy: TcpProxy;
  let ctl: TestController;

  beforeAll(async () => {
    namespace = await freshNamespace(kubeConfig, 'back');
    const server = new URL(kubeConfig.getCurrentCluster()!.server);
    proxy = await startTcpProxy(Number(server.port));
    const dir = await mkdtemp(join(tmpdir(), 'helmcrew-back-'));
    const proxied = join(dir, 'kubeconfig');
    await writeFile(proxied, (await readFile(env.kubeconfig, 'utf8')).replaceAll(server.host, `127.0.0.1:${proxy.port}`));
    ctl = await startTestController([namespace], { KUBECONFIG: proxied }, logged.log);
  });
  afterAll(async () => {
    await ctl?.stop();
    await proxy?.close();
    await deleteNamespace(kubeConfig, namespace);
  });

  const declare = (name: string, version: string) =>
    applyHelmRelease(kubeConfig, helmReleaseObject(namespace, name, { interval: '2s', chart: { repository: env.chartRepoUrl, name: 'unicorn', version } }));
  const warnings = (msg: RegExp) =>
    logged.lines.map((line) => JSON.parse(line) as { level: number; msg: string }).filter((entry) => entry.level === 40 && msg.test(entry.msg)).length;

  it('applies the changes made around an outage within seconds of its end, and says so once', async () => {
    await Promise.all(['before', 'after'].map(async (name) => waitForReconciled(kubeConfig, namespace, name, await declare(name, '1.0.0'))));
    const linesBefore = logged.lines.length;
    await proxy.cut();
    const first = await declare('before', '2.0.0'); // written directly, not through the proxy
    await sleep(OUTAGE_MS);
    await proxy.restore();
    const backAt = Date.now();
    const second = await declare('after', '2.0.0');
    await Promise.all([waitForReconciled(kubeConfig, namespace, 'before', first, 60_000), waitForReconciled(kubeConfig, namespace, 'after', second, 60_000)]);
    const tookMs = Date.now() - backAt;
    const during = logged.lines.slice(linesBefore);
    logged.lines.splice(0, logged.lines.length, ...during);
    console.log(
      `api-server-return: both changes applied ${tookMs} ms after the API server's return; ` +
        `${warnings(/reconcile failed/)} "reconcile failed" warnings, ${warnings(/./)} warnings in all`,
    );
    expect(tookMs).toBeLessThan(BACK_WITHIN_MS);
    // One warning for the outage, none per retry (before: 54 "will retry" warnings here). A pass
    // caught mid-flight by the cut reports its own failure, as "unexpectedly" or, when its error came
    // before the probe's verdict, as an ordinary "will retry" (a CI run saw one): at most one per release.
    expect(warnings(/API server unreachable/)).toBe(1);
    expect(warnings(/will retry/) + warnings(/reconcile failed unexpectedly/)).toBeLessThanOrEqual(2);
  });
});
