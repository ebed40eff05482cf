// Back at work after the API server restarts, tried as a user would: the real kube-apiserver is
// stopped (SIGTERM: its graceful shutdown; or --signal KILL: a crash), kept down --outage-seconds,
// and started again with its own command line. As soon as it accepts a write, a HelmRelease's spec
// is changed (its chart version flips); measured: how long until the controller (a compiled child)
// has acted on it (status.lastAttemptedChartVersion), and the warnings it logged for the round.
// A restarted API server answers /version seconds before it serves custom resources or watch
// caches; that window, not the outage, is what this measures.
import { spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { createNamespace, deleteNamespaceFully, randomSuffix } from '../src/dev/harness/index.js';
import type { Benchmark } from './lib/benchmark.js';
import { helmcrewBurst, names } from './lib/burst-phases.js';
import { buildCompiled, buildRef, spawnController } from './lib/controller-child.js';
import { createCountingHelm } from './lib/counting-helm.js';
import { startBenchEnv, type BenchEnv } from './lib/environment.js';
import { currentCommit, formatFacts, loadavgString, machineFacts } from './lib/machine.js';
import { say } from './lib/say.js';
import { prepareWorkload, releaseSpec } from './lib/workloads.js';

interface Round {
  stoppedInMs: number;
  actedAfterMs: number;
  appliedAfterMs: number;
  warnings: number;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Stops the API server and starts it again with the same arguments; resolves with the new pid and how long stopping took. */
async function restartApiServer(pid: number, signal: NodeJS.Signals, outageMs: number, logFile: string): Promise<{ pid: number; stoppedInMs: number }> {
  const argv = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0').filter(Boolean);
  const t0 = Date.now();
  process.kill(pid, signal);
  while (alive(pid)) await sleep(100);
  const stoppedInMs = Date.now() - t0;
  await sleep(outageMs);
  const out = openSync(logFile, 'a');
  const child = spawn(argv[0]!, argv.slice(1), { detached: true, stdio: ['ignore', out, out] });
  child.unref();
  return { pid: child.pid!, stoppedInMs };
}

async function kubectl(be: BenchEnv, args: string[]): Promise<string> {
  return (await execa(be.env.kubectlBin, ['--kubeconfig', be.env.kubeconfig, ...args], { timeout: 10_000 })).stdout;
}

async function warningsSince(logFile: string, from: number): Promise<number> {
  const text = (await readFile(logFile, 'utf8')).slice(from);
  return text.split('\n').filter((line) => /"level":(40|50)/.test(line)).length;
}

export const benchmark: Benchmark = {
  usage: "[--rounds 3] [--outage-seconds 5] [--signal TERM|KILL] [--ref <git ref>: that commit's controller instead of the checkout's]",
  options: { rounds: { type: 'string' }, 'outage-seconds': { type: 'string' }, signal: { type: 'string' }, ref: { type: 'string' } },
  maxSeconds: 1200,
  async run(args, cleanup) {
    const rounds = args.int('rounds', 3);
    const outageMs = args.int('outage-seconds', 5) * 1000;
    const signal = `SIG${args.string('signal', 'TERM')}` as NodeJS.Signals;
    const loadBefore = loadavgString();
    say(`api-restart: ${rounds} rounds, ${outageMs / 1000} s down, ${signal}; load ${loadBefore}`);
    const be = await startBenchEnv(cleanup, args.optional('state-dir'));
    const ref = args.optional('ref');
    const entry = ref ? await buildRef(join(be.dir, 'build'), ref) : await buildCompiled(join(be.dir, 'build'));
    const workload = await prepareWorkload('unicorn', be, cleanup);
    const helm = await createCountingHelm(be.dir, be.env.helmBin);
    const namespace = await createNamespace(be.kubeConfig, `bench-restart-${randomSuffix()}`);
    cleanup.add(`delete namespace ${namespace}`, async () => void (await deleteNamespaceFully(be.kubeConfig, namespace, 120_000)));
    const ctl = await spawnController({
      env: be.env,
      entry,
      helmBin: helm.bin,
      namespace,
      prefix: `bench-restart-${randomSuffix()}`,
      concurrency: 4,
      workDir: join(be.dir, 'work'),
      logFile: join(be.dir, 'controller.log'),
    });
    cleanup.add(`stop controller ${ctl.pid}`, () => ctl.stop());
    const [name] = names(1) as [string];
    await helmcrewBurst(
      be,
      { namespace, pid: ctl.pid, helm, logFile: ctl.logFile },
      'install',
      [name],
      () => releaseSpec(workload, workload.install, '10m'),
      300_000,
    );

    let apiserverPid = be.apiserverPid!;
    const versions = [workload.upgrade.version, workload.install.version];
    const results: Round[] = [];
    for (let round = 0; round < rounds; round++) {
      const next = versions[round % 2]!;
      const logFrom = (await readFile(ctl.logFile, 'utf8')).length;
      const restarted = await restartApiServer(apiserverPid, signal, outageMs, join(be.dir, 'kube-apiserver-restarted.log'));
      apiserverPid = restarted.pid;
      cleanup.add(`stop the restarted kube-apiserver ${apiserverPid}`, async () => void (alive(apiserverPid) && process.kill(apiserverPid, 'SIGTERM')));
      const patch = JSON.stringify({ spec: { chart: { version: next } } });
      for (;;) {
        try {
          await kubectl(be, ['-n', namespace, 'patch', 'helmrelease', name, '--type', 'merge', '-p', patch]);
          break;
        } catch {
          await sleep(200);
        }
      }
      const acceptedAt = Date.now();
      while (
        (await kubectl(be, ['-n', namespace, 'get', 'helmrelease', name, '-o', 'jsonpath={.status.lastAttemptedChartVersion}']).catch(() => '')) !== next
      ) {
        await sleep(100);
      }
      const actedAfterMs = Date.now() - acceptedAt;
      // The next round starts once this change is applied, so each round begins idle.
      const applied = `${next}/True`;
      const readyPath = 'jsonpath={.status.lastAttemptedChartVersion}/{.status.conditions[?(@.type=="Ready")].status}';
      while ((await kubectl(be, ['-n', namespace, 'get', 'helmrelease', name, '-o', readyPath]).catch(() => '')) !== applied) await sleep(200);
      const result = {
        stoppedInMs: restarted.stoppedInMs,
        actedAfterMs,
        appliedAfterMs: Date.now() - acceptedAt,
        warnings: await warningsSince(ctl.logFile, logFrom),
      };
      say(
        `  round ${round + 1}: stopped in ${result.stoppedInMs} ms; spec change acted on ${result.actedAfterMs} ms, applied ${result.appliedAfterMs} ms after the API server took it; ${result.warnings} warnings`,
      );
      results.push(result);
    }
    const lines = [
      `## api-restart: the kube-apiserver restarted ${rounds} times (${signal}, ${outageMs / 1000} s down), a spec change as soon as it takes one`,
      '',
      '```',
      formatFacts({ ...machineFacts(be.env.helmBin), loadavg: loadBefore }),
      `code:        ${ref ?? `${currentCommit()} (checkout)`}`,
      `command:     npm run bench -- api-restart ${args.raw.join(' ')}`.trimEnd(),
      '```',
      '',
      '| round | API server stopped in | spec change acted on after | applied (Ready) after | controller warnings in the round |',
      '|---|---|---|---|---|',
      ...results.map(
        (r, i) =>
          `| ${i + 1} | ${(r.stoppedInMs / 1000).toFixed(1)} s | ${(r.actedAfterMs / 1000).toFixed(1)} s | ${(r.appliedAfterMs / 1000).toFixed(1)} s | ${r.warnings} |`,
      ),
      '',
      '"Acted on": the controller has attempted the new chart version (status.lastAttemptedChartVersion), counted from the moment',
      'the restarted API server accepted the spec change.',
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  },
};
