// The assistants' tools at scale: N HelmReleases (seeded as bench/web.ts seeds them: objects with a
// status, no controller, no helm) served by the compiled `helmcrew web` process's `/mcp`, called by
// the MCP SDK's own Client over Streamable HTTP with Bearer tokens from the token store. A steady
// open-loop rate (R calls a second for S seconds, each sent on time whether or not the last has
// answered) over four read tools: list_releases (a namespace and a state), release_status,
// release_history and plan_diff (suspend); each release with R helm records and E Events about it
// (bench/lib/seed-helm-history.ts: what helm and the controller would have left). Measured: each tool's time per call (the client's round
// trip on loopback, p50/p99) and the API server requests made meanwhile — its audit log's reads
// (no controller runs: every one is the web process's) and its request counter; the web process's
// RSS (/proc) once its watches have listed and after the calls.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Redis } from 'ioredis';
import { makeKubeClients } from '../src/core/kube/client.js';
import { createNamespace, createTeam, deleteNamespaceFully, deleteTeam, randomSuffix } from '../src/dev/harness/index.js';
import { freePort } from '../src/dev/free-port.js';
import { statePaths } from '../src/dev/paths.js';
import { readSessionConfig } from '../src/session/flow/config.js';
import { TokenStore } from '../src/session/tokens/token-store.js';
import { diffCounts, readApiRequests } from './lib/api-metrics.js';
import type { Benchmark } from './lib/benchmark.js';
import { buildCompiled } from './lib/controller-child.js';
import { startBenchEnv } from './lib/environment.js';
import { formatEnv, imageProcessEnv } from './lib/image-env.js';
import { currentCommit, formatFacts, loadavgString, machineFacts } from './lib/machine.js';
import { rssMiB } from './lib/proc-sampler.js';
import { say } from './lib/say.js';
import { seedHelmHistory } from './lib/seed-helm-history.js';
import { seededName, seedReleases } from './lib/seed-releases.js';
import { pct } from './lib/stats.js';

const BENCH_USER = 'UBENCH';
/** A token may make 60 calls a minute (cli/compose/mcp-surface.ts): the calls are spread over enough tokens to stay under it. */
const CALLS_PER_TOKEN_MINUTE = 50;
const TOOLS = ['list_releases', 'release_status', 'release_history', 'plan_diff'] as const;
type Tool = (typeof TOOLS)[number];

/** The audit log's reads (get, list, watch) from `from` on: "verb resource (user agent)". */
async function auditedReads(auditLog: string, from: number): Promise<string[]> {
  const text = (await readFile(auditLog)).subarray(from).toString('utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { verb: string; objectRef?: { resource?: string }; requestURI: string; userAgent?: string })
    .filter((e) => ['get', 'list', 'watch'].includes(e.verb))
    .map((e) => `${e.verb} ${e.objectRef?.resource ?? e.requestURI.split('?')[0]!} (${(e.userAgent ?? '').split(' ')[0]!})`);
}

const tally = (lines: string[]) => [...lines.reduce((m, l) => m.set(l, (m.get(l) ?? 0) + 1), new Map<string, number>())].sort((a, b) => b[1] - a[1]);

export const benchmark: Benchmark = {
  usage:
    '[--releases 1000] [--records 3] [--events 2] [--rate 20] [--seconds 30] [--cpu-prof DIR] [--node-options "..." (instead of the Dockerfile\'s NODE_OPTIONS)]',
  options: {
    releases: { type: 'string' },
    records: { type: 'string' },
    events: { type: 'string' },
    rate: { type: 'string' },
    seconds: { type: 'string' },
    'cpu-prof': { type: 'string' },
    'node-options': { type: 'string' },
  },
  maxSeconds: 1200,
  async run(args, cleanup) {
    const n = args.int('releases', 1000);
    const revisions = args.int('records', 3);
    const eventsEach = args.int('events', 2);
    const rate = args.int('rate', 20);
    const seconds = args.int('seconds', 30);
    const loadBefore = loadavgString();
    say(`mcp: N=${n}, ${rate} calls/s for ${seconds} s; load ${loadBefore}`);
    const be = await startBenchEnv(cleanup, args.optional('state-dir'));
    const [entry] = await buildCompiled(join(be.dir, 'build'));
    const kube = makeKubeClients(be.kubeConfig);
    const namespaces = await Promise.all([0, 1, 2, 3].map((i) => createNamespace(be.kubeConfig, `bench-mcp-${i}`)));
    const forgetNs = cleanup.add('delete the bench namespaces', async () => {
      await Promise.all(namespaces.map((ns) => deleteNamespaceFully(be.kubeConfig, ns, 600_000)));
    });
    const team = `bench-mcp-${randomSuffix()}`;
    await createTeam(kube, team, { members: { slackUsers: [BENCH_USER] }, permissions: [{ verbs: ['list', 'status', 'history', 'suspend'] }] });
    cleanup.add(`delete Team ${team}`, () => deleteTeam(kube, team));
    const seedStarted = Date.now();
    await seedReleases(kube, namespaces, n);
    await seedHelmHistory(kube, namespaces, n, revisions, eventsEach);
    say(`  ${n} HelmReleases, ${n * revisions} helm records, ${n * eventsEach} Events seeded in ${((Date.now() - seedStarted) / 1000).toFixed(1)}s`);

    // As the image runs it (Dockerfile ENV), as bench web does; --node-options "" for V8's defaults.
    const imageEnv = imageProcessEnv(args.optional('node-options'));
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      ...imageEnv,
      REDIS_URL: be.env.redisUrl,
      KUBECONFIG: be.env.kubeconfig,
      HELMCREW_QUEUE_PREFIX: `bench-mcp-${randomSuffix()}`,
      HELMCREW_WEB_LISTEN: `127.0.0.1:${port}`,
      HELMCREW_WEB_URL: base,
      // Never asked: /mcp takes Bearer tokens, not sign-ins.
      HELMCREW_OIDC_ISSUER_URL: 'http://127.0.0.1:9/',
      HELMCREW_OIDC_CLIENT_ID: 'bench',
      HELMCREW_OIDC_CLIENT_SECRET: 'bench-not-a-secret',
      LOG_LEVEL: 'warn',
    };
    // --cpu-prof DIR: the web process writes a V8 CPU profile there when it stops (where a call's time goes).
    const profile = args.optional('cpu-prof');
    const child = spawn(process.execPath, [...(profile ? ['--cpu-prof', '--cpu-prof-dir', profile] : []), entry!, 'web'], {
      env,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    cleanup.add(`stop web ${child.pid}`, async () => void child.kill('SIGTERM'));
    const redis = new Redis(be.env.redisUrl);
    cleanup.add('close redis', async () => void redis.disconnect());
    const tokens = new TokenStore(redis, readSessionConfig(env).keyPrefix);
    for (let tries = 0; ; tries++) {
      const probe = await fetch(`${base}/healthz`).catch(() => undefined);
      if (probe?.status === 200) break;
      if (tries > 300) throw new Error('the web process did not answer /healthz');
      await sleep(100);
    }
    // The web process answers once its shared watch has listed: its RSS before any call (the MCP SDK and the assistants' watches not started yet).
    await sleep(2000);
    const rssBeforeCalls = await rssMiB(child.pid!);

    // One SDK client per token, enough tokens for the rate.
    const total = rate * seconds;
    const tokenCount = Math.max(1, Math.ceil((rate * 60) / CALLS_PER_TOKEN_MINUTE));
    const clients: Client[] = [];
    for (let i = 0; i < tokenCount; i++) {
      const { token } = await tokens.create(BENCH_USER, 'read', 3_600_000);
      const client = new Client({ name: 'helmcrew-bench', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
      clients.push(client);
    }
    cleanup.add('close the MCP clients', async () => void (await Promise.all(clients.map((c) => c.close().catch(() => undefined)))));
    const argsFor = (tool: Tool, i: number) => {
      const k = (i * 7919) % n;
      const release = { namespace: namespaces[k % namespaces.length]!, name: seededName(k) };
      if (tool === 'list_releases') return { namespace: namespaces[i % namespaces.length]!, state: i % 2 ? 'failed' : 'ready' };
      if (tool === 'plan_diff') return { verb: 'suspend', ...release };
      return release;
    };
    const call = async (i: number) => {
      const tool = TOOLS[i % TOOLS.length]!;
      const started = performance.now();
      const result = await clients[i % clients.length]!.callTool({ name: tool, arguments: argsFor(tool, i) });
      const text = (result.content as { text?: string }[]).map((c) => c.text ?? '').join('\n');
      return { tool, ms: performance.now() - started, error: result.isError ? text.slice(0, 160) : undefined };
    };
    // Warm-up (the JIT; the assistants' watches of helm's records and of Events, which the first call
    // starts): rounds of every tool, not measured, until a round reads nothing from the API server — the
    // watches have listed (at most 30 rounds).
    const auditLog = statePaths(be.env.stateDir).auditLog;
    for (let round = 0; ; round++) {
      const from = (await readFile(auditLog)).length;
      for (let i = 0; i < TOOLS.length * 2; i++) {
        const warm = await call(i);
        if (warm.error) throw new Error(`${warm.tool} answered an error: ${warm.error}`);
      }
      await sleep(1000);
      if ((await auditedReads(auditLog, from)).length === 0 || round >= 30) break;
    }
    await sleep(1000);
    const rssListed = await rssMiB(child.pid!);

    const auditFrom = (await readFile(auditLog)).length;
    const countsBefore = readApiRequests(be.env.kubectlBin, be.env.kubeconfig);
    const t0 = performance.now();
    const pending: Promise<Awaited<ReturnType<typeof call>>>[] = [];
    for (let i = 0; i < total; i++) {
      const due = t0 + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      pending.push(call(i));
    }
    const results = await Promise.all(pending);
    const elapsed = (performance.now() - t0) / 1000;
    await sleep(500);
    const countsAfter = readApiRequests(be.env.kubectlBin, be.env.kubeconfig);
    const rssAfter = await rssMiB(child.pid!);
    const reads = await auditedReads(auditLog, auditFrom);
    const counter = [...diffCounts(countsBefore, countsAfter)].sort((a, b) => b[1] - a[1]);

    const rows = TOOLS.map((tool) => {
      const mine = results.filter((r) => r.tool === tool);
      const ms = mine.map((r) => r.ms);
      return { tool, calls: mine.length, errors: mine.filter((r) => r.error).length, p50: pct(ms, 0.5), p99: pct(ms, 0.99), max: Math.max(...ms) };
    });
    for (const r of rows) say(`  ${r.tool}: ${r.calls} calls, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, ${r.errors} errors`);
    const firstError = results.find((r) => r.error);
    say(
      `  ${reads.length} reads in the API server's audit log during the calls; web RSS ${rssBeforeCalls.toFixed(1)} / ${rssListed.toFixed(1)} / ${rssAfter.toFixed(1)} MiB`,
    );

    for (const client of clients) await client.close().catch(() => undefined);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    await deleteTeam(kube, team);
    await Promise.all(namespaces.map((ns) => deleteNamespaceFully(be.kubeConfig, ns, 600_000)));
    forgetNs();

    const lines = [
      `## mcp: ${rate} read tool calls a second for ${seconds} s at ${n} releases`,
      '',
      '```',
      `${formatFacts({ ...machineFacts(be.env.helmBin), loadavg: loadBefore })}`,
      `load after:  ${loadavgString()}`,
      `code:        ${currentCommit()}`,
      `command:     npm run bench -- mcp ${args.raw.join(' ')}`.trimEnd(),
      `web env:     ${formatEnv(imageEnv)}`,
      '```',
      '',
      `${total} calls sent open-loop over ${elapsed.toFixed(1)} s by ${tokenCount} SDK clients (one token each: a token may make 60 calls a minute), one person (a Team granting list, status, history, suspend everywhere). Each release has ${revisions} helm records and ${eventsEach} Events about it.`,
      '',
      '| tool | calls | errors | p50 | p99 | max | target |',
      '|---|---|---|---|---|---|---|',
      ...rows.map(
        (r) => `| \`${r.tool}\` | ${r.calls} | ${r.errors} | ${r.p50.toFixed(1)} ms | ${r.p99.toFixed(1)} ms | ${r.max.toFixed(1)} ms | p99 < 100 ms |`,
      ),
      '',
      '| measure | value | target |',
      '|---|---|---|',
      `| API server reads in its audit log during the calls (no controller runs: all the web process's) | ${reads.length} (${(reads.length / total).toFixed(2)} per call) | 0 beyond the shared watches |`,
      `| web process RSS: before any call / after the warm-up (the MCP SDK loaded, the assistants' watches listed) / after the calls | ${rssBeforeCalls.toFixed(1)} / ${rssListed.toFixed(1)} / ${rssAfter.toFixed(1)} MiB | < 80 MiB (the web's pages, bench web) |`,
      '',
      `audited reads by verb, resource and client: ${
        tally(reads)
          .map(([k, v]) => `${k} ${v}`)
          .join('; ') || 'none'
      }`,
      '',
      `API server request counter during the calls (every client, the control plane included): ${counter.map(([k, v]) => `${k} ${v}`).join('; ') || 'none'}`,
      ...(firstError ? ['', `first error: ${firstError.tool}: ${firstError.error}`] : []),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  },
};
