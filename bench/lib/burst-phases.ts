// The measured phases of bench/burst.ts: helmcrew (a controller child process) and the floor
// (`helm upgrade --install` driven by `xargs -P<c>`), each over N releases in a fresh namespace.
import { spawn } from 'node:child_process';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { HelmRelease, HelmReleaseSpec } from '../../src/api/helmrelease.js';
import { API_GROUP, API_VERSION, HELMRELEASE_PLURAL } from '../../src/api/vocabulary.js';
import { connectKube } from '../../src/core/kube/slim-clients.js';
import { outcomeAtGeneration } from '../../src/core/release/reconciled.js';
import { ListWatch, restWatch, type Listed } from '../../src/core/kube/watch/list-watch.js';
import { applyHelmRelease, helmReleaseObject, mapLimit } from '../../src/dev/harness/index.js';
import { diffCounts, readApiRequests, summarizeRequests, type RequestSummary } from './api-metrics.js';
import { summarizeLog, type LogSummary } from './controller-log.js';
import { countBy, type CountingHelm } from './counting-helm.js';
import { cpuBreakdown, cpuSnapshot } from './cpu-breakdown.js';
import type { BenchEnv } from './environment.js';
import { cpuSeconds, startSampler, type SampleStats } from './proc-sampler.js';
import { slotStats, type SlotStats } from './helm-slots.js';
import { countRedisCommands } from './redis-per-release.js';

export interface Burst {
  what: 'install' | 'upgrade' | 'adopt';
  wallMs: number;
  done: number;
  timedOut: boolean;
  helm: Record<string, number>;
  requests: RequestSummary;
  /** The bench's own requests inside `requests`: applies (GET + PUT/POST each) and its watch (LIST + WATCH). */
  benchRequests: number;
  sampled: SampleStats;
  cpuS: { ctl?: number; apiserver?: number };
  /** The whole machine's CPU seconds over the burst, by role (see cpu-breakdown.ts). */
  cpuByRole: Record<string, number>;
  log?: LogSummary;
  /** Every request row of the burst, "verb resource" → count (all clients). */
  requestCounts?: Record<string, number>;
  /** How busy the helm slots were (helm-slots.ts). */
  slots?: SlotStats;
  /** Redis commands over the burst, by name (redis-per-release.ts). */
  redisCalls?: Record<string, number>;
}

export interface Rest {
  seconds: number;
  helm: Record<string, number>;
  requests: RequestSummary;
  reconciled: Record<string, number>;
  ctlCpuS: number;
  apiserverCpuS: number;
  sampled: SampleStats;
}

export const names = (n: number) => Array.from({ length: n }, (_, i) => `r${String(i + 1).padStart(4, '0')}`);

function apiRequests(be: BenchEnv) {
  return readApiRequests(be.env.kubectlBin, be.env.kubeconfig);
}

/** Applies N specs, then watches until each is Ready for its generation. */
/** Applies a HelmRelease for each name, 8 at a time: the generation each is at. */
export async function applyReleases(
  be: BenchEnv,
  namespace: string,
  releaseNames: string[],
  makeSpec: (name: string) => HelmReleaseSpec,
): Promise<Map<string, number>> {
  const generations = new Map<string, number>();
  await mapLimit(releaseNames, 8, async (name) => {
    generations.set(name, await applyHelmRelease(be.kubeConfig, helmReleaseObject(namespace, name, makeSpec(name))));
  });
  return generations;
}

export async function helmcrewBurst(
  be: BenchEnv,
  ctx: { namespace: string; pid: number; helm: CountingHelm; logFile: string; concurrency?: number },
  what: 'install' | 'upgrade' | 'adopt',
  releaseNames: string[],
  /** The spec applied to each name (the fleet's hub bench gives each name its target cluster). */
  makeSpec: (name: string) => HelmReleaseSpec,
  timeoutMs: number,
  /**
   * The HelmReleases are there already (applied with no controller running, at these generations):
   * the burst starts a controller beside them (`start`) and is timed from just before it.
   */
  existing?: { generations: Map<string, number>; start: () => Promise<{ pid: number; logFile: string }> },
): Promise<Burst> {
  const helmBefore = (await ctx.helm.invocations()).length;
  const logFrom = existing ? 0 : (await stat(ctx.logFile)).size;
  const before = apiRequests(be);
  const apiserver0 = be.apiserverPid ? (cpuSeconds(be.apiserverPid) ?? 0) : 0;
  const ctl0 = existing ? 0 : (cpuSeconds(ctx.pid) ?? 0);
  const redisCount = await countRedisCommands(be.env.redisUrl);
  const cpuBefore = cpuSnapshot();
  const t0 = Date.now();
  // A controller started here has done all its work inside the burst: its CPU counts from 0.
  const proc = existing ? await existing.start() : ctx;
  const sampler = startSampler(proc.pid);
  const generations = existing?.generations ?? (await applyReleases(be, ctx.namespace, releaseNames, makeSpec));
  // Completion is seen through a watch (an informer: one LIST, then events), not by polling: a
  // LIST of N objects every few hundred ms would load the API server the floor does not share.
  const done = new Set<string>();
  let doneAt = 0;
  // Done = Ready=True at the generation applied, nothing running (core's predicate; a failure is not done).
  const isDone = (r: HelmRelease) => {
    const gen = generations.get(r.metadata.name);
    return gen !== undefined && outcomeAtGeneration(r, gen) === 'ready';
  };
  // The controller's own small informer over one keep-alive connection: the bench's watch is a
  // cost on helmcrew's side of the machine only, so it should be as light as the controller's.
  const rest = connectKube(be.env.kubeconfig);
  const path = `/apis/${API_GROUP}/${API_VERSION}/namespaces/${ctx.namespace}/${HELMRELEASE_PLURAL}`;
  const informer = new ListWatch<KubernetesObject>(() => rest.request<Listed<KubernetesObject>>({ method: 'GET', path }), restWatch(rest, path));
  const allDone = new Promise<void>((resolve) => {
    const seen = (obj: KubernetesObject) => {
      const r = obj as unknown as HelmRelease;
      if (done.has(r.metadata.name) || !isDone(r)) return;
      done.add(r.metadata.name);
      doneAt = Date.now();
      if (done.size === generations.size) resolve();
    };
    informer.on('add', seen);
    informer.on('update', seen);
  });
  await informer.start();
  const timer = new AbortController();
  await Promise.race([allDone, sleep(Math.max(0, t0 + timeoutMs - Date.now()), undefined, { signal: timer.signal }).catch(() => undefined)]);
  timer.abort();
  await informer.stop();
  const polls = 1;
  const wallMs = doneAt - t0;
  const cpuByRole = cpuBreakdown(cpuBefore, cpuSnapshot(), { ctlPid: proc.pid, benchPid: process.pid });
  await sleep(300);
  const sampled = sampler.stop();
  const counts = diffCounts(before, apiRequests(be));
  const requests = summarizeRequests(counts);
  const redisCalls = await redisCount.stop();
  return {
    what,
    wallMs,
    done: done.size,
    timedOut: done.size < generations.size,
    helm: countBy((await ctx.helm.invocations()).slice(helmBefore)),
    requests,
    benchRequests: (existing ? 0 : 2 * releaseNames.length) + polls + 1,
    sampled,
    cpuS: { ctl: (cpuSeconds(proc.pid) ?? 0) - ctl0, apiserver: be.apiserverPid ? (cpuSeconds(be.apiserverPid) ?? 0) - apiserver0 : undefined },
    cpuByRole,
    log: await summarizeLog(proc.logFile, logFrom),
    requestCounts: Object.fromEntries(counts),
    ...(ctx.concurrency ? { slots: slotStats(await ctx.helm.spans(), ctx.concurrency, t0 / 1000) } : {}),
    redisCalls,
  };
}

/** Times from just before the apply to the start of the `helm upgrade` it causes (the wrapper logs each start). */
export async function specChangeToHelmStartMs(
  be: BenchEnv,
  ctx: { namespace: string; helmLog: string },
  name: string,
  makeSpec: () => HelmReleaseSpec,
): Promise<number> {
  const linesBefore = (await readFile(ctx.helmLog, 'utf8')).split('\n').filter(Boolean).length;
  const t0 = Date.now();
  await applyHelmRelease(be.kubeConfig, helmReleaseObject(ctx.namespace, name, makeSpec()));
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const lines = (await readFile(ctx.helmLog, 'utf8')).split('\n').filter(Boolean).slice(linesBefore);
    const upgrade = lines.find((line) => line.split(' ')[1] === 'upgrade');
    if (upgrade) return Number(upgrade.split(' ')[0]) * 1000 - t0;
    await sleep(20);
  }
  return NaN;
}

/** At rest: nothing applied; counts what the controller does over `seconds`. */
export async function helmcrewRest(be: BenchEnv, ctx: { pid: number; helm: CountingHelm; logFile: string }, seconds: number): Promise<Rest> {
  const helmBefore = (await ctx.helm.invocations()).length;
  const logFrom = (await stat(ctx.logFile)).size;
  const before = apiRequests(be);
  const cpu0 = { ctl: cpuSeconds(ctx.pid) ?? 0, apiserver: be.apiserverPid ? (cpuSeconds(be.apiserverPid) ?? 0) : 0 };
  const sampler = startSampler(ctx.pid, 1000);
  await sleep(seconds * 1000);
  const sampled = sampler.stop();
  const requests = summarizeRequests(diffCounts(before, apiRequests(be)));
  const log = await summarizeLog(ctx.logFile, logFrom);
  return {
    seconds,
    helm: countBy((await ctx.helm.invocations()).slice(helmBefore)),
    requests,
    reconciled: log.reconciled,
    ctlCpuS: (cpuSeconds(ctx.pid) ?? 0) - cpu0.ctl,
    apiserverCpuS: be.apiserverPid ? (cpuSeconds(be.apiserverPid) ?? 0) - cpu0.apiserver : 0,
    sampled,
  };
}

/**
 * The floor: `xargs -P<c> -n1 helm upgrade --install <name> <chart> … --wait=watcher`, the
 * names on stdin, through the same counting wrapper. Sampled as the xargs process tree. `env`
 * adds variables for helm (`--floor-env`), e.g. the GOGC helmcrew gives its helm processes.
 */
export async function floorBurst(
  be: BenchEnv,
  opts: {
    namespace: string;
    helm: CountingHelm;
    dir: string;
    /** The chart as helm is given it: an archive's path, or an OCI reference with its version and flags. */
    chartArgs: string[];
    set: string[];
    concurrency: number;
    env: Record<string, string>;
    /** floor-flags.ts: none (helm as a person runs it), the strict floor's, or helmcrew's defaults. */
    flags: string[];
  },
  what: 'install' | 'upgrade',
  releaseNames: string[],
): Promise<Burst> {
  const helmBefore = (await opts.helm.invocations()).length;
  const before = apiRequests(be);
  const apiserver0 = be.apiserverPid ? (cpuSeconds(be.apiserverPid) ?? 0) : 0;
  const list = join(opts.dir, `names-${what}.txt`);
  await writeFile(list, `${releaseNames.join('\n')}\n`);
  const cpuBefore = cpuSnapshot();
  const t0 = Date.now();
  const child = spawn(
    'xargs',
    [
      '-a',
      list,
      `-P${opts.concurrency}`,
      '-n1',
      '-I{}',
      opts.helm.bin,
      'upgrade',
      '--install',
      '{}',
      ...opts.chartArgs,
      '--namespace',
      opts.namespace,
      ...opts.set,
      '--wait=watcher',
      '--timeout',
      '300s',
      '--history-max',
      '10',
      ...opts.flags,
    ],
    {
      env: {
        ...process.env,
        ...opts.env,
        KUBECONFIG: be.env.kubeconfig,
        HELM_CACHE_HOME: join(opts.dir, 'cache'),
        HELM_CONFIG_HOME: join(opts.dir, 'config'),
        HELM_DATA_HOME: join(opts.dir, 'data'),
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    if (stderr.length < 4000) stderr += chunk.toString('utf8');
  });
  const sampler = startSampler(child.pid!);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const wallMs = Date.now() - t0;
  const cpuByRole = cpuBreakdown(cpuBefore, cpuSnapshot(), { benchPid: process.pid });
  const sampled = sampler.stop();
  if (code !== 0) throw new Error(`floor ${what}: xargs exited ${code}: ${stderr.slice(0, 1000)}`);
  const counts = diffCounts(before, apiRequests(be));
  const requests = summarizeRequests(counts);
  return {
    what,
    wallMs,
    done: releaseNames.length,
    timedOut: false,
    helm: countBy((await opts.helm.invocations()).slice(helmBefore)),
    requests,
    benchRequests: 0,
    sampled,
    cpuS: { apiserver: be.apiserverPid ? (cpuSeconds(be.apiserverPid) ?? 0) - apiserver0 : undefined },
    cpuByRole,
    requestCounts: Object.fromEntries(counts),
    slots: slotStats(await opts.helm.spans(), opts.concurrency, t0 / 1000),
  };
}
