// `helmcrew dev up --clusters 2`: two control planes on loopback and one Redis, each kubeconfig
// named by `dev env`, helmcrew's CRDs in both, and everything gone after `dev down`.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiextensionsV1Api, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/core/log.js';
import { devDown, readDevEnvironment } from '../../src/dev/environment.js';
import type { DevEnvironment } from '../../src/dev/env-file.js';
import { REPO_ROOT } from '../../src/dev/paths.js';
import { pidAlive } from '../../src/dev/processes.js';
import { eventually } from '../support/eventually.js';

const log = createLogger('dev-fleet-test', process.env.LOG_LEVEL ?? 'warn');

describe('dev up --clusters 2', () => {
  let stateDir: string;
  let env: DevEnvironment;
  const helmcrew = (...args: string[]) =>
    execa(process.execPath, [join(REPO_ROOT, 'bin/helmcrew.js'), ...args], { env: { HELMCREW_STATE_DIR: stateDir, LOG_LEVEL: 'warn' }, reject: false });
  /** `export NAME='value'` lines as a map (values here have no quotes of their own). */
  const exportsOf = (text: string) => new Map([...text.matchAll(/^export ([A-Z0-9_]+)='([^']*)'$/gm)].map((m) => [m[1]!, m[2]!]));

  beforeAll(async () => {
    stateDir = await mkdtemp(join(tmpdir(), 'helmcrew-dev-fleet-'));
    const up = await helmcrew('dev', 'up', '--clusters', '2');
    expect(up.exitCode, up.stderr).toBe(0);
    expect(up.stderr).toMatch(/2 clusters on one Redis \(REDIS_URL=redis:\/\/127\.0\.0\.1:\d+\); an agent for each:/);
    expect(up.stderr).toMatch(/^ {2}edge-1 +KUBECONFIG=\$KUBECONFIG_EDGE_1 HELMCREW_CLUSTER_NAME=edge-1 npx helmcrew controller$/m);
    env = (await readDevEnvironment(stateDir))!;
  }, 5 * 60_000);

  afterAll(async () => {
    if (stateDir) {
      await devDown({ stateDir, log });
      await rm(stateDir, { recursive: true, force: true });
    }
  }, 60_000);

  it('dev env names each cluster’s kubeconfig and the one Redis; each is its own API server with the CRDs', async () => {
    const printed = await helmcrew('dev', 'env');
    expect(printed.exitCode, printed.stderr).toBe(0);
    const vars = exportsOf(printed.stdout);
    expect(vars.get('HELMCREW_DEV_CLUSTERS')).toBe('home edge-1');
    expect(vars.get('KUBECONFIG_HOME')).toBe(vars.get('KUBECONFIG'));
    expect(vars.get('REDIS_URL')).toBe(env.redisUrl);
    const edge = vars.get('KUBECONFIG_EDGE_1');
    expect(edge).toBeDefined();
    expect(edge).not.toBe(vars.get('KUBECONFIG'));
    const servers = new Set<string>();
    for (const file of [vars.get('KUBECONFIG_HOME')!, edge!]) {
      const kc = new KubeConfig();
      kc.loadFromFile(file);
      servers.add(kc.getCurrentCluster()!.server);
      const crd = await kc.makeApiClient(ApiextensionsV1Api).readCustomResourceDefinition({ name: 'helmreleases.helmcrew.dev' });
      expect(crd.status?.conditions?.find((c) => c.type === 'Established')?.status).toBe('True');
      // kwok's nodes, so the charts' Pods become Ready in every cluster.
      expect((await kc.makeApiClient(CoreV1Api).listNode({ labelSelector: 'type=kwok' })).items.length).toBeGreaterThan(0);
    }
    expect(servers.size).toBe(2);
    // A namespace made in one cluster is not in the other.
    const home = new KubeConfig();
    home.loadFromFile(vars.get('KUBECONFIG_HOME')!);
    const other = new KubeConfig();
    other.loadFromFile(edge!);
    await home.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: 'only-at-home' } } });
    const names = (await other.makeApiClient(CoreV1Api).listNamespace()).items.map((n) => n.metadata?.name);
    expect(names).not.toContain('only-at-home');
  }, 60_000);

  it('a second up with the same clusters returns at once; down stops the extra cluster’s processes too', async () => {
    const again = await helmcrew('dev', 'up', '--clusters', 'home,edge-1');
    expect(again.exitCode, again.stderr).toBe(0);
    expect(await readDevEnvironment(stateDir)).toEqual(env);
    const edgeProcesses = env.processes.filter((p) => p.name.startsWith('edge-1/'));
    expect(edgeProcesses.map((p) => p.name)).toEqual(expect.arrayContaining(['edge-1/etcd', 'edge-1/kube-apiserver', 'edge-1/kwok']));
    const pids = env.processes.map((p) => p.pid);
    const down = await helmcrew('dev', 'down');
    expect(down.exitCode, down.stderr).toBe(0);
    await eventually(() => expect(pids.filter(pidAlive)).toEqual([]), { timeoutMs: 15_000, intervalMs: 250 });
    expect(await readDevEnvironment(stateDir)).toBeUndefined();
  }, 120_000);
});
