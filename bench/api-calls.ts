// API call benchmark: what one Kubernetes API call costs the controller, and why.
//   1. The same GET made through @kubernetes/client-node as helmcrew makes it (makeKubeClients),
//      and through node:https with one keep-alive agent: latency, client CPU, and how many TCP
//      connections to the API server each leaves open (client-node 2.0.1 builds a new undici
//      Agent for every request, see createDispatcher in its config.js, so nothing is re-used).
//   2. The LIST of Helm's release Secrets (ReleaseStorage.history) alone, right after a write to
//      another object, and with resourceVersion=0 right after a write: the API server serves a
//      consistent LIST from its watch cache only once the cache has caught up with etcd.
//   3. A GET of a Secret "not older than" a resourceVersion: the version a write to another object
//      just returned (the cluster's revision, ahead of every Secret: what a read "not older than a
//      HelmRelease's version" asks) against the Secret's own — the first waits for the Secret
//      cache's next progress notice from etcd (controller/reconcile/decide/settled-records.ts).
import { execFileSync } from 'node:child_process';
import https from 'node:https';
import { CoreV1Api } from '@kubernetes/client-node';
import { makeKubeClients, mergePatch } from '../src/core/kube/client.js';
import { connectKube, slimKubeClients } from '../src/core/kube/slim-clients.js';
import { HelmReleaseApi } from '../src/core/kube/helmrelease-api.js';
import { applyHelmRelease, createNamespace, deleteNamespaceFully, helmReleaseObject } from '../src/dev/harness/index.js';
import type { Benchmark } from './lib/benchmark.js';
import { startBenchEnv } from './lib/environment.js';
import { formatFacts, loadavgString, machineFacts } from './lib/machine.js';
import { say } from './lib/say.js';
import { median } from './lib/stats.js';

function openConnections(port: string): number {
  const out = execFileSync('ss', ['-tnp', 'state', 'established', `( dport = :${port} )`], { encoding: 'utf8' });
  return out.split('\n').filter((line) => line.includes(`pid=${process.pid},`)).length;
}

interface Measured {
  label: string;
  medianMs: number;
  cpuMsPerCall: number;
  connectionsAfter?: number;
}

export const benchmark: Benchmark = {
  usage: '[--calls 40]',
  options: { calls: { type: 'string' } },
  maxSeconds: 300,
  async run(args, cleanup) {
    const calls = args.int('calls', 40);
    const loadBefore = loadavgString();
    const be = await startBenchEnv(cleanup, args.optional('state-dir'));
    const { kubeConfig, env } = be;
    const facts = { ...machineFacts(env.helmBin), loadavg: loadBefore };
    const namespace = await createNamespace(kubeConfig, 'bench-api');
    const forget = cleanup.add(`delete namespace ${namespace}`, async () => {
      await deleteNamespaceFully(kubeConfig, namespace);
    });
    const kube = makeKubeClients(kubeConfig);
    const api = new HelmReleaseApi(kube);
    const core = kubeConfig.makeApiClient(CoreV1Api);
    await applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, 'x', { chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' }, values: { replicaCount: 0 } }),
    );
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'scratch' }, data: { n: '0' } } });
    const secret = await core.createNamespacedSecret({ namespace, body: { metadata: { name: 'scratch' }, stringData: { n: '0' } } });
    // The controller's own client, which passes a GET's resourceVersion on (client-node's types have none).
    const slim = slimKubeClients(connectKube(be.env.kubeconfig));
    const server = kubeConfig.getCurrentCluster()!.server;
    const port = new URL(server).port;
    const path = `/apis/helmcrew.dev/v1alpha1/namespaces/${namespace}/helmreleases/x`;
    const tls: https.RequestOptions = {};
    await kubeConfig.applyToHTTPSOptions(tls);
    const sharedAgent = new https.Agent({ keepAlive: true, maxSockets: 1 });
    cleanup.add('destroy keep-alive agent', () => Promise.resolve(sharedAgent.destroy()));
    const httpsGet = () =>
      new Promise<void>((resolve, reject) => {
        const req = https.request(`${server}${path}`, { ...tls, agent: sharedAgent, method: 'GET' }, (res) => {
          res.resume();
          res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`))));
        });
        req.on('error', reject);
        req.end();
      });
    const touch = () => core.patchNamespacedConfigMap({ namespace, name: 'scratch', body: { data: { n: String(Date.now()) } } }, mergePatch);
    const secretNotOlderThan = (rv: string) => slim.core.readNamespacedSecret({ namespace, name: 'scratch', resourceVersion: rv } as never);
    const touchedVersion = async () => (await touch()).metadata?.resourceVersion ?? '';
    const listSecrets = (rv?: string) => core.listNamespacedSecret({ namespace, labelSelector: 'owner=helm,name=x', ...(rv ? { resourceVersion: rv } : {}) });

    /** Runs `fn` `calls` times in sequence; `fn` may return the part of its time to count. */
    const measure = async (label: string, fn: () => Promise<number | void>, countConnections = false): Promise<Measured> => {
      for (let i = 0; i < 3; i++) await fn(); // warm-up
      await new Promise((resolve) => setTimeout(resolve, 5000)); // let idle connections of earlier steps close
      const times: number[] = [];
      const cpu0 = process.cpuUsage();
      for (let i = 0; i < calls; i++) {
        const started = performance.now();
        const part = await fn();
        times.push(typeof part === 'number' ? part : performance.now() - started);
      }
      const cpu = process.cpuUsage(cpu0);
      const result: Measured = { label, medianMs: median(times), cpuMsPerCall: (cpu.user + cpu.system) / 1000 / calls };
      if (countConnections) result.connectionsAfter = openConnections(port);
      say(`${label}: median ${result.medianMs.toFixed(1)} ms`);
      return result;
    };
    const timedAfter = (before: () => Promise<unknown>, call: () => Promise<unknown>) => async () => {
      await before();
      const started = performance.now();
      await call();
      return performance.now() - started;
    };

    const results: Measured[] = [];
    results.push(await measure('GET HelmRelease via client-node (as helmcrew does)', async () => void (await api.get(namespace, 'x')), true));
    results.push(await measure('GET HelmRelease via node:https, one keep-alive agent', httpsGet, true));
    results.push(await measure('LIST release Secrets, no write before', async () => void (await listSecrets())));
    results.push(
      await measure(
        'LIST release Secrets right after a ConfigMap PATCH (LIST timed)',
        timedAfter(touch, () => listSecrets()),
      ),
    );
    results.push(
      await measure(
        'LIST release Secrets, resourceVersion=0, right after a PATCH (LIST timed)',
        timedAfter(touch, () => listSecrets('0')),
      ),
    );
    results.push(
      await measure(
        'GET HelmRelease right after a ConfigMap PATCH (GET timed)',
        timedAfter(touch, () => api.get(namespace, 'x')),
      ),
    );

    results.push(
      await measure('GET a Secret not older than the version a ConfigMap PATCH just returned (GET timed)', async () => {
        const version = await touchedVersion();
        const started = performance.now();
        await secretNotOlderThan(version);
        return performance.now() - started;
      }),
    );
    results.push(
      await measure(
        'GET a Secret not older than its own version, right after a ConfigMap PATCH (GET timed)',
        timedAfter(touch, () => secretNotOlderThan(secret.metadata!.resourceVersion!)),
      ),
    );

    const out: string[] = [];
    out.push(
      `## api-calls: ${calls} sequential calls each (after 3 warm-up calls)`,
      '',
      '```',
      formatFacts(facts),
      `load avg:    ${loadavgString()} at end`,
      `command:     npm run bench -- api-calls ${args.raw.join(' ')}`.trimEnd(),
      '```',
      '',
    );
    out.push('| call | median ms | client CPU ms / call | TCP connections to the API server open right after |');
    out.push('|---|---|---|---|');
    for (const r of results) out.push(`| ${r.label} | ${r.medianMs.toFixed(1)} | ${r.cpuMsPerCall.toFixed(1)} | ${r.connectionsAfter ?? ''} |`);
    out.push('', '(client CPU for the rows "right after a PATCH" includes the PATCH; their latency column times only the call named.)');
    process.stdout.write(`${out.join('\n')}\n`);
    await deleteNamespaceFully(kubeConfig, namespace);
    forget();
  },
};
