// The local environment end to end: a real control plane with fake nodes, redis and the chart
// repository come up in a temporary state dir, do their jobs, and are gone after `down`.
// Cold (toolchain not yet built) the first step compiles Kubernetes from Go modules: many minutes.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiextensionsV1Api, AppsV1Api, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { execa } from 'execa';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/core/log.js';
import { devDown, devUp, readDevEnvironment } from '../../src/dev/environment.js';
import type { DevEnvironment } from '../../src/dev/env-file.js';
import { formatShellExports } from '../../src/dev/shell-exports.js';
import { REPO_ROOT } from '../../src/dev/paths.js';
import { pidAlive } from '../../src/dev/processes.js';
import { eventually } from '../support/eventually.js';

const log = createLogger('dev-environment-test', process.env.LOG_LEVEL ?? 'warn');

describe('dev environment', () => {
  let stateDir: string;
  let env: DevEnvironment;
  let kc: KubeConfig;

  beforeAll(async () => {
    stateDir = await mkdtemp(join(tmpdir(), 'helmcrew-dev-test-'));
    const started = Date.now();
    env = await devUp({ stateDir, log });
    log.warn({ seconds: (Date.now() - started) / 1000 }, 'devUp finished');
    kc = new KubeConfig();
    kc.loadFromFile(env.kubeconfig);
  }, 60 * 60_000); // a cold machine builds the toolchain first

  afterAll(async () => {
    if (stateDir) {
      await devDown({ stateDir, log }); // idempotent: a no-op when the last test already took it down
      await rm(stateDir, { recursive: true, force: true });
    }
  }, 60_000);

  it('records the environment and prints shell exports', async () => {
    expect(await readDevEnvironment(stateDir)).toEqual(env);
    const exports = formatShellExports(env);
    for (const name of ['KUBECONFIG', 'REDIS_URL', 'CHART_REPO_URL', 'OCI_REGISTRY_URL', 'OCI_AUTH_REGISTRY_URL', 'HELM_BIN', 'KUBECTL_BIN', 'KUSTOMIZE_BIN']) {
      expect(exports).toMatch(new RegExp(`^export ${name}='[^']+'$`, 'm'));
    }
    expect(env.redisUrl).toMatch(/^redis:\/\/127\.0\.0\.1:\d+$/);
    expect(env.processes.map((p) => p.name)).toEqual(
      expect.arrayContaining([
        'etcd',
        'kube-apiserver',
        'kube-controller-manager',
        'kube-scheduler',
        'kwok',
        'redis',
        'chart-repo',
        'oci-registry',
        'oci-registry-auth',
      ]),
    );
  });

  it('has an API server that answers with the admin kubeconfig', async () => {
    const core = kc.makeApiClient(CoreV1Api);
    const namespaces = await core.listNamespace();
    expect(namespaces.items.map((n) => n.metadata?.name)).toEqual(expect.arrayContaining(['default', 'kube-system']));
  }, 30_000);

  it('has two fake nodes that are Ready', async () => {
    const core = kc.makeApiClient(CoreV1Api);
    const nodes = await core.listNode({ labelSelector: 'type=kwok' });
    expect(nodes.items).toHaveLength(2);
    for (const node of nodes.items) {
      const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
      expect(ready?.status, node.metadata?.name).toBe('True');
    }
  }, 30_000);

  it('schedules a Deployment onto the fake nodes and makes it available', async () => {
    const apps = kc.makeApiClient(AppsV1Api);
    const core = kc.makeApiClient(CoreV1Api);
    const labels = { app: 'dev-env-probe' };
    await apps.createNamespacedDeployment({
      namespace: 'default',
      body: {
        metadata: { name: 'dev-env-probe', labels },
        spec: {
          replicas: 3,
          selector: { matchLabels: labels },
          template: {
            metadata: { labels },
            // Nothing is pulled or run: kwok only plays the kubelet.
            spec: { containers: [{ name: 'app', image: 'helmcrew/fake:1' }] },
          },
        },
      },
    });
    await eventually(
      async () => {
        const d = await apps.readNamespacedDeployment({ name: 'dev-env-probe', namespace: 'default' });
        expect({ available: d.status?.conditions?.find((c) => c.type === 'Available')?.status, readyReplicas: d.status?.readyReplicas }).toEqual({
          available: 'True',
          readyReplicas: 3,
        });
      },
      { timeoutMs: 90_000, intervalMs: 250 },
    );
    const pods = await core.listNamespacedPod({ namespace: 'default', labelSelector: 'app=dev-env-probe' });
    expect(pods.items).toHaveLength(3);
    for (const pod of pods.items) {
      expect(pod.spec?.nodeName).toMatch(/^kwok-node-\d$/);
      expect(pod.status?.phase).toBe('Running');
    }
  }, 120_000);

  it('runs a bare run-to-completion pod (a Helm test hook) to Succeeded', async () => {
    const core = kc.makeApiClient(CoreV1Api);
    await core.createNamespacedPod({
      namespace: 'default',
      body: {
        metadata: { name: 'dev-env-hook', annotations: { 'helm.sh/hook': 'test' } },
        spec: { restartPolicy: 'Never', containers: [{ name: 'test', image: 'helmcrew/fake:1' }] },
      },
    });
    await eventually(async () => expect((await core.readNamespacedPod({ name: 'dev-env-hook', namespace: 'default' })).status?.phase).toBe('Succeeded'), {
      timeoutMs: 60_000,
      intervalMs: 250,
    });
  }, 90_000);

  it('has a redis that answers PING', async () => {
    const redis = new Redis(env.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await redis.connect();
      expect(await redis.ping()).toBe('PONG');
    } finally {
      redis.disconnect();
    }
  }, 30_000);

  it('serves the chart repository index', async () => {
    const res = await fetch(`${env.chartRepoUrl}/index.yaml`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('apiVersion');
  }, 30_000);

  it('returns the running environment at once on a second up', async () => {
    const started = Date.now();
    const again = await devUp({ stateDir, log });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(again).toEqual(env);
  }, 30_000);

  it('installs the HelmRelease CRD, since everything after `dev up` needs it', async () => {
    const crd = await kc.makeApiClient(ApiextensionsV1Api).readCustomResourceDefinition({ name: 'helmreleases.helmcrew.dev' });
    expect(crd.status?.conditions?.find((c) => c.type === 'Established')?.status).toBe('True');
  }, 30_000);

  describe('`dev env` after a process was restarted by hand (a new pid)', () => {
    const envFile = () => join(stateDir, 'env.json');
    const devEnv = () => execa('node', [join(REPO_ROOT, 'bin/helmcrew.js'), 'dev', 'env'], { env: { HELMCREW_STATE_DIR: stateDir }, reject: false });
    let original: string;
    beforeAll(async () => {
      original = await readFile(envFile(), 'utf8');
    });
    afterAll(async () => {
      await writeFile(envFile(), original);
    });
    /** env.json as if `name` had been replaced: the recorded identity no longer runs. */
    const replaced = (name: string, patch: Record<string, unknown> = {}) => {
      const file = JSON.parse(original);
      file.processes = file.processes.map((p: { name: string }) => (p.name === name ? { ...p, startTime: '1' } : p));
      return JSON.stringify({ ...file, ...patch });
    };

    it('still prints the exports while the environment answers, and names the replaced process', async () => {
      await writeFile(envFile(), replaced('chart-repo'));
      const result = await devEnv();
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toBe(formatShellExports(env).trimEnd());
      expect(result.stderr).toMatch(/chart-repo run with a new pid/);
    }, 60_000);

    it('says which processes are gone when the environment does not answer', async () => {
      await writeFile(envFile(), replaced('redis', { redisUrl: 'redis://127.0.0.1:1' }));
      const result = await devEnv();
      expect(result.exitCode).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/these processes are gone: redis/);
    }, 60_000);
  });

  it('stops every process on down and forgets the environment', async () => {
    const pids = env.processes.map((p) => p.pid);
    expect(pids.every(pidAlive)).toBe(true);
    await devDown({ stateDir, log });
    // The processes are children of this test process until it reaps them; give that a moment.
    await eventually(() => expect(pids.filter(pidAlive)).toEqual([]), { timeoutMs: 10_000, intervalMs: 250 });
    expect(await readDevEnvironment(stateDir)).toBeUndefined();
    await expect(readFile(join(stateDir, 'env.json'))).rejects.toThrow();
  }, 60_000);
});
