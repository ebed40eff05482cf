// Another control plane on loopback (its own state dir, CA, etcd and ports): a cluster a
// HelmRelease's spec.kubeConfig can point at, for tests, benches and a local fleet.
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../core/log.js';
import { ensureCerts } from './certs.js';
import { startControlPlane } from './control-plane.js';
import { createFakeNodes, startKwok } from './kwok.js';
import { stopProcess, type ProcessRecord, type StartedProcess } from './processes.js';
import { ensureToolchain } from './toolchain.js';

export interface ExtraCluster {
  /** A short name for it (the kubeconfig Secret's name in tests). */
  name: string;
  /** Admin kubeconfig, everything embedded (what a Cluster API `<cluster>-kubeconfig` Secret holds). */
  kubeconfig: string;
  kubeconfigText: string;
  apiserverUrl: string;
  /** What it runs (etcd, the API server, controller-manager, scheduler, kwok): `dev up` records them. */
  processes: ProcessRecord[];
  stop(): Promise<void>;
}

export interface ExtraClusterOptions {
  name: string;
  /** Its own state: certs, etcd data, logs and pid files. */
  stateDir: string;
  log: Logger;
  /** kwok's fake nodes, so Pods become Ready and helm's waits end; off saves a process and a few seconds. */
  fakeNodes?: boolean;
}

/**
 * Starts the control plane and returns when it serves; stop() stops exactly what it started.
 * A port taken between picking and binding it ("address already in use") is tried again on new ones.
 */
export async function startExtraCluster(opts: ExtraClusterOptions, attempts = 3): Promise<ExtraCluster> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(opts);
    } catch (error) {
      if (attempt >= attempts || !/address already in use/.test(error instanceof Error ? error.message : String(error))) throw error;
      opts.log.warn({ attempt, cluster: opts.name }, 'a port picked for the extra cluster was taken meanwhile; starting again on new ports');
    }
  }
}

async function startOnce(opts: ExtraClusterOptions): Promise<ExtraCluster> {
  const { stateDir, log } = opts;
  await mkdir(stateDir, { recursive: true });
  const started: StartedProcess[] = [];
  const stop = async () => {
    await Promise.all(started.splice(0).map((proc) => stopProcess(proc)));
  };
  try {
    const bins = await ensureToolchain(log);
    const certs = await ensureCerts(join(stateDir, 'certs'), log);
    const onStarted = (proc: StartedProcess) => void started.push(proc);
    const cp = await startControlPlane({ stateDir, bins, certs, log, onStarted });
    if (opts.fakeNodes) {
      const kwok = await startKwok({ stateDir, bins, certs, kubeconfig: cp.kubeconfig, log, onStarted });
      await createFakeNodes({ kubeconfig: cp.kubeconfig, log, watch: [kwok] });
    }
    return {
      name: opts.name,
      kubeconfig: cp.kubeconfig,
      kubeconfigText: await readFile(cp.kubeconfig, 'utf8'),
      apiserverUrl: cp.apiserverUrl,
      processes: started.map(({ name, pid, startTime }) => (startTime ? { name, pid, startTime } : { name, pid })),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
