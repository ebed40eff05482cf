// `helmcrew dev up | down | env`: one local environment per state dir (a real control plane with
// fake nodes, redis and the chart repository), recorded in <state>/env.json so that a later
// command finds it, re-uses it, or stops exactly the processes it started.
import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { loadKubeConfig } from '../core/kube/client.js';
import { SHARED_ENV } from '../core/config/env.js';
import { applyCrds } from '../core/kube/crd-installer.js';
import type { Logger } from '../core/log.js';
import { certPaths, ensureCerts, type CertPaths } from './certs.js';
import { startChartRepo } from './chart-repo.js';
import { startOciRegistries } from './oci-registry.js';
import { startControlPlane } from './control-plane.js';
import { createFakeNodes, startKwok } from './kwok.js';
import { resolveStateDir, statePaths } from './paths.js';
import { isAlive, recordProcess, stopProcess, type ProcessRecord, type StartedProcess } from './processes.js';
import { pingRedis, startRedis } from './redis.js';
import { ensureToolchain } from './toolchain.js';
import { httpGet } from './wait.js';
import { HOME_CLUSTER } from './dev-clusters.js';
import { readEnvFile, toEnvironment, writeEnvFile, type DevCluster, type DevEnvironment, type EnvFile } from './env-file.js';
import { startExtraCluster } from './extra-cluster.js';

export interface DevOptions {
  /** Defaults to HELMCREW_STATE_DIR, then <repo>/.helmcrew/dev. */
  stateDir?: string;
  log: Logger;
  /**
   * `dev up --clusters`: the control planes' names, the environment's own first (dev-clusters.ts).
   * Unset: whatever is running is kept, else one cluster. Set and different from what runs: replaced.
   */
  clusters?: string[];
}

/** The environment recorded in `stateDir` once fully up; undefined if none (or still starting). */
export async function readDevEnvironment(stateDir?: string): Promise<DevEnvironment | undefined> {
  const file = await readEnvFile(resolveStateDir(stateDir));
  return file?.status === 'up' ? toEnvironment(file) : undefined;
}

export type DevEnvironmentCheck =
  { state: 'none' } | { state: 'up'; env: DevEnvironment; replaced: string[] } | { state: 'down'; env: DevEnvironment; dead: string[] };

/**
 * For `dev env`: the recorded environment and whether it works. A process restarted by hand
 * has a new pid, but the environment still works when every endpoint answers: that is "up",
 * with the replaced processes named (`dev down` stops only what it recorded).
 */
export async function checkDevEnvironment(stateDir?: string): Promise<DevEnvironmentCheck> {
  const dir = resolveStateDir(stateDir);
  const file = await readEnvFile(dir);
  if (file?.status !== 'up') return { state: 'none' };
  const env = toEnvironment(file);
  const notRecorded = file.processes.filter((p) => !isAlive(p)).map((p) => p.name);
  if (notRecorded.length === 0) return { state: 'up', env, replaced: [] };
  if (await isServing(file, certPaths(statePaths(dir).certs))) return { state: 'up', env, replaced: notRecorded };
  return { state: 'down', env, dead: notRecorded };
}

/** True while every process of `env` still runs (cheap: no network). */
export function isDevEnvironmentAlive(env: DevEnvironment): boolean {
  return env.processes.every(isAlive);
}

/** Every recorded process runs, the apiserver is ready and redis answers. Takes milliseconds. */
async function isHealthy(file: EnvFile, certs: CertPaths): Promise<boolean> {
  if (file.status !== 'up' || !file.processes.every(isAlive)) return false;
  return isServing(file, certs);
}

/** The apiserver is ready, redis answers and the chart repository serves: whatever the pids. */
async function isServing(file: EnvFile, certs: CertPaths): Promise<boolean> {
  try {
    const tls = await Promise.all([certs.caCert, certs.adminCert, certs.adminKey].map((f) => readFile(f)));
    const readyz = await httpGet(`${file.apiserverUrl}/readyz`, { ca: tls[0], cert: tls[1], key: tls[2] });
    const port = Number(new URL(file.redisUrl!).port);
    const index = file.chartRepoUrl ? await httpGet(`${file.chartRepoUrl}/index.yaml`) : { status: 200 };
    // An environment from before the registries existed is not serving everything: it is replaced.
    if (!file.ociRegistry) return false;
    const registries = await Promise.all(
      [file.ociRegistry.url, file.ociRegistry.authUrl].map((u) => httpGet(`${u.replace(/^oci:\/\/([^/]+).*$/, 'http://$1')}/v2/`)),
    );
    return readyz.status === 200 && index.status === 200 && registries.every((r) => [200, 401].includes(r.status)) && (await pingRedis(port));
  } catch {
    return false;
  }
}

/** Stop order: clients first, then the apiserver, then etcd, so none waits on a dead backend. */
function stopWave(name: string): number {
  const base = processBase(name);
  return base === 'etcd' ? 2 : base === 'kube-apiserver' ? 1 : 0;
}

/** An extra cluster's processes are recorded as `<cluster>/<process>`; they live in `<state>/clusters/<cluster>`. */
function processBase(name: string): string {
  return name.slice(name.indexOf('/') + 1);
}

function pidFile(stateDir: string, name: string): string {
  const slash = name.indexOf('/');
  if (slash === -1) return join(statePaths(stateDir).pids, `${name}.pid`);
  return join(statePaths(extraClusterDir(stateDir, name.slice(0, slash))).pids, `${name.slice(slash + 1)}.pid`);
}

function extraClusterDir(stateDir: string, cluster: string): string {
  return join(stateDir, 'clusters', cluster);
}

/** The cluster names an environment runs: its own, then the extra ones. */
function runningClusters(file: EnvFile): string[] {
  return file.clusters?.map((c) => c.name) ?? [HOME_CLUSTER];
}

async function stopAll(stateDir: string, processes: ProcessRecord[], log: Logger): Promise<void> {
  for (const wave of [0, 1, 2]) {
    await Promise.all(
      processes
        .filter((p) => stopWave(p.name) === wave)
        .map(async (p) => {
          if (isAlive(p)) log.info({ process: p.name, pid: p.pid }, 'stopping');
          await stopProcess(p);
          await rm(pidFile(stateDir, p.name), { force: true });
        }),
    );
  }
}

/**
 * Brings the environment up, or returns the one already running in this state dir. Warm (toolchain
 * built) it takes seconds; cold, the toolchain build comes first and takes many minutes.
 */
export async function devUp(opts: DevOptions): Promise<DevEnvironment> {
  const { log } = opts;
  const stateDir = resolveStateDir(opts.stateDir);
  const paths = statePaths(stateDir);
  const certDir = paths.certs;
  const existing = await readEnvFile(stateDir);
  const wanted = opts.clusters ?? (existing ? runningClusters(existing) : [HOME_CLUSTER]);
  if (existing) {
    const sameClusters = runningClusters(existing).join(',') === wanted.join(',');
    if (!sameClusters) log.info({ stateDir, running: runningClusters(existing), wanted }, 'dev environment runs other clusters; replacing it');
    else if (await isHealthy(existing, certPaths(certDir))) {
      log.info({ stateDir }, 'dev environment already up');
      // Cheap and idempotent: an environment from before the CRD changed gets the current one.
      await applyCrds(loadKubeConfig(existing.kubeconfig));
      return toEnvironment(existing);
    } else log.info({ stateDir }, 'previous dev environment is not fully running; replacing it');
    await stopAll(stateDir, existing.processes, log);
  }

  const started = Date.now();
  const built = await ensureToolchain(log);
  // HELM_BIN points the environment (chart packaging, exports) at another helm build.
  const helmBin = SHARED_ENV.in(process.env).raw('HELM_BIN');
  const bins = helmBin ? { ...built, helm: helmBin } : built;
  await mkdir(stateDir, { recursive: true });
  const file: EnvFile = { status: 'starting', stateDir, helmBin: bins.helm, kubectlBin: bins.kubectl, processes: [] };
  await writeEnvFile(stateDir, file);
  // Each start is recorded at once; the writes are chained so they land in order.
  let saving = Promise.resolve();
  const track = (rec: ProcessRecord) => {
    file.processes.push({ name: rec.name, pid: rec.pid, ...(rec.startTime ? { startTime: rec.startTime } : {}) });
    saving = saving.then(() => writeEnvFile(stateDir, file));
  };
  const onStarted = (proc: StartedProcess) => track(proc);
  const extras = new Map<string, DevCluster>();

  try {
    const certs = await ensureCerts(certDir, log);
    // Independent parts in parallel; allSettled so that on failure every branch has finished
    // starting what it starts before we stop it all.
    const results = await Promise.allSettled([
      (async () => {
        const cp = await startControlPlane({ stateDir, bins, certs, log, onStarted });
        file.apiserverUrl = cp.apiserverUrl;
        file.kubeconfig = cp.kubeconfig;
        const kwok = await startKwok({ stateDir, bins, certs, kubeconfig: cp.kubeconfig, log, onStarted });
        await createFakeNodes({ kubeconfig: cp.kubeconfig, log, watch: [kwok] });
        // Everything after `dev up` (controller, demo, kubectl apply) needs helmcrew's CRDs.
        await applyCrds(loadKubeConfig(cp.kubeconfig));
        log.info('helmcrew CRDs installed');
      })(),
      (async () => {
        file.redisUrl = (await startRedis({ stateDir, log, onStarted })).url;
      })(),
      // The other clusters of a local fleet: control planes of their own, the same Redis. Their
      // processes are recorded once each cluster is up (a failed start stops its own).
      ...wanted.slice(1).map(async (name) => {
        const extra = await startExtraCluster({ name, stateDir: extraClusterDir(stateDir, name), log, fakeNodes: true });
        for (const proc of extra.processes) track({ ...proc, name: `${name}/${proc.name}` });
        await applyCrds(loadKubeConfig(extra.kubeconfig));
        log.info({ cluster: name }, 'extra cluster up, helmcrew CRDs installed');
        extras.set(name, { name, kubeconfig: extra.kubeconfig, apiserverUrl: extra.apiserverUrl });
      }),
      (async () => {
        const repo = await startChartRepo({ stateDir, helmBin: bins.helm, log });
        track(recordProcess('chart-repo', repo.pid));
        file.chartRepoUrl = repo.url;
        // The same packaged charts, pushed to the registries.
        file.ociRegistry = await startOciRegistries({ stateDir, chartsDir: join(stateDir, 'charts'), helmBin: bins.helm, log, onStarted });
      })(),
    ]);
    const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failure) throw failure.reason;
    file.clusters = [{ name: wanted[0]!, kubeconfig: file.kubeconfig!, apiserverUrl: file.apiserverUrl! }, ...wanted.slice(1).map((name) => extras.get(name)!)];
    file.status = 'up';
    await saving;
    await writeEnvFile(stateDir, file);
  } catch (err) {
    log.error({ err: (err as Error).message }, 'dev environment failed to start; stopping what started');
    await saving.catch(() => {});
    await stopAll(stateDir, file.processes, log);
    await rm(paths.envFile, { force: true });
    throw err;
  }
  log.info({ stateDir, seconds: (Date.now() - started) / 1000 }, 'dev environment up');
  return toEnvironment(file);
}

/** Stops the processes recorded in <state>/env.json (only those) and forgets the environment. */
export async function devDown(opts: DevOptions): Promise<void> {
  const stateDir = resolveStateDir(opts.stateDir);
  const file = await readEnvFile(stateDir);
  if (!file) {
    opts.log.info({ stateDir }, 'no dev environment recorded; nothing to stop');
    return;
  }
  await stopAll(stateDir, file.processes, opts.log);
  await rm(statePaths(stateDir).envFile, { force: true });
  opts.log.info({ stateDir }, 'dev environment down');
}
