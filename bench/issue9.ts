// Issue 9's benchmark: for each N, N releases of the unicorn chart (a ConfigMap, a Deployment and
// a Service; replicaCount 0) installed and then all upgraded (1.0.0 → 2.0.0) by helmcrew — a
// compiled controller child process at concurrency c, started as the image starts it — and, in
// the same run and environment, by the floor: `helm upgrade --install` driven by `xargs -P<c>`.
// Then, for helmcrew: the time from a single spec change (N releases present) to the start of its
// `helm upgrade`, and the steady state: R seconds at rest with every release in sync and a short
// interval, counting HelmRelease writes, helm processes, API requests and CPU per full resync.
// API requests are the API server's own counter (every client; the bench's own are reported).
//
//   npx tsx bench/issue9.ts [--releases 100[,500,1000]] [--concurrency 4] [--interval 1m]
//                           [--rest-seconds 150] [--skip floor,upgrade,latency,rest]
//                           [--ref <git ref> (compile that commit's src/ instead of the checkout)]
//                           [--chart unicorn|podinfo (podinfo: vendored in bench/charts, upgrade = a values change)]
//                           [--seeded (steady state at large N: one real install copied, see seed-records.ts)]
//                           [--node-options "..." (instead of the Dockerfile's NODE_OPTIONS)] [--max-seconds 1500]
//                           [--helmcrew-first] [--floor-env "GOGC=200" (the floor's helm with helmcrew's Go setting)]
//                           [--controller-env "HELMCREW_HELM_GOGC=default" (variables for the controller child)]
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseDuration } from '../src/api/duration.js';
import { REPO_ROOT } from '../src/dev/paths.js';
import { floorBurst, helmcrewBurst, helmcrewRest, names, specChangeToHelmStartMs, type Burst, type Rest } from './issue9-phases.js';
import { prepareWorkload, releaseSpec, type Workload } from './workloads.js';
import { report, type SizeResult } from './issue9-report.js';
import { cloneReleaseRecord } from './seed-records.js';
import { formatEnv, imageControllerEnv } from './image-env.js';
import {
  argValue,
  buildCompiled,
  createCountingHelm,
  createNamespace,
  currentCommit,
  deleteNamespaceFully,
  envAssignments,
  formatFacts,
  intArg,
  intListArg,
  loadavgString,
  machineFacts,
  peakRssOfLifetimeKb,
  randomSuffix,
  runBench,
  say,
  spawnController,
  startBenchEnv,
  fmtS,
  fmtMiB,
  type BenchEnv,
  type Cleanup,
} from './support.js';

const sizes = intListArg('releases', [100]);
const concurrency = intArg('concurrency', 4);
const interval = argValue('interval') ?? '1m';
const restSeconds = intArg('rest-seconds', 150);
const skip = new Set((argValue('skip') ?? '').split(',').filter(Boolean));
const ref = argValue('ref');
/** The image's runtime variables (Dockerfile ENV: NODE_OPTIONS, MALLOC_ARENA_MAX…); `--node-options ""` for no NODE_OPTIONS. */
const nodeOptionsArg = argValue('node-options');
const imageEnv = { ...imageControllerEnv(), ...(nodeOptionsArg !== undefined ? { NODE_OPTIONS: nodeOptionsArg } : {}) };
const maxSeconds = intArg('max-seconds', 1500);
const chart = argValue('chart') ?? 'unicorn';
/** Steady state only: one real install, its release record copied to the other N-1 names (seed-records.ts). */
const seeded = process.argv.includes('--seeded');
/** Extra node flags for the controller that NODE_OPTIONS refuses (e.g. `--cpu-prof --cpu-prof-dir=DIR`). */
const nodeArgs = (argValue('node-args') ?? '').split(' ').filter(Boolean);
const phaseTimeoutMs = intArg('phase-timeout', 1200) * 1000;
/** Which side runs first in each size; the second runs on a control plane that has done more (`--helmcrew-first` to swap). */
const helmcrewFirst = process.argv.includes('--helmcrew-first');
/** Variables for the floor's helm processes; none by default: the floor is helm as a person runs it. */
const floorEnv = envAssignments(argValue('floor-env') ?? '');
/** Variables for the controller child, e.g. `--controller-env HELMCREW_HELM_GOGC=default` (Go's default for its helm). */
const controllerEnv = envAssignments(argValue('controller-env') ?? '');

/** Compiles `ref`'s src/ (git archive into the bench dir, never the checkout) for a before/after run. */
async function buildRef(dir: string, gitRef: string): Promise<string[]> {
  const tree = join(dir, 'tree');
  await mkdir(tree, { recursive: true });
  execFileSync('bash', ['-c', `git -C ${JSON.stringify(REPO_ROOT)} archive ${JSON.stringify(gitRef)} src tsconfig.json | tar -x -C ${JSON.stringify(tree)}`]);
  await symlink(join(REPO_ROOT, 'node_modules'), join(tree, 'node_modules'));
  await writeFile(join(tree, 'package.json'), '{"type":"module"}\n');
  execFileSync(join(REPO_ROOT, 'node_modules', '.bin', 'tsc'), ['-p', join(tree, 'tsconfig.json'), '--outDir', join(dir, 'dist'), '--sourceMap', 'false'], {
    stdio: 'inherit',
  });
  await writeFile(join(dir, 'package.json'), '{"type":"module"}\n');
  await symlink(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'));
  return [join(dir, 'dist', 'cli', 'main.js'), 'controller'];
}

async function runHelmcrew(be: BenchEnv, w: Workload, entry: string[], n: number, cleanup: Cleanup): Promise<SizeResult['helmcrew']> {
  const dir = await mkdtemp(join(be.dir, `helmcrew-n${n}-`));
  const helm = await createCountingHelm(dir, be.env.helmBin);
  const namespace = await createNamespace(be.kubeConfig, `bench-i9-n${n}`);
  const forgetNs = cleanup.add(`delete namespace ${namespace}`, async () => void (await deleteNamespaceFully(be.kubeConfig, namespace, 600_000)));
  const ctl = await spawnController({
    env: be.env,
    entry: [...nodeArgs, ...entry],
    helmBin: helm.bin,
    namespace,
    prefix: `bench-i9-${randomSuffix()}`,
    concurrency,
    workDir: join(dir, 'work'),
    logFile: join(dir, 'controller.log'),
    extraEnv: { ...imageEnv, HELMCREW_NAMESPACE: 'default', ...controllerEnv },
  });
  const forgetCtl = cleanup.add(`stop controller ${ctl.pid}`, () => ctl.stop());
  say(`helmcrew N=${n}: controller pid ${ctl.pid} up in ${fmtS(ctl.startupMs)}; namespace ${namespace}; log ${ctl.logFile}`);
  await sleep(2000);
  const idleRssKb = startSamplerOnce(ctl.pid);
  const c = { namespace, pid: ctl.pid, helm, logFile: ctl.logFile };
  const all = names(n);
  const bursts: Burst[] = [];
  if (seeded) {
    await helmcrewBurst(be, c, 'install', all.slice(0, 1), () => releaseSpec(w, w.install, interval), phaseTimeoutMs);
    await cloneReleaseRecord(be.kubeConfig, namespace, all[0]!, all.slice(1));
    say(`  seeded: ${all[0]} installed by helmcrew, its record copied to ${n - 1} more names`);
  }
  bursts.push(await helmcrewBurst(be, c, seeded ? 'adopt' : 'install', all, () => releaseSpec(w, w.install, interval), phaseTimeoutMs));
  say(
    `  ${bursts[0]!.what}: ${bursts[0]!.done}/${n} in ${fmtS(bursts[0]!.wallMs)}; helm ${JSON.stringify(bursts[0]!.helm)}; ctl peak ${fmtMiB(bursts[0]!.sampled.peakRssKb)}`,
  );
  if (!skip.has('upgrade') && !seeded) {
    bursts.push(await helmcrewBurst(be, c, 'upgrade', all, () => releaseSpec(w, w.upgrade, interval), phaseTimeoutMs));
    say(
      `  upgrade: ${bursts[1]!.done}/${n} in ${fmtS(bursts[1]!.wallMs)}; helm ${JSON.stringify(bursts[1]!.helm)}; ctl peak ${fmtMiB(bursts[1]!.sampled.peakRssKb)}`,
    );
  }
  const step = skip.has('upgrade') || seeded ? w.install : w.upgrade;
  const latencies: number[] = [];
  if (!skip.has('latency')) {
    for (const [i, name] of [all[0]!, all[Math.floor(n / 2)]!, all[n - 1]!].entries()) {
      await sleep(3000);
      latencies.push(
        await specChangeToHelmStartMs(be, { namespace, helmLog: join(dir, 'helm-invocations.log') }, name, () =>
          releaseSpec(w, step, interval, { note: `change-${i}` }),
        ),
      );
    }
    say(`  single change → helm upgrade start: ${latencies.map((ms) => `${ms.toFixed(0)} ms`).join(', ')}`);
  }
  let rest: Rest | undefined;
  if (!skip.has('rest')) {
    await sleep(5000);
    rest = await helmcrewRest(be, c, restSeconds);
    say(
      `  rest ${restSeconds}s: HelmRelease writes ${rest.requests.helmReleaseWrites}; helm ${JSON.stringify(rest.helm)}; reconciled ${JSON.stringify(rest.reconciled)}; ctl CPU ${rest.ctlCpuS.toFixed(2)} s`,
    );
  }
  const hwmKb = peakRssOfLifetimeKb(ctl.pid);
  await ctl.stop();
  forgetCtl();
  const deleteMs = await deleteNamespaceFully(be.kubeConfig, namespace, 600_000);
  forgetNs();
  say(`  namespace deleted in ${fmtS(deleteMs)}`);
  return { bursts, latencies, rest, idleRssKb, hwmKb, startupMs: ctl.startupMs };
}

function startSamplerOnce(pid: number): number {
  try {
    return Number(/^VmRSS:\s+(\d+)/m.exec(execFileSync('cat', [`/proc/${pid}/status`], { encoding: 'utf8' }))?.[1] ?? NaN);
  } catch {
    return NaN;
  }
}

async function runFloor(be: BenchEnv, w: Workload, n: number, cleanup: Cleanup): Promise<Burst[]> {
  const dir = await mkdtemp(join(be.dir, `floor-n${n}-`));
  const helm = await createCountingHelm(dir, be.env.helmBin);
  const namespace = await createNamespace(be.kubeConfig, `bench-i9-floor-n${n}`);
  const forgetNs = cleanup.add(`delete namespace ${namespace}`, async () => void (await deleteNamespaceFully(be.kubeConfig, namespace, 600_000)));
  const bursts: Burst[] = [];
  const opts = { namespace, helm, dir, concurrency, env: floorEnv };
  bursts.push(await floorBurst(be, { ...opts, chartTgz: w.install.tgz, set: w.install.floorSet }, 'install', names(n)));
  say(`floor N=${n} install: ${fmtS(bursts[0]!.wallMs)}; helm ${JSON.stringify(bursts[0]!.helm)}; tree peak ${fmtMiB(bursts[0]!.sampled.peakTreeRssKb)}`);
  if (!skip.has('upgrade')) {
    bursts.push(await floorBurst(be, { ...opts, chartTgz: w.upgrade.tgz, set: w.upgrade.floorSet }, 'upgrade', names(n)));
    say(`floor N=${n} upgrade: ${fmtS(bursts[1]!.wallMs)}; helm ${JSON.stringify(bursts[1]!.helm)}`);
  }
  await deleteNamespaceFully(be.kubeConfig, namespace, 600_000);
  forgetNs();
  return bursts;
}

await runBench('issue9', maxSeconds, async (cleanup) => {
  const loadBefore = loadavgString();
  say(
    `issue9: chart ${chart}, N=${sizes.join(',')}, concurrency ${concurrency}, interval ${interval}, rest ${restSeconds}s, skip [${[...skip].join(',')}], ref ${ref ?? 'checkout'}, floor env ${JSON.stringify(floorEnv)}, controller env ${JSON.stringify(controllerEnv)}; load ${loadBefore}`,
  );
  parseDuration(interval);
  const be = await startBenchEnv(cleanup);
  const entry = ref ? await buildRef(join(be.dir, 'build-ref'), ref) : await buildCompiled(join(be.dir, 'build'));
  const code = ref ? `${execFileSync('git', ['-C', REPO_ROOT, 'rev-parse', '--short', ref], { encoding: 'utf8' }).trim()} (--ref ${ref})` : currentCommit();
  const workload = await prepareWorkload(chart, be, cleanup);
  const facts = { ...machineFacts(be.env.helmBin), loadavg: loadBefore };
  const results: SizeResult[] = [];
  for (const n of sizes) {
    // Each side deletes its namespace fully before the other starts, so neither overlaps the
    // other's clean-up; the order is kept in the output (`order` below).
    const withFloor = !skip.has('floor') && !seeded;
    const helmcrewBefore = helmcrewFirst ? await runHelmcrew(be, workload, entry, n, cleanup) : undefined;
    const floor = withFloor ? await runFloor(be, workload, n, cleanup) : undefined;
    const helmcrew = helmcrewBefore ?? (await runHelmcrew(be, workload, entry, n, cleanup));
    results.push({ n, floor, helmcrew });
  }
  const order = helmcrewFirst ? 'helmcrew first, then the floor' : 'the floor first, then helmcrew';
  const text = report(
    {
      facts: `${formatFacts(facts)}\nload avg:    ${loadavgString()} at end\norder:       ${order}\nfloor env:   ${Object.keys(floorEnv).length ? formatEnv(floorEnv) : 'none (helm as a person runs it)'}${Object.keys(controllerEnv).length ? `\ncontroller env: ${formatEnv(controllerEnv)}` : ''}`,
      chart,
      code,
      concurrency,
      interval,
      runtimeEnv: formatEnv(imageEnv),
      restSeconds,
    },
    results,
  );
  process.stdout.write(`${text}\n`);
});
