import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../../src/core/log.js';
import { deleteNamespace, freshNamespace, startTestController, testEnv, uniqueName, type TestController } from './fixtures.js';

const FLEET_CLUSTERS = ['edge', 'home'] as const;
type FleetCluster = (typeof FLEET_CLUSTERS)[number];

/**
 * A fleet of two on one Redis: agents (a test controller with notify) for `edge` and `home`, one
 * API server standing for both clusters, each agent watching its own fresh namespace and
 * announcing itself every second; and the directory of their command keys a hub reads
 * (HELMCREW_FLEET_KEYS_DIR). `stop()` undoes whatever `start()` got to.
 */
export function fleetAgents(name: string) {
  const { kubeConfig } = testEnv();
  const fleetPrefix = uniqueName(`hc-${name}`);
  const keys: Record<FleetCluster, string> = { edge: randomBytes(32).toString('hex'), home: randomBytes(32).toString('hex') };
  const ns: Record<FleetCluster, string> = { edge: '', home: '' };
  const agents: Partial<Record<FleetCluster, TestController>> = {};
  let keysDir = '';
  return {
    fleetPrefix,
    ns,
    get keysDir() {
      return keysDir;
    },
    async start(extraEnv: Record<string, string> = {}) {
      keysDir = await mkdtemp(join(tmpdir(), `helmcrew-${name}-keys-`));
      for (const cluster of FLEET_CLUSTERS) {
        await writeFile(join(keysDir, cluster), `${keys[cluster]}\n`);
        ns[cluster] = await freshNamespace(kubeConfig, `${name}-${cluster}`);
        agents[cluster] = await startTestController(
          [ns[cluster]],
          {
            HELMCREW_QUEUE_PREFIX: fleetPrefix,
            HELMCREW_CLUSTER_NAME: cluster,
            HELMCREW_COMMAND_KEY: keys[cluster],
            HELMCREW_HEARTBEAT_SECONDS: '1',
            ...extraEnv,
          },
          createLogger(cluster, 'warn'),
        );
      }
    },
    async stop() {
      for (const agent of Object.values(agents)) await agent.stop();
      for (const namespace of Object.values(ns)) if (namespace) await deleteNamespace(kubeConfig, namespace);
      if (keysDir) await rm(keysDir, { recursive: true, force: true });
    },
  };
}
