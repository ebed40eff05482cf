// Scale-out: 1, 2, 3 … controller processes on one queue (one Redis prefix, one namespace), each
// at concurrency c, install N releases and then upgrade them all; wall time, helm processes, the
// sum of the controllers' peak RSS, and CPU of the controllers and the API server, to see which
// part is the bottleneck on this machine.
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createNamespace, deleteNamespaceFully, randomSuffix } from '../src/dev/harness/index.js';
import type { Benchmark } from './lib/benchmark.js';
import { helmcrewBurst, names, type Burst } from './lib/burst-phases.js';
import { buildCompiled, spawnController, type ControllerChild } from './lib/controller-child.js';
import { createCountingHelm } from './lib/counting-helm.js';
import { startBenchEnv } from './lib/environment.js';
import { imageControllerEnv } from './lib/image-env.js';
import { formatFacts, loadavgString, machineFacts } from './lib/machine.js';
import { cpuSeconds, startSampler } from './lib/proc-sampler.js';
import { say } from './lib/say.js';
import { fmtMiB, fmtRatio, fmtS } from './lib/stats.js';
import { prepareWorkload, releaseSpec } from './lib/workloads.js';

interface Row {
  controllers: number;
  bursts: Array<Burst & { sumPeakRssKb: number; ctlCpuS: number }>;
}

export const benchmark: Benchmark = {
  usage: '[--releases 100] [--controllers 1,2,3] [--concurrency 4] [--one-node] [--leader-election]',
  options: {
    releases: { type: 'string' },
    controllers: { type: 'string' },
    concurrency: { type: 'string' },
    'one-node': { type: 'boolean' },
    'leader-election': { type: 'boolean' },
  },
  maxSeconds: 1500,
  async run(args, cleanup) {
    const releases = args.int('releases', 100);
    const counts = args.intList('controllers', [1, 2, 3]);
    const concurrency = args.int('concurrency', 4);
    // --one-node: several controllers are told they run on one node, as the chart tells replicas: they share its helm slots (HELMCREW_NODE_NAME).
    // One alone is not told, as the chart leaves one replica.
    const nodeOf = (k: number): Record<string, string> => (args.flag('one-node') && k > 1 ? { HELMCREW_NODE_NAME: 'bench-node' } : {});
    // --leader-election: as the chart runs the controller (its default): one replica watches and resyncs, every one works the queue.
    const election: Record<string, string> = args.flag('leader-election') ? { HELMCREW_LEADER_ELECTION: 'true' } : {};
    const loadBefore = loadavgString();
    const be = await startBenchEnv(cleanup, args.optional('state-dir'));
    const entry = await buildCompiled(join(be.dir, 'build'));
    const w = await prepareWorkload('unicorn', be, cleanup);
    const facts = { ...machineFacts(be.env.helmBin), loadavg: loadBefore };
    const rows: Row[] = [];
    for (const k of counts) {
      const dir = await mkdtemp(join(be.dir, `k${k}-`));
      const helm = await createCountingHelm(dir, be.env.helmBin);
      const namespace = await createNamespace(be.kubeConfig, `bench-out-k${k}`);
      const forgetNs = cleanup.add(`delete namespace ${namespace}`, async () => void (await deleteNamespaceFully(be.kubeConfig, namespace, 600_000)));
      const prefix = `bench-out-${randomSuffix()}`;
      const ctls: ControllerChild[] = [];
      for (let i = 0; i < k; i++) {
        const ctl = await spawnController({
          env: be.env,
          entry,
          helmBin: helm.bin,
          namespace,
          prefix,
          concurrency,
          workDir: join(dir, `work-${i}`),
          logFile: join(dir, `controller-${i}.log`),
          extraEnv: { ...imageControllerEnv(), HELMCREW_NAMESPACE: 'default', ...nodeOf(k), ...election },
        });
        cleanup.add(`stop controller ${ctl.pid}`, () => ctl.stop());
        ctls.push(ctl);
      }
      say(`${k} controller(s) at concurrency ${concurrency} on prefix ${prefix}: pids ${ctls.map((c) => c.pid).join(', ')}`);
      await sleep(2000);
      const row: Row = { controllers: k, bursts: [] };
      for (const [what, step] of [
        ['install', w.install],
        ['upgrade', w.upgrade],
      ] as const) {
        const samplers = ctls.slice(1).map((c) => startSampler(c.pid));
        const cpu0 = ctls.map((c) => cpuSeconds(c.pid) ?? 0);
        const burst = await helmcrewBurst(
          be,
          // Slots: the node's when they share it, else each replica's own.
          { namespace, pid: ctls[0]!.pid, helm, logFile: ctls[0]!.logFile, concurrency: args.flag('one-node') || k === 1 ? concurrency : k * concurrency },
          what,
          names(releases),
          () => releaseSpec(w, step, '10m'),
          900_000,
        );
        const others = samplers.map((s) => s.stop());
        const sumPeakRssKb = burst.sampled.peakRssKb + others.reduce((a, s) => a + s.peakRssKb, 0);
        const ctlCpuS = ctls.reduce((a, c, i) => a + ((cpuSeconds(c.pid) ?? 0) - cpu0[i]!), 0);
        row.bursts.push({ ...burst, sumPeakRssKb, ctlCpuS });
        say(
          `  ${what}: ${burst.done}/${releases} in ${fmtS(burst.wallMs)}; helm ${JSON.stringify(burst.helm)}; controllers' peak RSS sum ${fmtMiB(sumPeakRssKb)}; ctl CPU ${ctlCpuS.toFixed(1)} s; helm at once mean ${burst.slots?.meanBusy.toFixed(1)}, most ${burst.slots?.mostAtOnce}; helm CPU ${burst.slots?.helmCpuS.toFixed(1)} s; apiserver CPU ${burst.cpuS.apiserver?.toFixed(1)} s; load ${burst.sampled.loadavgAtEnd}`,
        );
      }
      for (const ctl of ctls) await ctl.stop();
      await deleteNamespaceFully(be.kubeConfig, namespace, 600_000);
      forgetNs();
      rows.push(row);
    }
    const out: string[] = [
      `## scale-out: ${releases} releases, ${counts.join(' / ')} controllers at concurrency ${concurrency} each${args.flag('one-node') ? ', sharing one node’s helm slots' : ''}${args.flag('leader-election') ? ', with leader election' : ''}`,
      '',
      '```',
      formatFacts(facts),
      `load avg:    ${loadavgString()} at end`,
      `command:     npm run bench -- scale-out ${args.raw.join(' ')}`.trimEnd(),
      '```',
      '',
    ];
    out.push(
      '| controllers | phase | wall | speed vs 1 controller (wall₁ ÷ wall; < 1 = slower) | helm procs | helm at once (mean / most) | helm’s own CPU s | controllers CPU s | kube-apiserver CPU s | controllers peak RSS (sum) | load avg at end |',
    );
    out.push('|---|---|---|---|---|---|---|---|---|---|---|');
    for (const row of rows) {
      for (const b of row.bursts) {
        const base = rows[0]!.bursts.find((x) => x.what === b.what)!;
        out.push(
          `| ${row.controllers} | ${b.what} | ${fmtS(b.wallMs)}${b.timedOut ? ' (timed out)' : ''} | ${fmtRatio(base.wallMs / b.wallMs)} | ${JSON.stringify(b.helm)} | ${b.slots ? `${b.slots.meanBusy.toFixed(1)} / ${b.slots.mostAtOnce}` : '—'} | ${b.slots?.helmCpuS.toFixed(1) ?? '—'} | ${b.ctlCpuS.toFixed(1)} | ${b.cpuS.apiserver?.toFixed(1) ?? '—'} | ${fmtMiB(b.sumPeakRssKb)} | ${b.sampled.loadavgAtEnd} |`,
        );
      }
    }
    process.stdout.write(`${out.join('\n')}\n`);
  },
};
