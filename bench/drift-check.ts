// Drift check benchmark (issue 19): what looking for drift costs per release, and at rest.
// Per size N: one unicorn release (ConfigMap, Deployment, Service; replicaCount 0) is installed by a
// controller child process, N-1 more are seeded (record copied, objects server-side applied as
// helm's field manager: bench/lib/drift-seed.ts) and adopted. Then:
//   (1) per check, in this process: DriftDetector.check over every release as the controller makes
//       it, counting each API request it sends, this process's CPU and the kube-apiserver's. "cold":
//       a fresh detector (every object: GET + server-side dry-run apply); "warm": the same detector
//       again (objects unchanged since found clean: GET only).
//   (2) at rest, the controller child: R seconds with drift detection off, then the same with every
//       HelmRelease at driftDetection.mode=enabled (after one interval for the first, cold checks):
//       helm processes, HelmRelease writes, API requests by verb, controller CPU per full resync.
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { HelmReleaseSpec } from '../src/api/helmrelease.js';
import { parseDuration } from '../src/api/duration.js';
import { DriftDetector, type DriftTarget } from '../src/controller/drift/drift-detector.js';
import { ReleaseStorage } from '../src/core/helm-storage/release-storage.js';
import { ClusterObjects } from '../src/core/kube/cluster-objects.js';
import { connectKube, slimKubeClients } from '../src/core/kube/slim-clients.js';
import { createNamespace, deleteNamespaceFully, randomSuffix } from '../src/dev/harness/index.js';
import type { Benchmark } from './lib/benchmark.js';
import { helmcrewBurst, helmcrewRest, names, type Rest } from './lib/burst-phases.js';
import type { Cleanup } from './lib/cleanup.js';
import { buildCompiled, spawnController } from './lib/controller-child.js';
import { createCountingHelm } from './lib/counting-helm.js';
import { applyReleaseObjects } from './lib/drift-seed.js';
import { startBenchEnv, type BenchEnv } from './lib/environment.js';
import { formatEnv, imageControllerEnv } from './lib/image-env.js';
import { formatFacts, loadavgString, machineFacts } from './lib/machine.js';
import { cpuSeconds } from './lib/proc-sampler.js';
import { cloneReleaseRecord } from './lib/seed-records.js';
import { say } from './lib/say.js';
import { fmtMiB, fmtS, median } from './lib/stats.js';

interface CheckRound {
  kind: 'cold' | 'warm';
  requestsPerCheck: Record<string, number>;
  cpuMsPerCheck: number;
  apiserverCpuMsPerCheck: number;
  medianMs: number;
  drifted: number;
}

interface SizeResult {
  n: number;
  seedMs: number;
  rounds: CheckRound[];
  off: Rest;
  on: Rest;
  switchOnWrites: number;
}

const spec = (repo: string, interval: string, mode?: 'enabled'): HelmReleaseSpec => ({
  chart: { repository: repo, name: 'unicorn', version: '1.0.0' },
  interval,
  values: { replicaCount: 0 },
  ...(mode ? { driftDetection: { mode } } : {}),
});

/** (1): every release checked once by `detector`, each request it sends counted by verb. */
async function checkRound(
  be: BenchEnv,
  namespace: string,
  all: string[],
  kind: CheckRound['kind'],
  detector: DriftDetector,
  counts: Map<string, number>,
  targets: DriftTarget[],
): Promise<CheckRound> {
  counts.clear();
  const self0 = process.cpuUsage();
  const api0 = be.apiserverPid ? (cpuSeconds(be.apiserverPid) ?? NaN) : NaN;
  const perCheckMs: number[] = [];
  let drifted = 0;
  for (const target of targets) {
    const started = performance.now();
    drifted += (await detector.check(target)).drifted.length;
    perCheckMs.push(performance.now() - started);
  }
  const self = process.cpuUsage(self0);
  const api1 = be.apiserverPid ? (cpuSeconds(be.apiserverPid) ?? NaN) : NaN;
  const n = all.length;
  say(`  ${kind} checks of ${n} releases in ${namespace}: ${JSON.stringify(Object.fromEntries(counts))}`);
  return {
    kind,
    requestsPerCheck: Object.fromEntries([...counts].map(([k, v]) => [k, v / n])),
    cpuMsPerCheck: (self.user + self.system) / 1000 / n,
    apiserverCpuMsPerCheck: ((api1 - api0) * 1000) / n,
    medianMs: median(perCheckMs),
    drifted,
  };
}

async function runSize(be: BenchEnv, n: number, s: { interval: string; restSeconds: number; entry?: string[] }, cleanup: Cleanup): Promise<SizeResult> {
  const dir = await mkdtemp(join(be.dir, `drift-n${n}-`));
  const helm = await createCountingHelm(dir, be.env.helmBin);
  const namespace = await createNamespace(be.kubeConfig, `bench-drift-n${n}`);
  const forgetNs = cleanup.add(`delete namespace ${namespace}`, async () => void (await deleteNamespaceFully(be.kubeConfig, namespace, 600_000)));
  const ctl = await spawnController({
    env: be.env,
    entry: s.entry,
    helmBin: helm.bin,
    namespace,
    prefix: `bench-drift-${randomSuffix()}`,
    concurrency: 4,
    workDir: join(dir, 'work'),
    logFile: join(dir, 'controller.log'),
    extraEnv: { ...imageControllerEnv(), HELMCREW_NAMESPACE: 'default' },
  });
  const forgetCtl = cleanup.add(`stop controller ${ctl.pid}`, () => ctl.stop());
  const c = { namespace, pid: ctl.pid, helm, logFile: ctl.logFile };
  const all = names(n);
  const repo = be.env.chartRepoUrl;
  const t0 = Date.now();
  await helmcrewBurst(be, c, 'install', all.slice(0, 1), () => spec(repo, s.interval), 300_000);
  await cloneReleaseRecord(be.kubeConfig, namespace, all[0]!, all.slice(1));
  const rest = connectKube(be.env.kubeconfig);
  const objects = await applyReleaseObjects(rest, namespace, all.slice(1));
  const adopt = await helmcrewBurst(be, c, 'adopt', all, () => spec(repo, s.interval), 1_800_000);
  if (adopt.timedOut) throw new Error(`only ${adopt.done}/${n} releases adopted`);
  const seedMs = Date.now() - t0;
  say(`N=${n}: seeded in ${fmtS(seedMs)} (${objects} objects applied as helm, ${adopt.done} adopted)`);

  // (1) the check alone, as the controller makes it, requests counted at the client.
  const counts = new Map<string, number>();
  const counted = Object.create(rest) as typeof rest;
  counted.request = (req) => {
    const key = `${req.method}${req.query?.dryRun ? ' (dry run)' : ''}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    return rest.request(req);
  };
  const storage = new ReleaseStorage(slimKubeClients(rest));
  const targets: DriftTarget[] = [];
  for (const name of all) {
    const deployed = (await storage.history(namespace, name)).deployed!;
    targets.push({ key: `${namespace}/${name}`, releaseName: name, namespace, revision: deployed.revision, manifest: deployed.manifest ?? '' });
  }
  const detector = new DriftDetector(new ClusterObjects(counted), 'helm');
  const rounds = [
    await checkRound(be, namespace, all, 'cold', detector, counts, targets),
    await checkRound(be, namespace, all, 'warm', detector, counts, targets),
  ];
  if (rounds.some((r) => r.drifted > 0)) throw new Error(`drift found in seeded releases: ${rounds.map((r) => r.drifted).join(', ')}`);

  // (2) the controller at rest: off, then on.
  await sleep(5000);
  const off = await helmcrewRest(be, c, s.restSeconds);
  say(`  rest, drift off: ${JSON.stringify(off.reconciled)}; writes ${off.requests.helmReleaseWrites}; ctl ${off.ctlCpuS.toFixed(2)} CPU-s`);
  const switchOn = await helmcrewBurst(be, c, 'upgrade', all, () => spec(repo, s.interval, 'enabled'), 1_800_000);
  // One interval for the first (cold) check of every release, then the measured rest.
  await sleep(parseDuration(s.interval) + 5000);
  const on = await helmcrewRest(be, c, s.restSeconds);
  say(`  rest, drift on: ${JSON.stringify(on.reconciled)}; writes ${on.requests.helmReleaseWrites}; ctl ${on.ctlCpuS.toFixed(2)} CPU-s`);
  await ctl.stop();
  forgetCtl();
  await deleteNamespaceFully(be.kubeConfig, namespace, 600_000);
  forgetNs();
  return { n, seedMs, rounds, off, on, switchOnWrites: switchOn.requests.helmReleaseWrites };
}

function report(results: SizeResult[], header: string[], intervalMs: number): string {
  const out = [
    ...header,
    '',
    '| N | check | requests per release check | controller CPU ms / check | kube-apiserver CPU ms / check | median ms / check |',
    '|---|---|---|---|---|---|',
  ];
  for (const r of results) {
    for (const round of r.rounds) {
      const requests = Object.entries(round.requestsPerCheck)
        .map(([k, v]) => `${k} ${v.toFixed(2)}`)
        .join(', ');
      out.push(
        `| ${r.n} | ${round.kind} | ${requests} | ${round.cpuMsPerCheck.toFixed(2)} | ${round.apiserverCpuMsPerCheck.toFixed(2)} | ${round.medianMs.toFixed(1)} |`,
      );
    }
  }
  out.push(
    '',
    `| N | at rest, interval ${intervalMs / 1000}s | window | checks (reconciled) | helm processes | HelmRelease writes | API reads / writes | controller CPU-s per full resync (N checks) | kube-apiserver CPU-s per full resync | controller peak RSS |`,
    '|---|---|---|---|---|---|---|---|---|---|',
  );
  for (const r of results) {
    for (const [label, rest] of [
      ['drift off', r.off],
      ['drift on (enabled)', r.on],
    ] as const) {
      const checks = Object.values(rest.reconciled).reduce((a, b) => a + b, 0);
      // A full resync is one check of every release: CPU per check × N.
      const perResync = (cpu: number) => (checks > 0 ? ((cpu * r.n) / checks).toFixed(2) : 'n/a');
      out.push(
        `| ${r.n} | ${label} | ${rest.seconds}s | ${checks} ${JSON.stringify(rest.reconciled)} | ${Object.values(rest.helm).reduce((a, b) => a + b, 0)} | ${rest.requests.helmReleaseWrites} | ${rest.requests.reads} / ${rest.requests.writes} | ${perResync(rest.ctlCpuS)} | ${perResync(rest.apiserverCpuS)} | ${fmtMiB(rest.sampled.peakRssKb)} |`,
      );
    }
    out.push(`| ${r.n} | top requests with drift on | | ${r.on.requests.top.slice(0, 6).join(', ')} | | | | | | |`);
  }
  out.push(
    '',
    ...results.map(
      (r) =>
        `- N=${r.n}: seeded in ${fmtS(r.seedMs)}; switching drift detection on ${r.switchOnWrites} HelmRelease writes, ${r.n} of them the bench's own spec updates (the rest: each new generation's status)`,
    ),
  );
  return out.join('\n');
}

export const benchmark: Benchmark = {
  usage: '[--releases 100[,1000]] [--interval 1m] [--rest-seconds 90] [--compiled]',
  options: { releases: { type: 'string' }, interval: { type: 'string' }, 'rest-seconds': { type: 'string' }, compiled: { type: 'boolean' } },
  maxSeconds: 5400,
  async run(args, cleanup) {
    const sizes = args.intList('releases', [100]);
    const interval = args.string('interval', '1m');
    const restSeconds = args.int('rest-seconds', 90);
    const loadBefore = loadavgString();
    say(`drift-check: N=${sizes.join(',')}, interval ${interval}, rest ${restSeconds}s; load ${loadBefore}`);
    const be = await startBenchEnv(cleanup, args.optional('state-dir'));
    const entry = args.flag('compiled') ? await buildCompiled(join(be.dir, 'build')) : undefined;
    const facts = { ...machineFacts(be.env.helmBin), loadavg: loadBefore };
    const results: SizeResult[] = [];
    for (const n of sizes) results.push(await runSize(be, n, { interval, restSeconds, entry }, cleanup));
    const header = [
      `## drift-check: N = ${sizes.join(', ')}, interval ${interval}`,
      '',
      '```',
      formatFacts(facts),
      `load avg:    ${loadavgString()} at end`,
      `controller:  ${entry ? 'tsc-compiled' : 'bin/helmcrew.js (tsx)'}, concurrency 4, ${formatEnv(imageControllerEnv())}`,
      `command:     npm run bench -- drift-check ${args.raw.join(' ')}`.trimEnd(),
      '```',
    ];
    process.stdout.write(`${report(results, header, parseDuration(interval))}\n`);
  },
};
