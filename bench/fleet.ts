// A fleet at rest (issue 32, way B): C clusters, each its own control plane on loopback
// (lib/fleet-clusters.ts), each with its own agent — a compiled controller child with its
// HELMCREW_CLUSTER_NAME and command key — all on one Redis and one queue prefix; M in-sync releases
// per cluster (one real install in the first cluster, its record copied to every other name in every
// cluster: lib/fleet-clusters.ts). Measured over R seconds at rest: Redis operations per second (INFO
// commandstats, every client), Redis memory, each agent's memory and CPU, helm processes and
// HelmRelease writes per cluster (each API server's own counter). Then signed `suspend` commands at
// a steady rate through FleetCommandClient in a process of its own (the bot's side; no bot runs):
// the time from a command's scheduled start to its agent's outcome, and that process's memory.
// Last, the /release bot in front of the fleet: signed `status … --cluster NAME` slash commands at
// a steady rate, its acks and answers (lib/fleet-bot.ts).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { parseDuration } from '../src/api/duration.js';
import { ensureNamespace, randomSuffix } from '../src/dev/harness/index.js';
import { REPO_ROOT } from '../src/dev/paths.js';
import type { Benchmark } from './lib/benchmark.js';
import { helmcrewBurst, helmcrewRest, names, type Burst, type Rest } from './lib/burst-phases.js';
import { buildCompiled, spawnController, type ControllerChild } from './lib/controller-child.js';
import { createCountingHelm, type CountingHelm } from './lib/counting-helm.js';
import { startBenchEnv, type BenchEnv } from './lib/environment.js';
import { fleetBotLoad } from './lib/fleet-bot.js';
import { copyReleaseRecord, startFleetClusters, type BenchCluster } from './lib/fleet-clusters.js';
import { formatEnv, imageControllerEnv } from './lib/image-env.js';
import { loadavgString } from './lib/machine.js';
import { currentRssKb, peakRssOfLifetimeKb, startSampler } from './lib/proc-sampler.js';
import { redisRate, redisSnapshot } from './lib/redis-stats.js';
import type { Table } from './lib/result.js';
import { say } from './lib/say.js';
import { slashLoadRows } from './lib/slash-load.js';
import { fmtMiB, fmtMs, fmtS, pct } from './lib/stats.js';
import { prepareWorkload, releaseSpec } from './lib/workloads.js';

interface Agent {
  cluster: BenchCluster;
  be: BenchEnv;
  ctl: ControllerChild;
  helm: CountingHelm;
  key: string;
  idleRssKb: number;
}

interface ClientReport {
  warm: Array<{ cluster: string; ms: number; ok: boolean; message?: string }>;
  results: Array<{ cluster: string; ms: number; ok: boolean; message?: string }>;
  sentInMs: number;
  rssKiB: { start: number; afterWarm: number; peak: number; end: number; hwm: number };
}

/** The command sender in its own plain-node process (lib/fleet-client-child.mjs); its JSON report. */
async function runClient(config: Record<string, unknown>, timeoutMs: number): Promise<ClientReport> {
  const child = spawn(process.execPath, [join(REPO_ROOT, 'bench', 'lib', 'fleet-client-child.mjs')], {
    cwd: REPO_ROOT,
    env: { ...process.env, FLEET_CLIENT: JSON.stringify(config) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (err = (err + c.toString('utf8')).slice(-4000)));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(timer);
  if (code !== 0) throw new Error(`the command client exited ${code}: ${err}`);
  return JSON.parse(out.trim().split('\n').at(-1)!) as ClientReport;
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

export const benchmark: Benchmark = {
  usage:
    '[--clusters 5] [--releases 200 (per cluster)] [--rest-seconds 90] [--interval 1m] [--rate 10] [--command-seconds 30] [--concurrency 4] [--bot-rate 20 (0: no bot)] [--bot-seconds 10] [--bot-node-args=--cpu-prof]',
  options: {
    clusters: { type: 'string' },
    releases: { type: 'string' },
    'rest-seconds': { type: 'string' },
    interval: { type: 'string' },
    rate: { type: 'string' },
    'command-seconds': { type: 'string' },
    concurrency: { type: 'string' },
    'bot-rate': { type: 'string' },
    'bot-seconds': { type: 'string' },
    'bot-node-args': { type: 'string' },
  },
  maxSeconds: 2400,
  async run(args, cleanup) {
    const c = args.int('clusters', 5);
    const m = args.int('releases', 200);
    const restSeconds = args.int('rest-seconds', 90);
    const interval = args.string('interval', '1m');
    parseDuration(interval);
    const rate = args.int('rate', 10);
    const commandSeconds = args.int('command-seconds', 30);
    const concurrency = args.int('concurrency', 4);
    const botRate = args.int('bot-rate', 20);
    const botSeconds = args.int('bot-seconds', 10);
    if (c < 1 || m < 1) throw new Error('--clusters and --releases must be at least 1');
    say(`fleet: ${c} clusters × ${m} releases, rest ${restSeconds}s, interval ${interval}, commands ${rate}/s for ${commandSeconds}s; load ${loadavgString()}`);

    const be = await startBenchEnv(cleanup, args.optional('state-dir'));
    const entry = await buildCompiled(join(be.dir, 'build'));
    const workload = await prepareWorkload('unicorn', be, cleanup);
    const clusters = await startFleetClusters(be, c, cleanup);
    const redis = new Redis(be.env.redisUrl, { maxRetriesPerRequest: null });
    cleanup.add('close the bench Redis connection', async () => void redis.disconnect());
    const prefix = `bench-fleet-${randomSuffix()}`;
    const namespace = `bench-fleet-${randomSuffix()}`;
    const imageEnv = imageControllerEnv();
    const empty = await redisSnapshot(redis);

    // One agent per cluster, started as a deployment starts it, each with its name and key.
    const agents: Agent[] = [];
    for (const cluster of clusters) {
      const dir = join(be.dir, `agent-${cluster.name}`);
      await mkdir(dir, { recursive: true });
      await ensureNamespace(cluster.kubeConfig, namespace);
      const helm = await createCountingHelm(dir, be.env.helmBin);
      const key = randomBytes(32).toString('hex');
      const ctl = await spawnController({
        env: { ...be.env, kubeconfig: cluster.kubeconfig },
        entry,
        helmBin: helm.bin,
        namespace,
        prefix,
        concurrency,
        workDir: join(dir, 'work'),
        logFile: join(dir, 'controller.log'),
        extraEnv: { ...imageEnv, HELMCREW_NAMESPACE: 'default', HELMCREW_CLUSTER_NAME: cluster.name, HELMCREW_COMMAND_KEY: key },
      });
      cleanup.add(`stop agent ${cluster.name} (${ctl.pid})`, () => ctl.stop());
      const clusterBe: BenchEnv = {
        env: { ...be.env, kubeconfig: cluster.kubeconfig },
        kubeConfig: cluster.kubeConfig,
        dir,
        apiserverPid: cluster.apiserverPid,
      };
      agents.push({ cluster, be: clusterBe, ctl, helm, key, idleRssKb: NaN });
      say(`agent ${cluster.name}: pid ${ctl.pid} up in ${fmtS(ctl.startupMs)}`);
    }
    await sleep(2000);
    for (const a of agents) a.idleRssKb = currentRssKb(a.ctl.pid) ?? NaN;

    // Seeded: one real install in the first cluster, its record copied to every other name everywhere.
    const all = names(m);
    const spec = () => releaseSpec(workload, workload.install, interval);
    const first = agents[0]!;
    const ctx = (a: Agent) => ({ namespace, pid: a.ctl.pid, helm: a.helm, logFile: a.ctl.logFile });
    await helmcrewBurst(first.be, ctx(first), 'install', all.slice(0, 1), spec, 600_000);
    const source = { kc: first.cluster.kubeConfig, namespace, name: all[0]! };
    for (const a of agents) await copyReleaseRecord(source, { kc: a.cluster.kubeConfig, namespace }, a === first ? all.slice(1) : all);
    const adopted: Burst[] = [];
    for (const a of agents) {
      const burst = await helmcrewBurst(a.be, ctx(a), 'adopt', all, spec, 1_200_000);
      if (burst.timedOut) throw new Error(`${a.cluster.name}: only ${burst.done}/${m} releases became Ready`);
      adopted.push(burst);
      say(`  ${a.cluster.name}: ${burst.done}/${m} in sync after ${fmtS(burst.wallMs)}`);
    }
    await sleep(10_000);

    // At rest: every agent at once, Redis counted around the whole phase.
    const before = await redisSnapshot(redis);
    const t0 = Date.now();
    const rests: Rest[] = await Promise.all(agents.map((a) => helmcrewRest(a.be, ctx(a), restSeconds)));
    const seconds = (Date.now() - t0) / 1000;
    const after = await redisSnapshot(redis);
    const ops = redisRate(before, after, seconds, 3);
    say(
      `  rest ${seconds.toFixed(0)}s: Redis ${ops.opsPerSecond.toFixed(1)} ops/s (${ops.top.join('; ')}); used_memory ${fmtMiB(after.usedMemoryBytes / 1024)}`,
    );

    // Commands at a steady rate, each to its cluster's next release.
    const samplers = agents.map((a) => startSampler(a.ctl.pid, 500));
    const dist = dirname(dirname(entry[0]!));
    const client = await runClient(
      {
        dist,
        redisUrl: be.env.redisUrl,
        prefix,
        rate,
        seconds: commandSeconds,
        timeoutMs: 30_000,
        clusters: agents.map((a) => ({ name: a.cluster.name, namespace, key: a.key, releases: all })),
      },
      (commandSeconds + 120) * 1000,
    );
    const duringCommands = samplers.map((s) => s.stop());
    const lat = client.results.map((r) => r.ms);
    const failed = client.results.filter((r) => !r.ok);
    say(
      `  commands: ${client.results.length} sent in ${fmtS(client.sentInMs)}; p50 ${fmtMs(pct(lat, 0.5))}, p99 ${fmtMs(pct(lat, 0.99))}; ${failed.length} failed`,
    );

    // The /release bot in front of the fleet: its acks and answers with every agent on.
    const botRun =
      botRate > 0
        ? await fleetBotLoad({
            cli: entry[0]!,
            nodeArgs: args.string('bot-node-args', '').split(' ').filter(Boolean),
            imageEnv,
            home: { name: first.cluster.name, be: first.be },
            agents: agents.map((a) => ({ cluster: a.cluster.name, key: a.key })),
            prefix,
            namespace,
            releases: all,
            rate: botRate,
            seconds: botSeconds,
            cleanup,
          })
        : undefined;
    const botLoad = botRun?.load;
    if (botRun && botLoad)
      say(
        `  /release: ${botLoad.total} sent in ${botLoad.sendSeconds.toFixed(1)} s; ack p99 ${fmtMs(pct(botLoad.acksMs, 0.99))}; ${botLoad.failures.length} failed; bot RSS ${fmtMiB(botRun.rssKb.idle)} idle, ${fmtMiB(botRun.rssKb.peakUnderLoad)} peak`,
      );
    const hwm = agents.map((a) => peakRssOfLifetimeKb(a.ctl.pid) ?? NaN);
    for (const a of agents) await a.ctl.stop();

    const passes = (r: Rest) => sum(Object.values(r.reconciled));
    const totalReleases = c * m;
    const restTable: Table = {
      title: `At rest: ${c} clusters × ${m} in-sync releases, ${restSeconds} s (${((restSeconds * 1000) / parseDuration(interval)).toFixed(1)} intervals of ${interval}), one agent per cluster`,
      columns: [
        'cluster',
        'helm processes',
        'HelmRelease writes (status)',
        'API reads / writes (that cluster, all clients)',
        'checks done',
        'agent CPU s',
        'agent RSS idle (before releases) / at rest peak / lifetime peak',
        'adopt wall',
      ],
      rows: agents.map((a, i) => {
        const r = rests[i]!;
        return [
          a.cluster.name,
          sum(Object.values(r.helm)),
          `${r.requests.helmReleaseWrites} (${r.requests.helmReleaseStatusWrites})`,
          `${r.requests.reads} / ${r.requests.writes}`,
          `${passes(r)} ${JSON.stringify(r.reconciled)}`,
          r.ctlCpuS.toFixed(2),
          `${fmtMiB(a.idleRssKb)} / ${fmtMiB(r.sampled.peakRssKb)} / ${fmtMiB(hwm[i]!)}`,
          fmtS(adopted[i]!.wallMs),
        ];
      }),
      notes: [
        `Agents: controllers compiled by tsc, ${formatEnv(imageEnv)}, concurrency ${concurrency}, HELMCREW_HEARTBEAT_SECONDS default (10 s), each with HELMCREW_CLUSTER_NAME and HELMCREW_COMMAND_KEY (reconcile, preview and command workers).`,
        `Cluster ${clusters[0]!.name} is the bench environment's control plane (with kwok, Redis, the chart repository); the others are control planes of their own on loopback (etcd, API server, controller-manager, scheduler; no kwok). Seeded: one real install in ${clusters[0]!.name}, its record copied to the other ${totalReleases - 1} names (bench/lib/fleet-clusters.ts).`,
      ],
    };
    const perCluster = ops.opsPerSecond / c;
    const redisTable: Table = {
      title: 'Redis at rest: every client (agents, the bench), INFO commandstats and INFO memory',
      columns: [
        'ops/s, all agents',
        'ops/s per agent',
        'ops/s per 1,000 releases',
        'largest commands (calls/s)',
        'used_memory: no agent / at rest',
        'keys at rest',
        'clients at rest',
      ],
      rows: [
        [
          ops.opsPerSecond.toFixed(1),
          perCluster.toFixed(2),
          ((ops.opsPerSecond / totalReleases) * 1000).toFixed(1),
          ops.top.join('; '),
          `${fmtMiB(empty.usedMemoryBytes / 1024)} / ${fmtMiB(after.usedMemoryBytes / 1024)} (+${((after.usedMemoryBytes - empty.usedMemoryBytes) / 1024 / totalReleases).toFixed(2)} KiB per release)`,
          after.keys,
          after.connectedClients,
        ],
      ],
      notes: [`Measured over ${seconds.toFixed(0)} s; the bench's own INFO calls left out. The Redis is shared by nothing else in this run.`],
    };
    const byCluster = agents.map((a) => client.results.filter((r) => r.cluster === a.cluster.name).map((r) => r.ms));
    const commandTable: Table = {
      title: `Commands: signed \`suspend\` through FleetCommandClient, ${rate}/s for ${commandSeconds} s, round-robin over the ${c} clusters; scheduled start → the agent's outcome (its first reply)`,
      columns: ['', 'n', 'p50', 'p90', 'p99', 'max', 'failed'],
      rows: [
        ['all clusters', lat.length, fmtMs(pct(lat, 0.5)), fmtMs(pct(lat, 0.9)), fmtMs(pct(lat, 0.99)), fmtMs(Math.max(...lat)), failed.length],
        ...agents.map((a, i) => {
          const l = byCluster[i]!;
          return [
            a.cluster.name,
            l.length,
            fmtMs(pct(l, 0.5)),
            fmtMs(pct(l, 0.9)),
            fmtMs(pct(l, 0.99)),
            fmtMs(Math.max(...l)),
            client.results.filter((r) => r.cluster === a.cluster.name && !r.ok).length,
          ];
        }),
        [
          'first command to each cluster (opens its lane)',
          client.warm.length,
          fmtMs(
            pct(
              client.warm.map((w) => w.ms),
              0.5,
            ),
          ),
          '',
          '',
          fmtMs(Math.max(...client.warm.map((w) => w.ms))),
          client.warm.filter((w) => !w.ok).length,
        ],
      ],
      notes: [
        `Sent ${client.results.length} in ${fmtS(client.sentInMs)}. Each command suspends a release (an intent patch and an ActionRequested Event in that cluster); the agent verifies the signature, keeps the nonce (SET NX) and writes it.`,
        `The sender is FleetCommandClient alone in a plain-node process (the bot's side of the channel: the fleet's bot sends its commands through it): RSS ${fmtMiB(client.rssKiB.start)} after connecting, ${fmtMiB(client.rssKiB.afterWarm)} with ${c} lanes open, peak ${fmtMiB(client.rssKiB.peak)}.`,
        `Agents during the commands: peak RSS ${duringCommands.map((s, i) => `${agents[i]!.cluster.name} ${fmtMiB(s.peakRssKb)}`).join(', ')}.`,
        ...(failed.length ? [`Failures: ${[...new Set(failed.map((f) => f.message))].slice(0, 3).join('; ')}`] : []),
      ],
    };
    const botTable: Table | undefined = botRun &&
      botLoad && {
        title: `/release with the fleet on: ${botLoad.total} signed \`status … --cluster NAME\` at ${botRate}/s, round-robin over the ${c} clusters, one bot (its own cluster ${first.cluster.name})`,
        columns: ['', 'n', 'p50', 'p90', 'p99', 'max', 'over 3 s / failed / missing'],
        rows: slashLoadRows(botLoad, [
          { label: 'home', title: `full answer on response_url, cluster ${first.cluster.name} (the bot's kubeconfig)` },
          { label: 'remote', title: 'full answer on response_url, the other clusters (a signed question to their agent)' },
        ]),
        notes: [
          `Sent in ${botLoad.sendSeconds.toFixed(1)} s (${(botLoad.total / botLoad.sendSeconds).toFixed(1)}/s); Slack waits at most 3 s for the ack. The bot: \`helmcrew bot\` compiled, in a process of its own (${formatEnv(imageEnv)}; Bolt's HTTP mode; HELMCREW_FLEET_KEYS_DIR with the ${c} agents' keys), against the local fake Slack; the agents are the ones above, after their commands.`,
          `The bot's memory: started in ${fmtS(botRun.startupMs)}, RSS ${fmtMiB(botRun.rssKb.idle)} idle, ${fmtMiB(botRun.rssKb.peakUnderLoad)} peak under the commands, ${fmtMiB(botRun.rssKb.lifetimePeak)} lifetime peak (VmHWM).`,
          ...(botLoad.failures.length ? [`Failures: ${[...new Set(botLoad.failures)].slice(0, 3).join('; ')}`] : []),
        ],
      };
    return {
      tables: [restTable, redisTable, commandTable, ...(botTable ? [botTable] : [])],
      data: {
        clusters: c,
        releases: m,
        interval,
        restSeconds: seconds,
        redis: {
          empty: { usedMemoryBytes: empty.usedMemoryBytes, keys: empty.keys },
          before: { usedMemoryBytes: before.usedMemoryBytes },
          after: { usedMemoryBytes: after.usedMemoryBytes, keys: after.keys },
          ops,
        },
        agents: agents.map((a, i) => ({ cluster: a.cluster.name, idleRssKb: a.idleRssKb, hwmKb: hwm[i], rest: rests[i], adoptMs: adopted[i]!.wallMs })),
        client,
        bot: botRun &&
          botLoad && {
            startupMs: botRun.startupMs,
            rssKb: botRun.rssKb,
            total: botLoad.total,
            sendSeconds: botLoad.sendSeconds,
            failures: botLoad.failures,
            acksMs: botLoad.acksMs,
            homeAnswersMs: botLoad.answeredMs('home'),
            remoteAnswersMs: botLoad.answeredMs('remote'),
          },
      },
    };
  },
};
