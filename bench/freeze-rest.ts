// Freezes at rest: does a defined freeze cost API requests per release? N HelmReleases in sync
// (one real install, its release record copied to the other N-1 names: lib/seed-records.ts) under
// a compiled controller child process with a short interval; R seconds at rest with no Freeze,
// then F Freezes are created (half covering the bench namespace, half elsewhere, one with a
// recurring window) and R more seconds at rest. Reported: the API server's own request counter for
// each phase, by verb and resource, per reconciled pass. Freezes and Teams are watched by informers,
// so the second phase should add nothing per release (a list and a watch of freezes at most).
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Freeze } from '../src/api/freeze.js';
import { API_GROUP, API_VERSION, FREEZE_KIND } from '../src/api/vocabulary.js';
import { FreezeApi } from '../src/core/kube/freeze-api.js';
import { makeKubeClients } from '../src/core/kube/client.js';
import { createNamespace, deleteNamespaceFully, randomSuffix } from '../src/dev/harness/index.js';
import type { Benchmark } from './lib/benchmark.js';
import { buildCompiled, spawnController } from './lib/controller-child.js';
import { createCountingHelm } from './lib/counting-helm.js';
import { startBenchEnv } from './lib/environment.js';
import { helmcrewBurst, helmcrewRest, names, type Rest } from './lib/burst-phases.js';
import { imageControllerEnv } from './lib/image-env.js';
import { currentCommit, formatFacts, loadavgString, machineFacts } from './lib/machine.js';
import { say } from './lib/say.js';
import { cloneReleaseRecord } from './lib/seed-records.js';
import { fmtS } from './lib/stats.js';
import { prepareWorkload, releaseSpec } from './lib/workloads.js';

function freezesFor(namespace: string, count: number, tag: string): Freeze[] {
  return Array.from({ length: count }, (_, i) => ({
    apiVersion: `${API_GROUP}/${API_VERSION}`,
    kind: FREEZE_KIND,
    metadata: { name: `bench-${tag}-${i}` },
    spec: {
      reason: `bench freeze ${i}`,
      // Half cover the bench namespace (in-sync releases run no helm, so nothing is held), half do not.
      scope: i % 2 === 0 ? { namespaces: [namespace] } : { namespaces: [`elsewhere-${i}`] },
      ...(i === 1 ? { windows: [{ schedule: '0 18 * * 5', duration: '62h', timeZone: 'Europe/Berlin' }] } : {}),
    },
  }));
}

function row(label: string, rest: Rest, passes: number): string {
  const r = rest.requests;
  const per = (n: number) => (passes > 0 ? (n / passes).toFixed(3) : 'n/a');
  return `| ${label} | ${passes} | ${r.reads} (${per(r.reads)}) | ${r.writes} (${per(r.writes)}) | ${r.helmReleaseWrites} | ${JSON.stringify(rest.helm)} | ${rest.ctlCpuS.toFixed(2)} | ${r.top.join('; ')} |`;
}

export const benchmark: Benchmark = {
  usage: '[--releases 1000] [--freezes 10] [--interval 30s] [--rest-seconds 90] [--concurrency 4]',
  options: {
    releases: { type: 'string' },
    freezes: { type: 'string' },
    interval: { type: 'string' },
    'rest-seconds': { type: 'string' },
    concurrency: { type: 'string' },
  },
  maxSeconds: 2400,
  async run(args, cleanup) {
    const n = args.int('releases', 1000);
    const f = args.int('freezes', 10);
    const interval = args.string('interval', '30s');
    const restSeconds = args.int('rest-seconds', 90);
    const loadBefore = loadavgString();
    say(`freeze-rest: N=${n}, freezes ${f}, interval ${interval}, rest ${restSeconds}s; load ${loadBefore}`);
    const be = await startBenchEnv(cleanup, args.optional('state-dir'));
    const entry = await buildCompiled(join(be.dir, 'build'));
    const workload = await prepareWorkload('unicorn', be, cleanup);
    const dir = await mkdtemp(join(be.dir, `freeze-rest-n${n}-`));
    const helm = await createCountingHelm(dir, be.env.helmBin);
    const namespace = await createNamespace(be.kubeConfig, `bench-freeze-n${n}`);
    const forgetNs = cleanup.add(`delete namespace ${namespace}`, async () => void (await deleteNamespaceFully(be.kubeConfig, namespace, 600_000)));
    const ctl = await spawnController({
      env: be.env,
      entry,
      helmBin: helm.bin,
      namespace,
      prefix: `bench-freeze-${randomSuffix()}`,
      concurrency: args.int('concurrency', 4),
      workDir: join(dir, 'work'),
      logFile: join(dir, 'controller.log'),
      extraEnv: { ...imageControllerEnv(), HELMCREW_NAMESPACE: 'default' },
    });
    const forgetCtl = cleanup.add(`stop controller ${ctl.pid}`, () => ctl.stop());
    const c = { namespace, pid: ctl.pid, helm, logFile: ctl.logFile };
    const all = names(n);
    await helmcrewBurst(be, c, 'install', all.slice(0, 1), () => releaseSpec(workload, workload.install, interval), 600_000);
    await cloneReleaseRecord(be.kubeConfig, namespace, all[0]!, all.slice(1));
    const adopt = await helmcrewBurst(be, c, 'adopt', all, () => releaseSpec(workload, workload.install, interval), 1_200_000);
    say(`  ${n} releases in sync after ${fmtS(adopt.wallMs)} (${adopt.done} done)`);
    await sleep(5000);

    const without = await helmcrewRest(be, c, restSeconds);
    const passesWithout = Object.values(without.reconciled).reduce((a, b) => a + b, 0);
    say(`  rest without freezes: ${without.requests.reads} reads, ${without.requests.writes} writes, passes ${JSON.stringify(without.reconciled)}`);

    const freezeApi = new FreezeApi(makeKubeClients(be.kubeConfig));
    const tag = randomSuffix();
    const freezes = freezesFor(namespace, f, tag);
    cleanup.add('delete the bench freezes', async () => void (await Promise.all(freezes.map((fz) => freezeApi.delete(fz.metadata.name)))));
    for (const freeze of freezes) await freezeApi.create(freeze, 'bench');
    await sleep(5000);
    const withFreezes = await helmcrewRest(be, c, restSeconds);
    const passesWith = Object.values(withFreezes.reconciled).reduce((a, b) => a + b, 0);
    say(
      `  rest with ${f} freezes: ${withFreezes.requests.reads} reads, ${withFreezes.requests.writes} writes, passes ${JSON.stringify(withFreezes.reconciled)}`,
    );

    await Promise.all(freezes.map((fz) => freezeApi.delete(fz.metadata.name)));
    await ctl.stop();
    forgetCtl();
    await deleteNamespaceFully(be.kubeConfig, namespace, 600_000);
    forgetNs();

    const lines = [
      `## freeze-rest: ${n} in-sync releases, ${restSeconds} s at rest without and with ${f} Freezes`,
      '',
      '```',
      `${formatFacts({ ...machineFacts(be.env.helmBin), loadavg: loadBefore })}`,
      `code:        ${currentCommit()}`,
      `command:     npm run bench -- freeze-rest ${args.raw.join(' ')}`.trimEnd(),
      '```',
      '',
      '| phase | reconciled passes | reads (per pass) | writes (per pass) | HelmRelease writes | helm | controller CPU s | largest rows (verb resource count) |',
      '|---|---|---|---|---|---|---|---|',
      row('no freeze', without, passesWithout),
      row(`${f} freezes`, withFreezes, passesWith),
      '',
      'API requests are the API server counter (every client, the control plane included). Freezes and Teams are watched by the',
      'controller, so a freeze adds no request per release: the per-pass figures should match within noise.',
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  },
};
