import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server } from 'node:net';
import { createGzip } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { API_GROUP, API_VERSION, HELMRELEASE_PLURAL } from '../../src/api/vocabulary.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { apiErrorMessage, apiStatusCode } from '../../src/core/kube/errors.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { waitForReadyCondition } from '../support/eventually.js';
import { namespaceWithController, testEnv } from '../support/fixtures.js';

/** gzip of `mib` MiB of one repeated byte, streamed so the test itself never holds the whole. */
async function gzipBomb(mib: number): Promise<Buffer> {
  const gzip = createGzip({ level: 9 });
  const parts: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => parts.push(chunk));
  const done = new Promise((resolve) => gzip.on('end', resolve));
  const block = Buffer.alloc(1024 * 1024, 0x20);
  gzip.write('{"name":"bombed","namespace":"x","version":1,"padding":"');
  for (let i = 0; i < mib; i++) {
    if (!gzip.write(block)) await new Promise((resolve) => gzip.once('drain', resolve));
  }
  gzip.end('"}');
  await done;
  return Buffer.concat(parts);
}

/** Issue 5: no tenant can starve or crash the controller; durations and values are bounded. */
describe('tenant limits', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const { namespace } = namespaceWithController('limits');
  const chart = (version = '1.0.0') => ({ repository: env.chartRepoUrl, name: 'unicorn', version });

  it('a planted release record inflating to 400 MiB: bounded memory, a clear status, and another release still installs', async () => {
    const gz = await gzipBomb(400);
    expect(gz.length).toBeLessThan(700 * 1024);
    await kube.core.createNamespacedSecret({
      namespace,
      body: {
        metadata: { name: 'sh.helm.release.v1.bombed.v1', labels: { owner: 'helm', name: 'bombed', status: 'deployed', version: '1' } },
        type: 'helm.sh/release.v1',
        // Helm base64-encodes the gzip; the API's `data` wants base64 of that once more.
        data: { release: Buffer.from(gz.toString('base64')).toString('base64') },
      },
    });
    global.gc?.();
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sample = () => {
      peak = Math.max(peak, process.memoryUsage().rss);
    };
    const sampler = setInterval(sample, 20);
    try {
      await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'bombed', { chart: chart() }));
      const healthyGen = await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'neighbour', { chart: chart() }));
      const ready = await waitForReadyCondition(kubeConfig, namespace, 'bombed', 'ReleaseRecordInvalid', 60_000, sample);
      expect(ready.status).toBe('False');
      expect(ready.message).toBe(
        `Helm release record ${namespace}/sh.helm.release.v1.bombed.v1 inflates past the 32 MiB limit; nothing is done for this release until that Secret is deleted or repaired`,
      );
      const neighbour = await waitForReconciled(kubeConfig, namespace, 'neighbour', healthyGen);
      expect(neighbour.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    } finally {
      clearInterval(sampler);
    }
    console.error(`RSS of the test process (controller in-process): ${baseline >> 20} MiB before, ${peak >> 20} MiB peak`);
    // Inflating it whole would take 400 MiB for the buffer and as much again for its text.
    // Generous: the decoder stops at 32 MiB, everything else the process does shares the margin.
    expect((peak - baseline) / (1024 * 1024), `RSS grew from ${baseline >> 20} MiB to ${peak >> 20} MiB`).toBeLessThan(250);

    // The failure is retried with backoff, not dropped: once the Secret is gone, it installs.
    await kube.core.deleteNamespacedSecret({ namespace, name: 'sh.helm.release.v1.bombed.v1' });
    const installed = await waitForReadyCondition(kubeConfig, namespace, 'bombed', 'InstallSucceeded', 90_000);
    expect(installed.status).toBe('True');
  }, 180_000);

  it('values nested 1500 levels deep → Ready=False ValuesInvalid, not "Installing" forever', async () => {
    let values: Record<string, unknown> = { leaf: true };
    for (let i = 1; i < 1500; i++) values = { a: values };
    await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'deep', { chart: chart(), values }));
    const ready = await waitForReadyCondition(kubeConfig, namespace, 'deep', 'ValuesInvalid');
    expect(ready).toMatchObject({ status: 'False', message: 'spec.values nest more than 100 levels deep; flatten them' });
  }, 90_000);

  it.each([
    { name: 'interval-zero', spec: { interval: '0s' }, want: /spec.interval: Invalid value: "0s": must be between 1s and 168h/ },
    { name: 'timeout-600h', spec: { timeout: '600h' }, want: /spec.timeout: Invalid value: "600h": must be between 1s and 24h/ },
    { name: 'timeout-huge', spec: { timeout: '99999999999999h' }, want: /spec.timeout: .*must be between 1s and 24h/ },
  ])('the API server refuses $name, naming the field', async ({ name, spec, want }) => {
    const error = await kube.custom
      .createNamespacedCustomObject({
        group: API_GROUP,
        version: API_VERSION,
        plural: HELMRELEASE_PLURAL,
        namespace,
        body: { apiVersion: `${API_GROUP}/${API_VERSION}`, kind: 'HelmRelease', metadata: { name, namespace }, spec: { chart: chart(), ...spec } },
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error, 'the API server accepted an out-of-bounds duration').toBeDefined();
    expect(apiStatusCode(error)).toBe(422);
    expect(apiErrorMessage(error)).toMatch(want);
  });

  it.each([
    { name: 'metadata-v4', repository: 'http://169.254.169.254/latest' },
    { name: 'metadata-v6', repository: 'https://[fe80::a9fe:a9fe]/charts' },
    { name: 'metadata-gce', repository: 'http://metadata.google.internal/computeMetadata' },
  ])('the API server refuses the link-local repository $repository, naming the field', async ({ name, repository }) => {
    const error = await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, name, { chart: { repository, name: 'unicorn', version: '1.0.0' } })).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(apiErrorMessage(error)).toMatch(/spec.chart.repository: Invalid value: .*must not point at a link-local address or a cloud metadata service/);
  });

  it('another spelling of the metadata address gets past the schema, and the controller refuses it without contacting it', async () => {
    // 2852039166 is 169.254.169.254 as one number; URL parsing turns it back into the address.
    const repository = 'http://2852039166/latest';
    await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'metadata', { chart: { repository, name: 'unicorn', version: '1.0.0' } }));
    const ready = await waitForReadyCondition(kubeConfig, namespace, 'metadata', 'RepositoryNotAllowed');
    expect(ready.status).toBe('False');
    expect(ready.message).toBe(
      `repository ${repository} is not allowed: 169.254.169.254 is the link-local address 169.254.169.254 (cloud metadata services live there), refused unless an address entry covers it; HELMCREW_ALLOWED_REPOSITORY_HOSTS (chart value repositories.allowedHosts) allows it`,
    );
  });

  it('an index whose chart URL points at a link-local address is refused before helm pulls it', async () => {
    const index = 'apiVersion: v1\nentries:\n  unicorn:\n  - name: unicorn\n    version: 1.0.0\n    urls: [http://169.254.169.254/latest/unicorn-1.0.0.tgz]\n';
    const server = createHttpServer((_req, res) => res.writeHead(200, { 'content-type': 'application/yaml' }).end(index));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const repository = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'redirected', { chart: { repository, name: 'unicorn', version: '1.0.0' } }));
      const ready = await waitForReadyCondition(kubeConfig, namespace, 'redirected', 'RepositoryNotAllowed');
      expect(ready.message).toBe(
        `repository ${repository} is not allowed: 169.254.169.254 is the link-local address 169.254.169.254 (cloud metadata services live there), refused unless an address entry covers it; HELMCREW_ALLOWED_REPOSITORY_HOSTS (chart value repositories.allowedHosts) allows it`,
      );
    } finally {
      server.close();
    }
  });

  it('an open port and a closed port give the same status: the controller is no port scanner', async () => {
    // An open port that speaks no HTTP (it hangs up) and one nothing listens on.
    const open: Server = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => open.listen(0, '127.0.0.1', resolve));
    const openPort = (open.address() as { port: number }).port;
    const closed: Server = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));
    try {
      const messages: string[] = [];
      for (const [name, port] of [
        ['open-port', openPort],
        ['closed-port', closedPort],
      ] as const) {
        const repository = `http://127.0.0.1:${port}`;
        await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, name, { chart: { repository, name: 'unicorn', version: '1.0.0' } }));
        const ready = await waitForReadyCondition(kubeConfig, namespace, name, 'ChartPullFailed');
        messages.push(ready.message.replace(repository, '<repository>'));
      }
      expect(messages[0]).toBe('could not fetch the repository index of <repository>');
      expect(messages[1]).toBe(messages[0]);
    } finally {
      open.close();
    }
  });
});
