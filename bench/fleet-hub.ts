// Hub mode (issue 32, way A): one controller whose HelmReleases act on T other clusters through
// `spec.kubeConfig.secretRef` (control planes of their own on loopback, lib/fleet-clusters.ts),
// against the same controller build with the same number of local releases. For each side, in
// this order (local, then remote), a fresh controller child process and namespace: I real installs
// (`helm install` against the target's API server for the remote side), then N seeded releases (the
// first install's record copied to N names, spread over the targets: what helm would have written)
// adopted, then R seconds at rest. Reported per release: install and adopt wall time, controller
// CPU per check at rest, controller memory; and the ratios remote / local of the same run.
import { mkdtemp, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CoreV1Api } from '@kubernetes/client-node';
import type { HelmReleaseSpec } from '../src/api/helmrelease.js';
import { parseDuration } from '../src/api/duration.js';
import { createNamespace, ensureNamespace, randomSuffix } from '../src/dev/harness/index.js';
import { diffCounts, readApiRequests, summarizeRequests } from './lib/api-metrics.js';
import type { Benchmark } from './lib/benchmark.js';
import { helmcrewBurst, helmcrewRest, type Burst, type Rest } from './lib/burst-phases.js';
import { buildCompiled, spawnController } from './lib/controller-child.js';
import { createCountingHelm } from './lib/counting-helm.js';
import { startBenchEnv, type BenchEnv } from './lib/environment.js';
import { copyReleaseRecord, startFleetClusters, type BenchCluster } from './lib/fleet-clusters.js';
import { formatEnv, imageControllerEnv } from './lib/image-env.js';
import { loadavgString } from './lib/machine.js';
import { currentRssKb, peakRssOfLifetimeKb } from './lib/proc-sampler.js';
import type { Table } from './lib/result.js';
import { say } from './lib/say.js';
import { fmtMiB, fmtRatio, fmtS } from './lib/stats.js';
import { prepareWorkload, releaseSpec, type Workload } from './lib/workloads.js';

type Kind = 'local' | 'remote';

interface Side {
  kind: Kind;
  install: Burst;
  adopt: Burst;
  rest: Rest;
  /** The targets' API servers over the rest (the remote side's reads of records happen there). */
  targetRequests: { reads: number; writes: number; helmReleaseWrites: number };
  idleRssKb: number;
  hwmKb: number;
  startupMs: number;
}

interface Settings {
  targets: number;
  releases: number;
  installs: number;
  restSeconds: number;
  interval: string;
  concurrency: number;
}

const seq = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${String(i + 1).padStart(4, '0')}`);
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

async function runSide(
  kind: Kind,
  be: BenchEnv,
  targets: BenchCluster[],
  s: Settings,
  w: Workload,
  entry: string[],
  cleanup: import('./lib/cleanup.js').Cleanup,
): Promise<Side> {
  const dir = await mkdtemp(join(be.dir, `hub-${kind}-`));
  const namespace = await createNamespace(be.kubeConfig, `bench-hub-${kind}`);
  const core = be.kubeConfig.makeApiClient(CoreV1Api);
  const target = (i: number) => targets[i % targets.length]!;
  if (kind === 'remote') {
    for (const t of targets) {
      await ensureNamespace(t.kubeConfig, namespace);
      const body = { metadata: { name: `${t.name}-kubeconfig`, namespace }, stringData: { value: await readFile(t.kubeconfig, 'utf8') } };
      await core.createNamespacedSecret({ namespace, body });
    }
  }
  const installs = seq('i', s.installs);
  const seeded = seq('r', s.releases);
  const index = new Map([...installs.map((n, i) => [n, i] as const), ...seeded.map((n, i) => [n, i] as const)]);
  const spec = (name: string): HelmReleaseSpec => ({
    ...releaseSpec(w, w.install, s.interval),
    // The targets run no kwok: nothing waits for Pods, on either side, so both do the same helm work.
    install: { disableWait: true },
    upgrade: { disableWait: true },
    ...(kind === 'remote' ? { kubeConfig: { secretRef: { name: `${target(index.get(name)!).name}-kubeconfig` } } } : {}),
  });
  const helm = await createCountingHelm(dir, be.env.helmBin);
  const ctl = await spawnController({
    env: be.env,
    entry,
    helmBin: helm.bin,
    namespace,
    prefix: `bench-hub-${kind}-${randomSuffix()}`,
    concurrency: s.concurrency,
    workDir: join(dir, 'work'),
    logFile: join(dir, 'controller.log'),
    extraEnv: { ...imageControllerEnv(), HELMCREW_NAMESPACE: 'default' },
  });
  const forget = cleanup.add(`stop controller ${ctl.pid}`, () => ctl.stop());
  await sleep(2000);
  const idleRssKb = currentRssKb(ctl.pid) ?? NaN;
  const ctx = { namespace, pid: ctl.pid, helm, logFile: ctl.logFile };
  const install = await helmcrewBurst(be, ctx, 'install', installs, spec, 1_200_000);
  if (install.timedOut) throw new Error(`${kind}: only ${install.done}/${installs.length} installs became Ready; see ${ctl.logFile}`);
  say(`  ${kind}: ${installs.length} installs in ${fmtS(install.wallMs)}; helm ${JSON.stringify(install.helm)}`);
  // The first install's record, copied to the seeded names in the cluster each one targets.
  const source = { kc: kind === 'remote' ? target(0).kubeConfig : be.kubeConfig, namespace, name: installs[0]! };
  const clustersOf = kind === 'remote' ? targets : [{ name: 'home', kubeconfig: be.env.kubeconfig, kubeConfig: be.kubeConfig }];
  for (const [t, cluster] of clustersOf.entries()) {
    await copyReleaseRecord(source, { kc: cluster.kubeConfig, namespace }, kind === 'remote' ? seeded.filter((_, i) => i % targets.length === t) : seeded);
  }
  const adopt = await helmcrewBurst(be, ctx, 'adopt', seeded, spec, 1_200_000);
  if (adopt.timedOut) throw new Error(`${kind}: only ${adopt.done}/${seeded.length} seeded releases became Ready; see ${ctl.logFile}`);
  say(`  ${kind}: ${seeded.length} seeded releases in sync after ${fmtS(adopt.wallMs)}`);
  await sleep(5000);
  const targetsBefore = kind === 'remote' ? targets.map((t) => readApiRequests(be.env.kubectlBin, t.kubeconfig)) : [];
  const rest = await helmcrewRest(be, ctx, s.restSeconds);
  const targetSummaries = targets.map((t, i) =>
    kind === 'remote' ? summarizeRequests(diffCounts(targetsBefore[i]!, readApiRequests(be.env.kubectlBin, t.kubeconfig))) : undefined,
  );
  const targetRequests = {
    reads: sum(targetSummaries.map((x) => x?.reads ?? 0)),
    writes: sum(targetSummaries.map((x) => x?.writes ?? 0)),
    helmReleaseWrites: sum(targetSummaries.map((x) => x?.helmReleaseWrites ?? 0)),
  };
  say(
    `  ${kind}: rest ${s.restSeconds}s: helm ${JSON.stringify(rest.helm)}; HelmRelease writes ${rest.requests.helmReleaseWrites}; ctl CPU ${rest.ctlCpuS.toFixed(2)} s; peak ${fmtMiB(rest.sampled.peakRssKb)}`,
  );
  const hwmKb = peakRssOfLifetimeKb(ctl.pid) ?? NaN;
  await ctl.stop();
  forget();
  return { kind, install, adopt, rest, targetRequests, idleRssKb, hwmKb, startupMs: ctl.startupMs };
}

export const benchmark: Benchmark = {
  usage: '[--targets 5] [--releases 500 (seeded, per side)] [--installs 50 (real, per side)] [--rest-seconds 90] [--interval 1m] [--concurrency 4]',
  options: {
    targets: { type: 'string' },
    releases: { type: 'string' },
    installs: { type: 'string' },
    'rest-seconds': { type: 'string' },
    interval: { type: 'string' },
    concurrency: { type: 'string' },
  },
  maxSeconds: 3000,
  async run(args, cleanup) {
    const s: Settings = {
      targets: args.int('targets', 5),
      releases: args.int('releases', 500),
      installs: args.int('installs', 50),
      restSeconds: args.int('rest-seconds', 90),
      interval: args.string('interval', '1m'),
      concurrency: args.int('concurrency', 4),
    };
    parseDuration(s.interval);
    if (s.targets < 1 || s.installs < 1 || s.releases < 1) throw new Error('--targets, --installs and --releases must be at least 1');
    say(`fleet-hub: ${s.releases} seeded + ${s.installs} installed releases per side, ${s.targets} targets, rest ${s.restSeconds}s; load ${loadavgString()}`);
    const be = await startBenchEnv(cleanup, args.optional('state-dir'));
    const entry = await buildCompiled(join(be.dir, 'build'));
    const workload = await prepareWorkload('unicorn', be, cleanup);
    const targets = (await startFleetClusters(be, s.targets + 1, cleanup, ['home', ...Array.from({ length: s.targets }, (_, i) => `t${i + 1}`)])).slice(1);
    const sides: Side[] = [];
    for (const kind of ['local', 'remote'] as const) sides.push(await runSide(kind, be, targets, s, workload, entry, cleanup));
    const [local, remote] = sides as [Side, Side];
    const n = s.releases + s.installs;
    const checks = (r: Rest) => sum(Object.values(r.reconciled));
    const perRelease = (side: Side) => ({
      install: side.install.wallMs / s.installs,
      adopt: side.adopt.wallMs / s.releases,
      cpuPerCheckMs: (side.rest.ctlCpuS * 1000) / Math.max(1, checks(side.rest)),
      kibPerRelease: (side.rest.sampled.peakRssKb - side.idleRssKb) / n,
    });
    const l = perRelease(local);
    const r = perRelease(remote);
    const row = (side: Side, p: ReturnType<typeof perRelease>) => [
      side.kind === 'local' ? 'local (this cluster)' : `remote (spec.kubeConfig, ${s.targets} targets)`,
      `${fmtS(side.install.wallMs)} (${p.install.toFixed(0)} ms)`,
      JSON.stringify(side.install.helm),
      `${fmtS(side.adopt.wallMs)} (${p.adopt.toFixed(1)} ms)`,
      `${sum(Object.values(side.rest.helm))} / ${side.rest.requests.helmReleaseWrites}`,
      `${checks(side.rest)}`,
      `${side.rest.ctlCpuS.toFixed(2)} (${p.cpuPerCheckMs.toFixed(2)} ms)`,
      `${side.rest.requests.reads} / ${side.rest.requests.writes}${side.kind === 'remote' ? `; targets ${side.targetRequests.reads} / ${side.targetRequests.writes}` : ''}`,
      `${fmtMiB(side.idleRssKb)} / ${fmtMiB(side.rest.sampled.peakRssKb)} / ${fmtMiB(side.hwmKb)}`,
      p.kibPerRelease.toFixed(1),
    ];
    const table: Table = {
      title: `Hub mode: one controller, ${s.installs} installed + ${s.releases} seeded releases, local against remote (spread over ${s.targets} target clusters)`,
      columns: [
        'side',
        `${s.installs} installs wall (per release)`,
        'helm',
        `${s.releases} seeded adopted wall (per release)`,
        `at rest ${s.restSeconds} s: helm / HelmRelease writes`,
        'checks done',
        'ctl CPU s (per check)',
        'API reads / writes at home (all clients)',
        'ctl RSS idle / at rest peak / lifetime peak',
        'KiB per release (at rest − idle) / releases',
      ],
      rows: [
        row(local, l),
        row(remote, r),
        [
          'ratio remote / local',
          fmtRatio(r.install / l.install),
          '',
          fmtRatio(r.adopt / l.adopt),
          '',
          '',
          fmtRatio(r.cpuPerCheckMs / l.cpuPerCheckMs),
          '',
          fmtRatio(remote.rest.sampled.peakRssKb / local.rest.sampled.peakRssKb),
          fmtRatio(r.kibPerRelease / l.kibPerRelease),
        ],
      ],
      notes: [
        `Controller compiled by tsc, ${formatEnv(imageControllerEnv())}, concurrency ${s.concurrency}, interval ${s.interval}; a fresh controller process and namespace per side, local first. Charts: unicorn 1.0.0, replicaCount 0, install.disableWait on both sides (the targets run no kwok).`,
        `Targets: ${targets.map((t) => t.name).join(', ')}, control planes of their own on loopback (etcd, API server, controller-manager, scheduler), one kubeconfig Secret (key \`value\`) each; releases assigned round-robin. Seeded: the first install's record copied to the other names in the cluster each targets (bench/lib/fleet-clusters.ts).`,
      ],
    };
    return { tables: [table], data: { settings: s, sides } };
  },
};
