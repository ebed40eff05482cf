// What the Go runtime's settings do to one helm process's cost: the same `helm upgrade --install`
// burst (install K releases, then upgrade all K) run with each environment variant, in rounds whose
// order rotates, on one local control plane. Each helm runs under GNU time, which records its user
// and system CPU and its peak RSS. This is how HELM_GO_ENV's default (helm-process-env.ts) was
// chosen; ratios are within one run.
// A variant is environment assignments (NAME=value) and/or helm flags (--flag), space-separated.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createNamespace, deleteNamespaceFully } from '../src/dev/harness/index.js';
import { diffCounts, readApiRequests } from './lib/api-metrics.js';
import { envAssignments } from './lib/args.js';
import type { Benchmark } from './lib/benchmark.js';
import { startBenchEnv, type BenchEnv } from './lib/environment.js';
import { formatFacts, loadavgString, machineFacts } from './lib/machine.js';
import { say } from './lib/say.js';
import { median } from './lib/stats.js';
import { prepareWorkload, type Step } from './lib/workloads.js';

interface Measured {
  wallS: number;
  cpuS: number;
  maxRssKb: number[];
  /** API requests of every client during the burst (the API server's own counter), and of them GET /openapi/v3. */
  requests: number;
  openapiRequests: number;
}

/** "GOGC=200 --disable-openapi-validation" → the environment and the extra helm flags. */
function parseVariant(variant: string): { env: Record<string, string>; flags: string[] } {
  const words = variant === 'default' ? [] : variant.split(/\s+/).filter(Boolean);
  return { env: envAssignments(words.filter((w) => !w.startsWith('--')).join(' ')), flags: words.filter((w) => w.startsWith('--')) };
}

/** xargs -P<c> runs `time helm upgrade --install` once per name; GNU time appends "user sys maxrss" per process. */
async function burst(
  be: BenchEnv,
  concurrency: number,
  dir: string,
  namespace: string,
  step: Step,
  names: string[],
  env: Record<string, string>,
  flags: string[],
): Promise<Measured> {
  const list = join(dir, `names-${Date.now()}.txt`);
  const times = join(dir, `times-${Date.now()}.txt`);
  await writeFile(list, `${names.join('\n')}\n`);
  await writeFile(times, '');
  const args = [
    '-a',
    list,
    `-P${concurrency}`,
    '-n1',
    '-I{}',
    '/usr/bin/time',
    '-a',
    '-o',
    times,
    '-f',
    '%U %S %M',
    be.env.helmBin,
    'upgrade',
    '--install',
    '{}',
    step.tgz,
    '--namespace',
    namespace,
    ...step.floorSet,
    '--wait=watcher',
    '--timeout',
    '300s',
    ...flags,
  ];
  const before = readApiRequests(be.env.kubectlBin, be.env.kubeconfig);
  const t0 = Date.now();
  const child = spawn('xargs', args, {
    env: {
      ...process.env,
      ...env,
      KUBECONFIG: be.env.kubeconfig,
      HELM_CACHE_HOME: join(dir, 'cache'),
      HELM_CONFIG_HOME: join(dir, 'config'),
      HELM_DATA_HOME: join(dir, 'data'),
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => void (stderr.length < 4000 && (stderr += chunk.toString('utf8'))));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const wallS = (Date.now() - t0) / 1000;
  if (code !== 0) throw new Error(`xargs exited ${code}: ${stderr.slice(0, 1000)}`);
  const requests = diffCounts(before, readApiRequests(be.env.kubectlBin, be.env.kubeconfig));
  const sum = (keep: (key: string) => boolean) => [...requests].filter(([key]) => keep(key)).reduce((n, [, count]) => n + count, 0);
  const rows = (await readFile(times, 'utf8'))
    .split('\n')
    .map((l) => l.trim().split(' ').map(Number))
    .filter((r) => r.length === 3 && r.every(Number.isFinite));
  return {
    wallS,
    cpuS: rows.reduce((total, [u, s]) => total + u! + s!, 0),
    maxRssKb: rows.map((r) => r[2]!),
    requests: sum(() => true),
    openapiRequests: sum((key) => key.includes('openapi')),
  };
}

export const benchmark: Benchmark = {
  usage: '[--releases 20] [--rounds 3] [--concurrency 4] [--chart unicorn|podinfo] [--variants "default;GOGC=200;GOMAXPROCS=1;--disable-openapi-validation"]',
  options: {
    releases: { type: 'string' },
    rounds: { type: 'string' },
    concurrency: { type: 'string' },
    chart: { type: 'string' },
    variants: { type: 'string' },
  },
  maxSeconds: 1500,
  async run(args, cleanup) {
    const releases = args.int('releases', 20);
    const rounds = args.int('rounds', 3);
    const concurrency = args.int('concurrency', 4);
    const chart = args.string('chart', 'unicorn');
    const variants = args
      .string('variants', 'default;GOGC=200;GOGC=400;GOMAXPROCS=1;GOGC=200 GOMAXPROCS=1')
      .split(';')
      .map((v) => v.trim())
      .filter(Boolean);
    say(
      `helm-env: chart ${chart}, ${releases} releases × ${rounds} rounds, concurrency ${concurrency}, variants ${variants.join(' | ')}; load ${loadavgString()}`,
    );
    const be = await startBenchEnv(cleanup, args.optional('state-dir'));
    const workload = await prepareWorkload(chart, be, cleanup);
    const facts = { ...machineFacts(be.env.helmBin), loadavg: loadavgString() };
    const results = new Map<string, { install: Measured[]; upgrade: Measured[] }>(variants.map((v) => [v, { install: [], upgrade: [] }]));
    const names = Array.from({ length: releases }, (_, i) => `h${String(i + 1).padStart(3, '0')}`);
    for (let round = 0; round < rounds; round++) {
      // Rotate the order, so no variant always runs first (on a cooler machine) or last.
      const order = variants.map((_, i) => variants[(i + round) % variants.length]!);
      for (const variant of order) {
        const dir = await mkdtemp(join(be.dir, 'helm-env-'));
        const namespace = await createNamespace(be.kubeConfig, 'bench-helm-env');
        const forget = cleanup.add(`delete namespace ${namespace}`, async () => void (await deleteNamespaceFully(be.kubeConfig, namespace, 300_000)));
        const { env, flags } = parseVariant(variant);
        const install = await burst(be, concurrency, dir, namespace, workload.install, names, env, flags);
        const upgrade = await burst(be, concurrency, dir, namespace, workload.upgrade, names, env, flags);
        results.get(variant)!.install.push(install);
        results.get(variant)!.upgrade.push(upgrade);
        say(
          `round ${round + 1} ${variant}: install ${install.wallS.toFixed(1)} s wall, ${install.cpuS.toFixed(1)} CPU-s; upgrade ${upgrade.wallS.toFixed(1)} s, ${upgrade.cpuS.toFixed(1)} CPU-s`,
        );
        await deleteNamespaceFully(be.kubeConfig, namespace, 300_000);
        forget();
      }
    }
    const base = results.get(variants[0]!)!;
    const rows = [...results].map(([variant, r]) => {
      const m = (list: Measured[], f: (x: Measured) => number) => median(list.map(f));
      const rss = [...r.install, ...r.upgrade].flatMap((x) => x.maxRssKb);
      const ratio = (kind: 'install' | 'upgrade') => (m(r[kind], (x) => x.cpuS) / m(base[kind], (x) => x.cpuS)).toFixed(2);
      const perHelm = (kind: 'install' | 'upgrade', f: (x: Measured) => number) => (m(r[kind], f) / releases).toFixed(1);
      const api = `${perHelm('install', (x) => x.requests)} (${perHelm('install', (x) => x.openapiRequests)}) / ${perHelm('upgrade', (x) => x.requests)} (${perHelm('upgrade', (x) => x.openapiRequests)})`;
      return [
        variant,
        `${m(r.install, (x) => x.wallS).toFixed(1)} s`,
        m(r.install, (x) => x.cpuS).toFixed(2),
        `${m(r.upgrade, (x) => x.wallS).toFixed(1)} s`,
        m(r.upgrade, (x) => x.cpuS).toFixed(2),
        `${ratio('install')}×, ${ratio('upgrade')}×`,
        `${(median(rss) / 1024).toFixed(0)} / ${(Math.max(...rss) / 1024).toFixed(0)} MiB`,
        api,
      ];
    });
    return {
      tables: [
        {
          title: `helm's cost by Go runtime setting and flag: ${chart}, ${releases} releases × ${rounds} rounds, concurrency ${concurrency}`,
          columns: [
            'variant',
            'install wall',
            'install helm CPU-s',
            'upgrade wall',
            'upgrade helm CPU-s',
            'CPU ratio (install, upgrade)',
            'helm peak RSS, median / max',
            'API requests per helm, install / upgrade (GET openapi)',
          ],
          rows,
          notes: [formatFacts(facts), `Medians over ${rounds} rounds of ${releases} helm processes per burst; ratios against "${variants[0]}".`],
        },
      ],
      data: Object.fromEntries(results),
    };
  },
};
