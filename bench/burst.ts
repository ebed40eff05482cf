// Install and upgrade bursts against the floor: for each N, N releases of the unicorn chart (a
// ConfigMap, a Deployment and a Service; replicaCount 0) installed and then all upgraded (1.0.0 →
// 2.0.0) by helmcrew — a compiled controller child process at concurrency c, started as the image
// starts it — and, in the same run and environment, by the floor: `helm upgrade --install` driven
// by `xargs -P<c>`. Then, for helmcrew: the time from a single spec change (N releases present) to
// the start of its `helm upgrade`, and the steady state: R seconds at rest with every release in
// sync and a short interval, counting HelmRelease writes, helm processes, API requests and CPU per
// full resync. API requests are the API server's own counter (every client; the bench's own are reported).
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseDuration } from '../src/api/duration.js';
import { createNamespace, deleteNamespaceFully, randomSuffix } from '../src/dev/harness/index.js';
import type { Args } from './lib/args.js';
import type { Benchmark } from './lib/benchmark.js';
import type { Cleanup } from './lib/cleanup.js';
import { buildCompiled, buildRef, spawnController } from './lib/controller-child.js';
import { createCountingHelm } from './lib/counting-helm.js';
import { startBenchEnv, type BenchEnv } from './lib/environment.js';
import { applyReleases, floorBurst, helmcrewBurst, helmcrewRest, names, specChangeToHelmStartMs, type Burst, type Rest } from './lib/burst-phases.js';
import { burstTables, type SizeResult } from './lib/burst-report.js';
import { formatEnv, imageControllerEnv } from './lib/image-env.js';
import { loadavgString, machineFacts, measuredCode } from './lib/machine.js';
import { currentRssKb, peakRssOfLifetimeKb } from './lib/proc-sampler.js';
import { say } from './lib/say.js';
import { cloneReleaseRecord } from './lib/seed-records.js';
import { fmtMiB, fmtS } from './lib/stats.js';
import { prepareWorkload, releaseSpec, type Workload } from './lib/workloads.js';
import { opsRest } from './lib/ops-rest.js';
import { floorFlags, floorMode, type FloorMode } from './lib/floor-flags.js';

interface Settings {
  sizes: number[];
  concurrency: number;
  interval: string;
  restSeconds: number;
  skip: Set<string>;
  ref?: string;
  /** The image's runtime variables (Dockerfile ENV: NODE_OPTIONS, MALLOC_ARENA_MAX…), NODE_OPTIONS replaced by --node-options. */
  imageEnv: Record<string, string>;
  chart: string;
  /** Steady state only: one real install, its release record copied to the other N-1 names (lib/seed-records.ts). */
  seeded: boolean;
  /** With --seeded: the HelmReleases applied first, then a controller started beside them (else applied while it runs). */
  existing: boolean;
  /** Extra node flags for the controller that NODE_OPTIONS refuses (e.g. `--cpu-prof --cpu-prof-dir=DIR`). */
  nodeArgs: string[];
  phaseTimeoutMs: number;
  /** Which side runs first in each size; the second runs on a control plane that has done more. */
  helmcrewFirst: boolean;
  /** Variables for the floor's helm processes; none by default: the floor is helm as a person runs it. */
  floorEnv: Record<string, string>;
  /** The floor's extra helm flags (floor-flags.ts): person (none, the default), strict, defaults. */
  floorMode: FloorMode;
  /** Variables for the controller child, e.g. `HELMCREW_HELM_GOGC=default`. */
  controllerEnv: Record<string, string>;
  /** After the steady state, the same again with /metrics scraped and the leader Lease held (lib/ops-rest.ts). */
  ops: boolean;
}

function settingsFrom(args: Args): Settings {
  const nodeOptions = args.optional('node-options');
  const interval = args.string('interval', '1m');
  parseDuration(interval);
  return {
    sizes: args.intList('releases', [100]),
    concurrency: args.int('concurrency', 4),
    interval,
    restSeconds: args.int('rest-seconds', 150),
    skip: new Set(args.list('skip')),
    ref: args.optional('ref'),
    imageEnv: { ...imageControllerEnv(), ...(nodeOptions !== undefined ? { NODE_OPTIONS: nodeOptions } : {}) },
    chart: args.string('chart', 'unicorn'),
    seeded: args.flag('seeded'),
    existing: args.flag('existing'),
    nodeArgs: args.string('node-args', '').split(' ').filter(Boolean),
    phaseTimeoutMs: args.int('phase-timeout', 1200) * 1000,
    helmcrewFirst: args.flag('helmcrew-first'),
    floorEnv: args.env('floor-env'),
    floorMode: floorMode(args.string('floor-flags', 'person')),
    controllerEnv: args.env('controller-env'),
    ops: args.flag('ops'),
  };
}

async function runHelmcrew(be: BenchEnv, s: Settings, w: Workload, entry: string[], n: number, cleanup: Cleanup): Promise<SizeResult['helmcrew']> {
  const dir = await mkdtemp(join(be.dir, `helmcrew-n${n}-`));
  const helm = await createCountingHelm(dir, be.env.helmBin);
  const namespace = await createNamespace(be.kubeConfig, `bench-burst-n${n}`);
  const forgetNs = cleanup.add(`delete namespace ${namespace}`, async () => void (await deleteNamespaceFully(be.kubeConfig, namespace, 600_000)));
  const prefix = `bench-burst-${randomSuffix()}`;
  const extraEnv = { ...s.imageEnv, HELMCREW_NAMESPACE: 'default', ...s.controllerEnv };
  const spawnOptions = {
    env: be.env,
    entry: [...s.nodeArgs, ...entry],
    helmBin: helm.bin,
    namespace,
    prefix,
    concurrency: s.concurrency,
    workDir: join(dir, 'work'),
    logFile: join(dir, 'controller.log'),
    extraEnv,
  };
  let ctl = await spawnController(spawnOptions);
  let forgetCtl = cleanup.add(`stop controller ${ctl.pid}`, () => ctl.stop());
  say(`helmcrew N=${n}: controller pid ${ctl.pid} up in ${fmtS(ctl.startupMs)}; namespace ${namespace}; log ${ctl.logFile}`);
  await sleep(2000);
  const idleRssKb = currentRssKb(ctl.pid) ?? NaN;
  let c = { namespace, pid: ctl.pid, helm, logFile: ctl.logFile, concurrency: s.concurrency };
  const all = names(n);
  const bursts: Burst[] = [];
  const installSpec = () => releaseSpec(w, w.install, s.interval);
  if (s.seeded) {
    await helmcrewBurst(be, c, 'install', all.slice(0, 1), installSpec, s.phaseTimeoutMs);
    await cloneReleaseRecord(be.kubeConfig, namespace, all[0]!, all.slice(1));
    say(`  seeded: ${all[0]} installed by helmcrew, its record copied to ${n - 1} more names`);
  }
  if (s.seeded && s.existing) {
    // The issue's scenario: a controller started beside N HelmReleases that are there already.
    await ctl.stop();
    forgetCtl();
    const generations = await applyReleases(be, namespace, all, installSpec);
    say(`  ${n} HelmReleases applied with no controller running; starting one beside them`);
    const start = async () => {
      ctl = await spawnController({ ...spawnOptions, logFile: join(dir, 'controller-adopting.log') });
      forgetCtl = cleanup.add(`stop controller ${ctl.pid}`, () => ctl.stop());
      c = { ...c, pid: ctl.pid, logFile: ctl.logFile };
      return c;
    };
    bursts.push(await helmcrewBurst(be, c, 'adopt', all, installSpec, s.phaseTimeoutMs, { generations, start }));
  } else bursts.push(await helmcrewBurst(be, c, s.seeded ? 'adopt' : 'install', all, installSpec, s.phaseTimeoutMs));
  say(
    `  ${bursts[0]!.what}: ${bursts[0]!.done}/${n} in ${fmtS(bursts[0]!.wallMs)}; helm ${JSON.stringify(bursts[0]!.helm)}; ctl peak ${fmtMiB(bursts[0]!.sampled.peakRssKb)}`,
  );
  if (!s.skip.has('upgrade') && !s.seeded) {
    bursts.push(await helmcrewBurst(be, c, 'upgrade', all, () => releaseSpec(w, w.upgrade, s.interval), s.phaseTimeoutMs));
    say(
      `  upgrade: ${bursts[1]!.done}/${n} in ${fmtS(bursts[1]!.wallMs)}; helm ${JSON.stringify(bursts[1]!.helm)}; ctl peak ${fmtMiB(bursts[1]!.sampled.peakRssKb)}`,
    );
  }
  const step = s.skip.has('upgrade') || s.seeded ? w.install : w.upgrade;
  const latencies: number[] = [];
  if (!s.skip.has('latency')) {
    for (const [i, name] of [all[0]!, all[Math.floor(n / 2)]!, all[n - 1]!].entries()) {
      await sleep(3000);
      latencies.push(
        await specChangeToHelmStartMs(be, { namespace, helmLog: join(dir, 'helm-invocations.log') }, name, () =>
          releaseSpec(w, step, s.interval, { note: `change-${i}` }),
        ),
      );
    }
    say(`  single change → helm upgrade start: ${latencies.map((ms) => `${ms.toFixed(0)} ms`).join(', ')}`);
  }
  let rest: Rest | undefined;
  if (!s.skip.has('rest')) {
    await sleep(5000);
    rest = await helmcrewRest(be, c, s.restSeconds);
    say(
      `  rest ${s.restSeconds}s: HelmRelease writes ${rest.requests.helmReleaseWrites}; helm ${JSON.stringify(rest.helm)}; reconciled ${JSON.stringify(rest.reconciled)}; ctl CPU ${rest.ctlCpuS.toFixed(2)} s`,
    );
  }
  const hwmKb = peakRssOfLifetimeKb(ctl.pid);
  await ctl.stop();
  forgetCtl();
  let ops: Rest | undefined;
  if (s.ops && rest) {
    const o = { n, namespace, prefix, concurrency: s.concurrency, dir, entry: [...s.nodeArgs, ...entry], helm, extraEnv, restSeconds: s.restSeconds };
    ops = await opsRest(be, { ...o, startTimeoutMs: s.phaseTimeoutMs }, cleanup);
    say(
      `  rest with --ops: reconciled ${JSON.stringify(ops.reconciled)}; ctl CPU ${ops.ctlCpuS.toFixed(2)} s; API ${ops.requests.reads} / ${ops.requests.writes}`,
    );
  }
  const deleteMs = await deleteNamespaceFully(be.kubeConfig, namespace, 600_000);
  forgetNs();
  say(`  namespace deleted in ${fmtS(deleteMs)}`);
  return { bursts, latencies, rest, ops, idleRssKb, hwmKb, startupMs: ctl.startupMs };
}

async function runFloor(be: BenchEnv, s: Settings, w: Workload, n: number, cleanup: Cleanup): Promise<Burst[]> {
  const dir = await mkdtemp(join(be.dir, `floor-n${n}-`));
  const helm = await createCountingHelm(dir, be.env.helmBin);
  const namespace = await createNamespace(be.kubeConfig, `bench-burst-floor-n${n}`);
  const forgetNs = cleanup.add(`delete namespace ${namespace}`, async () => void (await deleteNamespaceFully(be.kubeConfig, namespace, 600_000)));
  const bursts: Burst[] = [];
  const opts = { namespace, helm, dir, concurrency: s.concurrency, env: s.floorEnv, flags: floorFlags(s.floorMode) };
  bursts.push(await floorBurst(be, { ...opts, chartArgs: w.install.floorChartArgs ?? [w.install.tgz], set: w.install.floorSet }, 'install', names(n)));
  say(`floor N=${n} install: ${fmtS(bursts[0]!.wallMs)}; helm ${JSON.stringify(bursts[0]!.helm)}; tree peak ${fmtMiB(bursts[0]!.sampled.peakTreeRssKb)}`);
  if (!s.skip.has('upgrade')) {
    bursts.push(await floorBurst(be, { ...opts, chartArgs: w.upgrade.floorChartArgs ?? [w.upgrade.tgz], set: w.upgrade.floorSet }, 'upgrade', names(n)));
    say(`floor N=${n} upgrade: ${fmtS(bursts[1]!.wallMs)}; helm ${JSON.stringify(bursts[1]!.helm)}`);
  }
  await deleteNamespaceFully(be.kubeConfig, namespace, 600_000);
  forgetNs();
  return bursts;
}

export const benchmark: Benchmark = {
  usage:
    '[--releases 100[,500,1000]] [--concurrency 4] [--interval 1m] [--rest-seconds 150] [--skip floor,upgrade,latency,rest] ' +
    "[--ref <git ref> (compile that commit's src/ instead of the checkout)] [--chart unicorn|podinfo|podinfo-oci] [--seeded [--existing]] " +
    '[--node-options "..." (instead of the Dockerfile\'s NODE_OPTIONS)] [--node-args=--trace-gc] [--phase-timeout 1200] ' +
    '[--helmcrew-first] [--floor-flags person|strict|defaults (strict: helm with --disable-openapi-validation as helmcrew runs it; defaults: helmcrew\'s default action flags too)] [--floor-env "GOGC=200"] [--controller-env "HELMCREW_HELM_GOGC=default"] ' +
    '[--ops (the steady state again with /metrics scraped every 15 s and the leader Lease held)]',
  options: {
    releases: { type: 'string' },
    concurrency: { type: 'string' },
    interval: { type: 'string' },
    'rest-seconds': { type: 'string' },
    skip: { type: 'string' },
    ref: { type: 'string' },
    chart: { type: 'string' },
    seeded: { type: 'boolean' },
    existing: { type: 'boolean' },
    'node-options': { type: 'string' },
    'node-args': { type: 'string' },
    'phase-timeout': { type: 'string' },
    'helmcrew-first': { type: 'boolean' },
    'floor-env': { type: 'string' },
    'floor-flags': { type: 'string' },
    'controller-env': { type: 'string' },
    ops: { type: 'boolean' },
  },
  maxSeconds: 1500,
  async run(args, cleanup) {
    const s = settingsFrom(args);
    const loadBefore = loadavgString();
    say(
      `burst: chart ${s.chart}, N=${s.sizes.join(',')}, concurrency ${s.concurrency}, interval ${s.interval}, rest ${s.restSeconds}s, skip [${[...s.skip].join(',')}], ref ${s.ref ?? 'checkout'}, floor flags ${s.floorMode} ${JSON.stringify(floorFlags(s.floorMode))}, floor env ${JSON.stringify(s.floorEnv)}, controller env ${JSON.stringify(s.controllerEnv)}; load ${loadBefore}`,
    );
    const be = await startBenchEnv(cleanup, args.optional('state-dir'));
    const entry = s.ref ? await buildRef(join(be.dir, 'build-ref'), s.ref) : await buildCompiled(join(be.dir, 'build'));
    const code = measuredCode(s.ref);
    const workload = await prepareWorkload(s.chart, be, cleanup);
    const facts = { ...machineFacts(be.env.helmBin), loadavg: loadBefore };
    const results: SizeResult[] = [];
    for (const n of s.sizes) {
      // Each side deletes its namespace fully before the other starts, so neither overlaps the
      // other's clean-up; the order is kept in the output (`order` below).
      const withFloor = !s.skip.has('floor') && !s.seeded;
      const helmcrewBefore = s.helmcrewFirst ? await runHelmcrew(be, s, workload, entry, n, cleanup) : undefined;
      const floor = withFloor ? await runFloor(be, s, workload, n, cleanup) : undefined;
      const helmcrew = helmcrewBefore ?? (await runHelmcrew(be, s, workload, entry, n, cleanup));
      results.push({ n, floor, helmcrew });
    }
    say(`load avg ${loadavgString()} at end`);
    const meta = {
      chart: s.chart,
      code,
      concurrency: s.concurrency,
      interval: s.interval,
      runtimeEnv: formatEnv(s.imageEnv),
      restSeconds: s.restSeconds,
      order: s.helmcrewFirst ? 'helmcrew first, then the floor' : 'the floor first, then helmcrew',
      floorEnv: Object.keys(s.floorEnv).length ? formatEnv(s.floorEnv) : 'none',
      floorFlags: s.floorMode === 'person' ? 'none (helm as a person runs it)' : `${s.floorMode}: ${floorFlags(s.floorMode).join(' ')}`,
      controllerEnv: Object.keys(s.controllerEnv).length ? formatEnv(s.controllerEnv) : undefined,
    };
    return { tables: burstTables(meta, results), data: { meta, helmVersion: facts.helm, results } };
  },
};
