// In-sync check benchmark: what it costs to decide that an installed release needs nothing.
// K releases of unicorn 1.0.0 are installed by an in-process controller (as in the tests), which
// is then stopped. Then, one release after another, several rounds of:
//   (a) helmcrew:      reconcileRelease() — HelmRelease GET, release-Secret LIST, status PATCH, no helm
//   (a-reads)          the two reads alone (api.get + storage.history), for context
//   (b) helm-based:    `helm status <r> -o json` + `helm get values <r> -o json`, then compare
//   (b-meta)           `helm get metadata -o json` + `helm get values -o json`: helm 4's status JSON
//                      has no chart version (and lists live resources), so a complete helm-based
//                      check needs `get metadata`; this is the cheaper complete alternative
// Note: the API server (1.35) serves a LIST without resourceVersion from its watch cache only
// after the cache has caught up with etcd's current revision, so a LIST that follows any write
// waits for that; (a) writes status, so its LIST of release Secrets pays this and (a-reads)/(b),
// which write nothing, do not. On a cluster with other writers every LIST pays it.
// Reported: median wall time per release over the rounds, CPU seconds per release (this process,
// the helm child processes, the kube-apiserver), and the ratio b/a.
import { randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import { isDeepStrictEqual, promisify } from 'node:util';
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import type { HelmReleaseSpec } from '../src/api/helmrelease.js';
import { readControllerConfig } from '../src/controller/config.js';
import { RepositoryIndexCache } from '../src/controller/charts/repository-index.js';
import { startControllerWithNotify } from '../src/cli/compose/controller-with-notify.js';
import { HelmClient } from '../src/controller/helm/helm-client.js';
import { HelmRunner } from '../src/controller/helm/helm-runner.js';
import { ReleaseStorage } from '../src/core/helm-storage/release-storage.js';
import { makeKubeClients } from '../src/core/kube/client.js';
import { KubeEventRecorder } from '../src/core/kube/event-recorder.js';
import { OPEN_TENANCY } from '../src/core/release/release-target.js';
import { HelmReleaseApi } from '../src/core/kube/helmrelease-api.js';
import { buildReconcileContext } from '../src/controller/reconcile/ports/build-context.js';
import type { HelmReleasePort } from '../src/controller/reconcile/ports/context.js';
import { reconcileRelease } from '../src/controller/reconcile/reconciler.js';
import { ValuesDigester } from '../src/core/release/values-digest.js';
import { createLogger } from '../src/core/log.js';
import {
  applyHelmRelease,
  createNamespace,
  deleteNamespaceFully,
  helmReleaseObject,
  mapLimit,
  randomSuffix,
  waitAllReconciled,
} from '../src/dev/harness/index.js';
import type { Benchmark } from './lib/benchmark.js';
import { countBy, createCountingHelm } from './lib/counting-helm.js';
import { startBenchEnv } from './lib/environment.js';
import { formatFacts, loadavgString, machineFacts } from './lib/machine.js';
import { childrenCpuSeconds, cpuSeconds } from './lib/proc-sampler.js';
import { say } from './lib/say.js';
import { fmtRatio, fmtS, median } from './lib/stats.js';
import { CONTROLLER_RIGHTS_SETTINGS } from '../src/dev/dev-settings.js';

const execFileAsync = promisify(execFile);

type Method = 'a' | 'a-reads' | 'b' | 'b-meta';
const METHODS: Method[] = ['a', 'a-reads', 'b', 'b-meta'];
const LABELS: Record<Method, string> = {
  a: '(a) helmcrew reconcileRelease (GET + LIST Secrets; since issue 9 no status PATCH when nothing changed)',
  'a-reads': '(a-reads) the two reads only (GET HelmRelease + LIST release Secrets)',
  b: '(b) helm status -o json + helm get values -o json',
  'b-meta': '(b-meta) helm get metadata -o json + helm get values -o json',
};

interface RoundResult {
  method: Method;
  perReleaseMs: number[];
  /** CPU seconds for the whole round: this process, waited-for children (helm), kube-apiserver. */
  selfCpu: number;
  childCpu: number;
  apiserverCpu: number;
}

export const benchmark: Benchmark = {
  usage: '[--releases 20] [--rounds 5]',
  options: { releases: { type: 'string' }, rounds: { type: 'string' } },
  maxSeconds: 600,
  async run(args, cleanup) {
    const releases = args.int('releases', 20);
    const rounds = args.int('rounds', 5);
    const loadBefore = loadavgString();
    say(`in-sync-check: ${releases} releases, ${rounds} rounds (+1 warm-up); load average ${loadBefore}`);
    const be = await startBenchEnv(cleanup, args.optional('state-dir'));
    const { env, kubeConfig } = be;
    const facts = { ...machineFacts(env.helmBin), loadavg: loadBefore };

    // ---- set-up: K in-sync releases, installed by an in-process controller, which is then stopped
    const namespace = await createNamespace(kubeConfig, 'bench-insync');
    const forgetNamespace = cleanup.add(`delete namespace ${namespace}`, async () => {
      await deleteNamespaceFully(kubeConfig, namespace);
    });
    const ctlDir = await mkdtemp(join(be.dir, 'controller-'));
    const ctlHelm = await createCountingHelm(ctlDir, env.helmBin);
    const controller = await startControllerWithNotify(
      readControllerConfig({
        KUBECONFIG: env.kubeconfig,
        REDIS_URL: env.redisUrl,
        HELM_BIN: ctlHelm.bin,
        WATCH_NAMESPACES: namespace,
        ...CONTROLLER_RIGHTS_SETTINGS,
        HELMCREW_QUEUE_PREFIX: `bench-insync-${randomSuffix()}`,
        HELMCREW_WORK_DIR: join(ctlDir, 'work'),
        HELMCREW_CONCURRENCY: '4',
      }),
      createLogger('controller', process.env.LOG_LEVEL ?? 'warn'),
    );
    const forgetController = cleanup.add('stop in-process controller', () => controller.stop());
    const names = Array.from({ length: releases }, (_, i) => `steady-${String(i + 1).padStart(3, '0')}`);
    const spec: HelmReleaseSpec = { chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' }, values: { replicaCount: 0 } };
    const t0 = Date.now();
    const generations = new Map<string, number>();
    await mapLimit(names, 8, async (name) => generations.set(name, await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, name, spec))));
    const installed = await waitAllReconciled(kubeConfig, namespace, generations, t0, 300_000);
    if (installed.ready !== releases) throw new Error(`only ${installed.ready}/${releases} releases became Ready (${installed.failed} failed)`);
    say(
      `set-up: ${releases} releases installed in ${fmtS(Date.now() - t0)} (helm ${JSON.stringify(countBy(await ctlHelm.invocations()))}); stopping the controller`,
    );
    await controller.stop();
    forgetController();

    // ---- (a): helmcrew's own reconcile, wired as startController wires it, helm counted
    const benchDir = await mkdtemp(join(be.dir, 'measure-'));
    const countedHelm = await createCountingHelm(benchDir, env.helmBin);
    const helmEnv = {
      HELM_CACHE_HOME: join(benchDir, 'helm-home', 'cache'),
      HELM_CONFIG_HOME: join(benchDir, 'helm-home', 'config'),
      HELM_DATA_HOME: join(benchDir, 'helm-home', 'data'),
      KUBECONFIG: env.kubeconfig,
    };
    const quietLog = createLogger('bench-reconcile', 'warn');
    const kube = makeKubeClients(kubeConfig);
    // Where (a)'s time goes: the three calls it makes, timed at the ports' boundary.
    const callMs: Record<string, number[]> = { 'api.get': [], 'storage.history': [], 'api.patchStatus': [] };
    let timing = false;
    const timed =
      <A extends unknown[], R>(label: string, fn: (...args: A) => Promise<R>) =>
      async (...args: A): Promise<R> => {
        const started = performance.now();
        try {
          return await fn(...args);
        } finally {
          if (timing) callMs[label]!.push(performance.now() - started);
        }
      };
    const baseApi = new HelmReleaseApi(kube);
    const api: HelmReleasePort = {
      get: timed('api.get', baseApi.get.bind(baseApi)),
      list: baseApi.list.bind(baseApi),
      patchStatus: timed('api.patchStatus', baseApi.patchStatus.bind(baseApi)),
      addFinalizer: baseApi.addFinalizer.bind(baseApi),
      removeFinalizer: baseApi.removeFinalizer.bind(baseApi),
    };
    const storage = new ReleaseStorage(kube);
    const history = storage.history.bind(storage);
    const timedStorage = Object.assign(Object.create(storage) as ReleaseStorage, { history: timed('storage.history', history) });
    const ctx = buildReconcileContext({
      kube,
      api,
      storage: timedStorage,
      tenancy: OPEN_TENANCY,
      helm: new HelmClient(new HelmRunner(countedHelm.bin, helmEnv, quietLog), join(benchDir, 'work')),
      charts: new RepositoryIndexCache(),
      digester: new ValuesDigester(randomBytes(32)),
      events: new KubeEventRecorder(kube, quietLog),
      log: quietLog,
    });

    const checkA = async (name: string) => {
      const result = await reconcileRelease(ctx, namespace, name);
      // 'unchanged' since issue 9: in sync and the status already says so, nothing written.
      if (result.action !== 'report-ready' && result.action !== 'unchanged')
        throw new Error(`${name}: expected report-ready or unchanged, got ${result.action}`);
    };
    const checkReads = async (name: string) => {
      const release = await ctx.api.get(namespace, name);
      const history = await ctx.storage.history(namespace, release?.spec.releaseName ?? name);
      if (history.deployed?.chartVersion !== '1.0.0') throw new Error(`${name}: deployed chart is ${history.deployed?.chartVersion}`);
    };
    // ---- (b): what a controller without its own release reader would run
    const helmOpts = { env: { ...process.env, ...helmEnv }, maxBuffer: 64 * 2 ** 20 };
    let statusBytes = 0;
    const checkB = async (name: string) => {
      const status = await execFileAsync(env.helmBin, ['status', name, '--namespace', namespace, '-o', 'json'], helmOpts);
      const values = await execFileAsync(env.helmBin, ['get', 'values', name, '--namespace', namespace, '-o', 'json'], helmOpts);
      statusBytes = status.stdout.length;
      // helm 4's status JSON carries no chart metadata; only status and values can be compared.
      const parsed = JSON.parse(status.stdout) as { info?: { status?: string } };
      const inSync = parsed.info?.status === 'deployed' && isDeepStrictEqual(JSON.parse(values.stdout), spec.values);
      if (!inSync) throw new Error(`${name}: helm says not in sync: status ${parsed.info?.status}, values ${values.stdout.trim()}`);
    };
    const checkBMeta = async (name: string) => {
      const metadata = await execFileAsync(env.helmBin, ['get', 'metadata', name, '--namespace', namespace, '-o', 'json'], helmOpts);
      const values = await execFileAsync(env.helmBin, ['get', 'values', name, '--namespace', namespace, '-o', 'json'], helmOpts);
      const parsed = JSON.parse(metadata.stdout) as { status?: string; version?: string };
      const inSync = parsed.status === 'deployed' && parsed.version === '1.0.0' && isDeepStrictEqual(JSON.parse(values.stdout), spec.values);
      if (!inSync) throw new Error(`${name}: helm says not in sync: status ${parsed.status}, chart ${parsed.version}, values ${values.stdout.trim()}`);
    };
    const checks: Record<Method, (name: string) => Promise<void>> = { a: checkA, 'a-reads': checkReads, b: checkB, 'b-meta': checkBMeta };

    const runRound = async (method: Method): Promise<RoundResult> => {
      const perReleaseMs: number[] = [];
      const self0 = process.cpuUsage();
      const child0 = childrenCpuSeconds();
      const api0 = be.apiserverPid ? (cpuSeconds(be.apiserverPid) ?? NaN) : NaN;
      timing = method === 'a';
      for (const name of names) {
        const started = process.hrtime.bigint();
        await checks[method](name);
        perReleaseMs.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
      const self = process.cpuUsage(self0);
      const api1 = be.apiserverPid ? (cpuSeconds(be.apiserverPid) ?? NaN) : NaN;
      return { method, perReleaseMs, selfCpu: (self.user + self.system) / 1e6, childCpu: childrenCpuSeconds() - child0, apiserverCpu: api1 - api0 };
    };

    say('warm-up round (not counted)');
    for (const method of METHODS) await runRound(method);
    for (const list of Object.values(callMs)) list.length = 0;
    const results: RoundResult[] = [];
    for (let round = 0; round < rounds; round++) {
      // Alternate the order so that a drift in machine load does not favour one method.
      const order: Method[] = round % 2 === 0 ? METHODS : [...METHODS].reverse();
      for (const method of order) results.push(await runRound(method));
      say(`round ${round + 1}/${rounds} done; load ${loadavgString()}`);
    }
    const helmDuringA = await countedHelm.invocations();
    if (helmDuringA.length > 0) throw new Error(`helmcrew's check started helm ${helmDuringA.length} times: ${helmDuringA.join(', ')}`);

    // ---- report
    const per = (method: Method) => {
      const rs = results.filter((r) => r.method === method);
      const all = rs.flatMap((r) => r.perReleaseMs);
      return {
        medianMs: median(all),
        roundMedians: rs.map((r) => median(r.perReleaseMs)),
        p90Ms: [...all].sort((x, y) => x - y)[Math.floor(all.length * 0.9)] ?? NaN,
        selfCpuMs: median(rs.map((r) => (r.selfCpu / releases) * 1000)),
        childCpuMs: median(rs.map((r) => (r.childCpu / releases) * 1000)),
        apiserverCpuMs: median(rs.map((r) => (r.apiserverCpu / releases) * 1000)),
      };
    };
    const a = per('a');
    const reads = per('a-reads');
    const b = per('b');
    const bMeta = per('b-meta');
    const out: string[] = [];
    out.push(
      `## in-sync-check: ${releases} in-sync releases, ${rounds} rounds (+1 warm-up), sequential`,
      '',
      '```',
      formatFacts(facts),
      `load avg:    ${loadavgString()} at end`,
      `command:     npm run bench -- in-sync-check ${args.raw.join(' ')}`.trimEnd(),
      '```',
      '',
    );
    out.push('| method | median ms / release | p90 ms | round medians (ms) | CPU ms / release: bench process | helm children | kube-apiserver |');
    out.push('|---|---|---|---|---|---|---|');
    for (const [method, r] of [
      ['a', a],
      ['a-reads', reads],
      ['b', b],
      ['b-meta', bMeta],
    ] as const) {
      out.push(
        `| ${LABELS[method]} | ${r.medianMs.toFixed(1)} | ${r.p90Ms.toFixed(1)} | ${r.roundMedians.map((m) => m.toFixed(1)).join(', ')} | ${r.selfCpuMs.toFixed(1)} | ${r.childCpuMs.toFixed(1)} | ${r.apiserverCpuMs.toFixed(1)} |`,
      );
    }
    out.push('');
    out.push(`- ratio b/a (median wall time per release): ${fmtRatio(b.medianMs / a.medianMs)}`);
    out.push(
      `- inside (a), median ms per call: ${Object.entries(callMs)
        .map(([k, v]) => `${k} ${median(v).toFixed(1)} (n=${v.length})`)
        .join(', ')}`,
    );
    out.push(`- ratio b-meta/a: ${fmtRatio(bMeta.medianMs / a.medianMs)}; b/a-reads: ${fmtRatio(b.medianMs / reads.medianMs)}`);
    out.push(
      `- CPU per release, all three columns summed: a ${(a.selfCpuMs + a.childCpuMs + a.apiserverCpuMs).toFixed(1)} ms, b ${(b.selfCpuMs + b.childCpuMs + b.apiserverCpuMs).toFixed(1)} ms (ratio ${fmtRatio((b.selfCpuMs + b.childCpuMs + b.apiserverCpuMs) / (a.selfCpuMs + a.childCpuMs + a.apiserverCpuMs))}); CPU from /proc at 10 ms ticks, per-round totals ÷ ${releases}`,
    );
    out.push(
      `- helm processes started by (a): ${helmDuringA.length}; by (b) and by (b-meta): ${2 * releases * (rounds + 1)} each (2 per release per round, warm-up included); \`helm status -o json\` printed ${statusBytes} bytes per release`,
    );
    process.stdout.write(`${out.join('\n')}\n`);

    const nsMs = await deleteNamespaceFully(kubeConfig, namespace);
    forgetNamespace();
    say(`namespace deleted in ${fmtS(nsMs)}`);
  },
};
