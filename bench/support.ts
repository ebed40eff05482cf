// Shared pieces of the benchmarks: machine facts, a bench-only environment, a counting helm
// wrapper, a controller child process with /proc sampling, namespace clean-up, and a clean-up
// stack that runs on success, failure, a signal or the overall time limit.
import { outcomeAtGeneration } from '../src/core/release/reconciled.js';
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, readFileSync, readdirSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, freemem, loadavg, totalmem, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { HelmRelease } from '../src/api/helmrelease.js';
import { API_GROUP, API_VERSION, HELMRELEASE_PLURAL } from '../src/api/vocabulary.js';
import { jsonPatch, loadKubeConfig, makeKubeClients } from '../src/core/kube/client.js';
import { applyCrds } from '../src/core/kube/crd-installer.js';
import { isNotFound } from '../src/core/kube/errors.js';
import { HelmReleaseApi } from '../src/core/kube/helmrelease-api.js';
import { devDown, devUp, type DevEnvironment } from '../src/dev/environment.js';
import { ETCD_VERSION, HELM_VERSION, K8S_VERSION, KWOK_VERSION, REPO_ROOT } from '../src/dev/paths.js';
import { ensureNamespace } from '../src/dev/releases.js';
import { createLogger, type Logger } from '../src/core/log.js';

export const log: Logger = createLogger('bench', process.env.LOG_LEVEL ?? 'warn');

/** Progress lines for people, on stderr; stdout carries the report. */
export function say(message: string): void {
  process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

export function randomSuffix(): string {
  return randomBytes(3).toString('hex');
}

// ---------------------------------------------------------------------------------------------
// Arguments

export function argValue(name: string): string | undefined {
  const args = process.argv.slice(2);
  const index = args.indexOf(`--${name}`);
  if (index >= 0) return args[index + 1];
  const inline = args.find((a) => a.startsWith(`--${name}=`));
  return inline?.slice(name.length + 3);
}

export function intArg(name: string, fallback: number): number {
  const raw = argValue(name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name} must be a positive whole number, got "${raw}"`);
  return value;
}

export function intListArg(name: string, fallback: number[]): number[] {
  const raw = argValue(name);
  if (raw === undefined) return fallback;
  const values = raw.split(',').map(Number);
  if (values.some((v) => !Number.isInteger(v) || v <= 0)) throw new Error(`--${name} must be a comma-separated list of positive whole numbers`);
  return values;
}

/** "GOGC=200 GOMAXPROCS=1" → { GOGC: '200', GOMAXPROCS: '1' }; "" or "default" → {}. */
export function envAssignments(text: string): Record<string, string> {
  if (text.trim() === '' || text.trim() === 'default') return {};
  return Object.fromEntries(
    text
      .trim()
      .split(/\s+/)
      .map((pair) => {
        const at = pair.indexOf('=');
        if (at <= 0) throw new Error(`"${pair}" is not NAME=value`);
        return [pair.slice(0, at), pair.slice(at + 1)];
      }),
  );
}

// ---------------------------------------------------------------------------------------------
// Machine facts

export interface MachineFacts {
  date: string;
  nproc: number;
  cpuModel: string;
  memTotalMiB: number;
  memFreeMiB: number;
  loadavg: string;
  node: string;
  helm: string;
  kubernetes: string;
  etcd: string;
  kwok: string;
  commit: string;
}

export function loadavgString(): string {
  return loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
}

/** Short commit of the checkout, noting uncommitted changes under src/ (the code a controller runs). */
export function currentCommit(): string {
  try {
    let commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
    if (dirty) commit += ' (src/ has uncommitted changes)';
    return commit;
  } catch {
    return 'unknown';
  }
}

export function machineFacts(helmBin?: string): MachineFacts {
  let helm = HELM_VERSION;
  if (helmBin) {
    try {
      helm = execFileSync(helmBin, ['version', '--short'], { encoding: 'utf8' }).trim();
    } catch {
      // keep the pinned version
    }
  }
  const commit = currentCommit();
  return {
    date: new Date().toISOString(),
    nproc: availableParallelism(),
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memTotalMiB: Math.round(totalmem() / 2 ** 20),
    memFreeMiB: Math.round(freemem() / 2 ** 20),
    loadavg: loadavgString(),
    node: process.version,
    helm,
    kubernetes: K8S_VERSION,
    etcd: ETCD_VERSION,
    kwok: KWOK_VERSION,
    commit,
  };
}

export function formatFacts(f: MachineFacts): string {
  return [
    `date:        ${f.date}`,
    `machine:     nproc=${f.nproc}, ${f.cpuModel}, memory ${f.memTotalMiB} MiB total / ${f.memFreeMiB} MiB free`,
    `load avg:    ${f.loadavg} (1/5/15 min) at start`,
    `versions:    node ${f.node}, helm ${f.helm}, kube-apiserver ${f.kubernetes}, etcd ${f.etcd}, kwok ${f.kwok}`,
    `commit:      ${f.commit}`,
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------
// Clean-up that always runs

type CleanupStep = { name: string; run: () => Promise<void> };

/**
 * A LIFO stack of clean-up steps. `main` runs the benchmark; the stack runs afterwards whether it
 * succeeded, threw, got SIGINT/SIGTERM or hit the overall time limit. Each step is bounded.
 */
export class Cleanup {
  private readonly steps: CleanupStep[] = [];
  private running?: Promise<void>;

  add(name: string, run: () => Promise<void>): () => void {
    const step = { name, run };
    this.steps.push(step);
    return () => {
      const index = this.steps.indexOf(step);
      if (index >= 0) this.steps.splice(index, 1);
    };
  }

  runAll(): Promise<void> {
    this.running ??= (async () => {
      while (this.steps.length > 0) {
        const step = this.steps.pop()!;
        say(`cleanup: ${step.name}`);
        try {
          await withTimeout(step.run(), 120_000, `cleanup step "${step.name}"`);
        } catch (error) {
          say(`cleanup: ${step.name} failed: ${(error as Error).message}`);
        }
      }
    })();
    return this.running;
  }
}

export async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms / 1000}s`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs `main` with `cleanup` guaranteed, an overall time limit, and an exit code. */
export async function runBench(name: string, maxSeconds: number, main: (cleanup: Cleanup) => Promise<void>): Promise<void> {
  const cleanup = new Cleanup();
  let exitCode = 0;
  let interrupted = false;
  const onSignal = (signal: NodeJS.Signals) => {
    interrupted = true;
    say(`${signal}: cleaning up`);
    void cleanup.runAll().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    await withTimeout(main(cleanup), maxSeconds * 1000, `${name} (--max-seconds ${maxSeconds})`);
  } catch (error) {
    exitCode = interrupted ? 130 : 1;
    if (!interrupted) say(`${name} FAILED: ${(error as Error).stack ?? String(error)}`);
  }
  await cleanup.runAll();
  // Nothing of ours should keep the process alive; exit explicitly in case a client lingers.
  process.exit(exitCode);
}

// ---------------------------------------------------------------------------------------------
// The bench-only environment

export interface BenchEnv {
  env: DevEnvironment;
  kubeConfig: KubeConfig;
  dir: string;
  apiserverPid?: number;
}

/**
 * Brings up a fresh environment in its own state dir under /tmp (or re-uses `--state-dir`, left
 * running), applies the CRD, and registers its take-down.
 */
export async function startBenchEnv(cleanup: Cleanup): Promise<BenchEnv> {
  const dir = await mkdtemp(join(tmpdir(), 'helmcrew-bench-'));
  const reuse = argValue('state-dir');
  const stateDir = reuse ?? join(dir, 'state');
  const envLog = createLogger('bench-env', process.env.LOG_LEVEL ?? 'warn');
  if (!reuse) {
    cleanup.add(`devDown ${stateDir} (logs of the run stay in ${dir})`, async () => {
      await devDown({ stateDir, log: envLog });
      await rm(stateDir, { recursive: true, force: true }); // etcd data etc.; bench-only
    });
  }
  const started = Date.now();
  const env = await devUp({ stateDir, log: envLog });
  const kubeConfig = loadKubeConfig(env.kubeconfig);
  await applyCrds(kubeConfig);
  say(`environment up in ${((Date.now() - started) / 1000).toFixed(1)}s (${stateDir}${reuse ? ', re-used, left running' : ''})`);
  return { env, kubeConfig, dir, apiserverPid: env.processes.find((p) => p.name === 'kube-apiserver')?.pid };
}

// ---------------------------------------------------------------------------------------------
// Counting helm wrapper

export interface CountingHelm {
  bin: string;
  /** Subcommand of every helm started so far, in order. */
  invocations(): Promise<string[]>;
  /** What helm wrote on stderr (successful runs included), prefixed by subcommand and exit code. */
  stderr(): Promise<string>;
}

/**
 * A bash wrapper that records each helm start (time, subcommand, the GOGC it was given) and helm's stderr, then runs the
 * real helm and passes its exit code and output through. Costs one bash process per helm.
 */
export async function createCountingHelm(dir: string, realHelm: string): Promise<CountingHelm> {
  const bin = join(dir, 'helm');
  const logFile = join(dir, 'helm-invocations.log');
  const errFile = join(dir, 'helm-stderr.log');
  await writeFile(logFile, '');
  await writeFile(errFile, '');
  await writeFile(
    bin,
    `#!/usr/bin/env bash
printf '%s %s GOGC=%s\\n' "$EPOCHREALTIME" "$1" "\${GOGC:-}" >> ${JSON.stringify(logFile)}
err=${JSON.stringify(dir)}/.err.$$
${JSON.stringify(realHelm)} "$@" 2>"$err"
rc=$?
if [[ -s "$err" ]]; then
  { printf '== %s rc=%s\\n' "$1" "$rc"; cat "$err"; } >> ${JSON.stringify(errFile)}
  cat "$err" >&2
fi
rm -f "$err"
exit $rc
`,
  );
  await chmod(bin, 0o755);
  const invocations = async () =>
    (await readFile(logFile, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split(' ')[1] ?? '?');
  return { bin, invocations, stderr: () => readFile(errFile, 'utf8') };
}

export function countBy(items: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[item] = (counts[item] ?? 0) + 1;
  return counts;
}

// ---------------------------------------------------------------------------------------------
// /proc sampling

function readStatusKb(pid: number, field: 'VmRSS' | 'VmHWM' | 'RssAnon'): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

function readComm(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

function childrenOf(pid: number): number[] {
  const out: number[] = [];
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        const text = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim();
        if (text) out.push(...text.split(/\s+/).map(Number));
      } catch {
        // thread gone
      }
    }
  } catch {
    // process gone
  }
  return out;
}

function descendantsOf(pid: number): number[] {
  const all: number[] = [];
  const queue = childrenOf(pid);
  while (queue.length > 0) {
    const next = queue.shift()!;
    all.push(next);
    queue.push(...childrenOf(next));
  }
  return all;
}

/** utime + stime of a process in seconds (clock ticks assumed 100/s, as on Linux x86-64/arm64). */
export function cpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/** CPU seconds of this process's waited-for children (cutime + cstime). */
export function childrenCpuSeconds(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

export interface SampleStats {
  samples: number;
  peakRssKb: number;
  /** Controller plus every descendant (helm, its bash wrapper) at one instant. */
  peakTreeRssKb: number;
  /**
   * The same tree counting anonymous memory only (RssAnon): the sum of VmRSS counts the helm
   * binary's shared file pages once per process, a cgroup counts them once; this is closer to
   * what a container's memory limit sees (a lower bound: page cache and kernel memory excluded).
   */
  peakTreeAnonKb: number;
  peakHelmProcesses: number;
  meanHelmProcesses: number;
  loadavgAtEnd: string;
}

/** Samples a process every `everyMs`: its VmRSS, its tree's RSS, how many `helm` descendants run. */
export function startSampler(pid: number, everyMs = 250): { stop: () => SampleStats } {
  let samples = 0;
  let peakRssKb = 0;
  let peakTreeRssKb = 0;
  let peakTreeAnonKb = 0;
  let peakHelm = 0;
  let helmSum = 0;
  const sample = () => {
    const rss = readStatusKb(pid, 'VmRSS');
    if (rss === undefined) return;
    let tree = rss;
    let anon = readStatusKb(pid, 'RssAnon') ?? 0;
    let helm = 0;
    for (const child of descendantsOf(pid)) {
      tree += readStatusKb(child, 'VmRSS') ?? 0;
      anon += readStatusKb(child, 'RssAnon') ?? 0;
      if (readComm(child) === 'helm') helm++;
    }
    samples++;
    peakRssKb = Math.max(peakRssKb, rss);
    peakTreeRssKb = Math.max(peakTreeRssKb, tree);
    peakTreeAnonKb = Math.max(peakTreeAnonKb, anon);
    peakHelm = Math.max(peakHelm, helm);
    helmSum += helm;
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      sample();
      return {
        samples,
        peakRssKb,
        peakTreeRssKb,
        peakTreeAnonKb,
        peakHelmProcesses: peakHelm,
        meanHelmProcesses: samples ? helmSum / samples : 0,
        loadavgAtEnd: loadavgString(),
      };
    },
  };
}

export function peakRssOfLifetimeKb(pid: number): number | undefined {
  return readStatusKb(pid, 'VmHWM');
}

// ---------------------------------------------------------------------------------------------
// The controller as a child process

export interface ControllerChild {
  pid: number;
  logFile: string;
  startupMs: number;
  /** SIGTERM, wait for the graceful stop (in-flight reconciles finish), SIGKILL after `graceMs`. */
  stop: (graceMs?: number) => Promise<void>;
}

/** `node bin/helmcrew.js controller`, configured by environment like a real deployment, logs to a file. */
export async function spawnController(opts: {
  env: DevEnvironment;
  /** Script and arguments after `node`; default `bin/helmcrew.js controller` (tsx when there is no dist/). */
  entry?: string[];
  helmBin: string;
  namespace: string;
  prefix: string;
  concurrency: number;
  workDir: string;
  logFile: string;
  extraEnv?: Record<string, string>;
}): Promise<ControllerChild> {
  const started = Date.now();
  const entry = opts.entry ?? [join(REPO_ROOT, 'bin', 'helmcrew.js'), 'controller'];
  const child: ChildProcess = spawn(process.execPath, entry, {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      KUBECONFIG: opts.env.kubeconfig,
      REDIS_URL: opts.env.redisUrl,
      HELM_BIN: opts.helmBin,
      WATCH_NAMESPACES: opts.namespace,
      HELMCREW_QUEUE_PREFIX: opts.prefix,
      HELMCREW_CONCURRENCY: String(opts.concurrency),
      HELMCREW_WORK_DIR: opts.workDir,
      LOG_LEVEL: 'info',
      ...opts.extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = createWriteStream(opts.logFile);
  child.stdout!.pipe(out, { end: false });
  let exited = false;
  const exitPromise = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  const startedPromise = new Promise<void>((resolve, reject) => {
    let buffer = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      out.write(chunk);
      buffer += chunk.toString('utf8');
      if (buffer.includes('"msg":"controller started"')) {
        buffer = '';
        resolve();
      } else if (buffer.length > 1_000_000) buffer = buffer.slice(-10_000);
    });
    child.once('exit', (code) => reject(new Error(`controller exited with code ${code} before it started; see ${opts.logFile}`)));
  });
  const stop = async (graceMs = 60_000) => {
    if (exited) return;
    child.kill('SIGTERM');
    const killed = await Promise.race([exitPromise.then(() => false), sleep(graceMs).then(() => true)]);
    if (killed && !exited) {
      say(`controller ${child.pid} did not stop within ${graceMs / 1000}s; SIGKILL`);
      child.kill('SIGKILL');
      await exitPromise;
    }
    out.end();
  };
  try {
    await withTimeout(startedPromise, 60_000, 'controller start');
  } catch (error) {
    await stop(5_000);
    throw error;
  }
  return { pid: child.pid!, logFile: opts.logFile, startupMs: Date.now() - started, stop };
}

/**
 * Compiles src/ with tsc into `dir`/dist (never into the checkout's dist/, which would change what
 * bin/helmcrew.js runs), so the controller can be measured as the container image runs it.
 * Returns the entry arguments for `spawnController`.
 */
export async function buildCompiled(dir: string): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  execFileSync(
    join(REPO_ROOT, 'node_modules', '.bin', 'tsc'),
    ['-p', join(REPO_ROOT, 'tsconfig.json'), '--outDir', join(dir, 'dist'), '--sourceMap', 'false'],
    { cwd: REPO_ROOT, stdio: 'inherit' },
  );
  await writeFile(join(dir, 'package.json'), '{"type":"module"}\n');
  await symlink(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'));
  return [join(dir, 'dist', 'cli', 'main.js'), 'controller'];
}

// ---------------------------------------------------------------------------------------------
// Controller log analysis

export interface LogSummary {
  lines: number;
  byLevel: Record<string, number>;
  reconciled: Record<string, number>;
  retriedJobs: number;
  reconcileMs: Record<string, { n: number; median: number; p90: number; max: number }>;
  helmMs: Record<string, { n: number; median: number; p90: number; max: number }>;
  /** Distinct warn/error messages with counts and one example. */
  problems: Array<{ level: string; msg: string; count: number; example: string }>;
  throttleMentions: number;
}

const LEVELS: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };

export function quantiles(values: number[]): { n: number; median: number; p90: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return { n: sorted.length, median: median(sorted), p90: at(0.9), max: sorted[sorted.length - 1] ?? NaN };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Reads the controller's JSON log lines from byte `from` on. */
export async function summarizeLog(file: string, from = 0): Promise<LogSummary> {
  const text = (await readFile(file)).subarray(from).toString('utf8');
  const byLevel: Record<string, number> = {};
  const reconciled: Record<string, number> = {};
  const reconcileDurations: Record<string, number[]> = {};
  const helmDurations: Record<string, number[]> = {};
  const problems = new Map<string, { level: string; msg: string; count: number; example: string }>();
  let lines = 0;
  let retriedJobs = 0;
  let throttleMentions = 0;
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    lines++;
    if (/throttl|Too Many Requests|"(code|statusCode)":\s*429|HTTP 429/i.test(line)) throttleMentions++;
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(line) as Record<string, unknown>;
    } catch {
      const key = `raw:${line.slice(0, 80)}`;
      const p = problems.get(key) ?? { level: 'raw', msg: line.slice(0, 120), count: 0, example: line.slice(0, 400) };
      p.count++;
      problems.set(key, p);
      continue;
    }
    const level = LEVELS[entry.level as number] ?? String(entry.level);
    byLevel[level] = (byLevel[level] ?? 0) + 1;
    const msg = String(entry.msg ?? '');
    if (msg === 'reconciled') {
      const action = String(entry.action);
      reconciled[action] = (reconciled[action] ?? 0) + 1;
      (reconcileDurations[action] ??= []).push(Number(entry.durationMs));
      if (Number(entry.attempt) > 1) retriedJobs++;
    }
    if (msg === 'helm finished' || msg === 'helm failed') {
      (helmDurations[String(entry.helm)] ??= []).push(Number(entry.durationMs));
    }
    if (level === 'warn' || level === 'error' || level === 'fatal') {
      const detail = String(entry.error ?? (entry.err as { message?: string } | undefined)?.message ?? '');
      const key = `${level}:${msg}:${detail.slice(0, 60)}`;
      const p = problems.get(key) ?? { level, msg, count: 0, example: line.slice(0, 600) };
      p.count++;
      problems.set(key, p);
    }
  }
  const q = (m: Record<string, number[]>) => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, quantiles(v)]));
  return {
    lines,
    byLevel,
    reconciled,
    retriedJobs,
    reconcileMs: q(reconcileDurations),
    helmMs: q(helmDurations),
    problems: [...problems.values()],
    throttleMentions,
  };
}

// ---------------------------------------------------------------------------------------------
// Namespaces and HelmReleases

export async function createNamespace(kc: KubeConfig, prefix: string): Promise<string> {
  const name = `${prefix}-${randomSuffix()}`;
  await ensureNamespace(kc, name);
  return name;
}

/**
 * Deletes a bench namespace without the controller: strips helmcrew's finalizer from every
 * HelmRelease (the controller is stopped, nobody would uninstall), deletes the namespace and waits
 * until it is gone, so the next run does not share the machine with its garbage collection.
 */
export async function deleteNamespaceFully(kc: KubeConfig, namespace: string, timeoutMs = 120_000): Promise<number> {
  const started = Date.now();
  const { custom } = makeKubeClients(kc);
  const api = new HelmReleaseApi(makeKubeClients(kc));
  const core = kc.makeApiClient(CoreV1Api);
  await core.deleteNamespace({ name: namespace }).catch((error: unknown) => {
    if (!isNotFound(error)) throw error;
  });
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const { items } = await api.list(namespace).catch(() => ({ items: [] as HelmRelease[] }));
    await mapLimit(
      items.filter((r) => (r.metadata.finalizers ?? []).length > 0),
      10,
      async (r) => {
        await custom
          .patchNamespacedCustomObject(
            {
              group: API_GROUP,
              version: API_VERSION,
              plural: HELMRELEASE_PLURAL,
              namespace,
              name: r.metadata.name,
              body: [{ op: 'remove', path: '/metadata/finalizers' }],
            },
            jsonPatch,
          )
          .catch(() => undefined);
      },
    );
    try {
      await core.readNamespace({ name: namespace });
    } catch (error) {
      if (isNotFound(error)) return Date.now() - started;
      throw error;
    }
    await sleep(500);
  }
  throw new Error(`namespace ${namespace} still exists after ${timeoutMs / 1000}s`);
}

export async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await fn(items[index]!, index);
      }
    }),
  );
  return results;
}

export interface ReadinessCount {
  ready: number;
  failed: number;
  pending: number;
  /** Wall time (ms since `since`) at which each release was first seen done for its generation. */
  doneAtMs: number[];
}

/**
 * Polls the namespace's HelmReleases (one list call per tick) until every one in `generations`
 * is done with that generation: Ready=True (ready) or Ready=False (failed), for that generation,
 * with Reconciling not True. Returns the counts when all are done or the time is up.
 */
export async function waitAllDone(
  kc: KubeConfig,
  namespace: string,
  generations: Map<string, number>,
  since: number,
  timeoutMs: number,
  everyMs = 250,
): Promise<ReadinessCount & { timedOut: boolean }> {
  const api = new HelmReleaseApi(makeKubeClients(kc));
  const done = new Map<string, { ok: boolean; at: number }>();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { items } = await api.list(namespace);
    const now = Date.now();
    for (const r of items) {
      const name = r.metadata.name;
      const generation = generations.get(name);
      if (generation === undefined || done.has(name)) continue;
      const outcome = outcomeAtGeneration(r, generation);
      if (outcome === 'pending') continue;
      done.set(name, { ok: outcome === 'ready', at: now - since });
    }
    const finished = done.size === generations.size;
    if (finished || now > deadline) {
      const values = [...done.values()];
      return {
        ready: values.filter((v) => v.ok).length,
        failed: values.filter((v) => !v.ok).length,
        pending: generations.size - done.size,
        doneAtMs: values.map((v) => v.at).sort((a, b) => a - b),
        timedOut: !finished,
      };
    }
    await sleep(everyMs);
  }
}

export function fmtS(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

export function fmtMiB(kb: number): string {
  return `${(kb / 1024).toFixed(0)} MiB`;
}

export function fmtRatio(x: number): string {
  return Number.isFinite(x) ? `${x.toFixed(2)}×` : 'n/a';
}
