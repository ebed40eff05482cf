// The web pages at scale: N HelmReleases (seeded objects with a status, no controller and no helm:
// the fleet page reads only the shared watch's memory) served by the compiled `helmcrew web`
// process (real sign-in hook, a session made in Redis as a sign-in would make it). Measured:
// the fleet page `/` — time per request (the client's
// round trip on loopback: server time and a local socket, p50/p99 over R requests) and its size; the web process's RSS (from /proc)
// after the requests; then S open live pages (`/events?page=release`) on one release while the bench
// changes its status C times: the API server's HelmRelease/Secret GETs and LISTs in its audit log
// (no controller runs, so every one is the web's) and the request counter's rows, per change.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { readSharedConfig } from '../src/core/config/env.js';
import { makeKubeClients, mergePatch } from '../src/core/kube/client.js';
import { createNamespace, createTeam, deleteNamespaceFully, deleteTeam, randomSuffix } from '../src/dev/harness/index.js';
import { freePort } from '../src/dev/free-port.js';
import { statePaths } from '../src/dev/paths.js';
import { WebSessionStore } from '../src/web/auth/sessions.js';
import { diffCounts, readApiRequests } from './lib/api-metrics.js';
import type { Benchmark } from './lib/benchmark.js';
import { buildCompiled, buildRef } from './lib/controller-child.js';
import { formatEnv, imageProcessEnv } from './lib/image-env.js';
import { startBenchEnv } from './lib/environment.js';
import { formatFacts, loadavgString, machineFacts, measuredCode } from './lib/machine.js';
import { rssMiB, rssPartsMiB } from './lib/proc-sampler.js';
import { say } from './lib/say.js';
import { coordinates, seedReleases } from './lib/seed-releases.js';
import { seedHelmHistory } from './lib/seed-helm-history.js';
import { pct } from './lib/stats.js';

const BENCH_USER = 'UBENCH';

/** A browser's Accept-Encoding (Chromium's); without it the server answers uncompressed. */
const BROWSER_ENCODINGS = 'gzip, deflate, br, zstd';

function get(url: string, cookie: string, acceptEncoding?: string): Promise<{ status: number; bytes: number; ms: number; encoding?: string }> {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers: { cookie, ...(acceptEncoding ? { 'accept-encoding': acceptEncoding } : {}) } }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, bytes, ms: Number(process.hrtime.bigint() - started) / 1e6, encoding: res.headers['content-encoding'] }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

function openStream(url: string, cookie: string): Promise<{ parts: () => number; close: () => void }> {
  return new Promise((resolve, reject) => {
    let text = '';
    const req = httpRequest(url, { headers: { cookie, accept: 'text/event-stream' } }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('error', () => undefined);
      resolve({ parts: () => text.split('event: part\n').length - 1, close: () => req.destroy() });
    });
    req.on('error', (error) => (text ? undefined : reject(error)));
    req.end();
  });
}

/** How long the live pages stay open and idle after the changes before RSS is read again. */
const SETTLE_MS = 10_000;

async function auditedReads(auditLog: string, from: number): Promise<string[]> {
  const text = (await readFile(auditLog)).subarray(from).toString('utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { verb: string; requestURI: string; userAgent?: string })
    .map((e) => `${e.verb} ${e.requestURI.split('?')[0]!} (${(e.userAgent ?? '').split(' ')[0]!})`);
}

export const benchmark: Benchmark = {
  usage:
    '[--releases 1000] [--requests 50] [--streams 50] [--changes 10] [--records 0] [--events 0] [--node-options "..." (instead of the Dockerfile\'s NODE_OPTIONS)] [--ref <git ref> (compile that commit\'s src/ instead of the checkout)]',
  options: {
    releases: { type: 'string' },
    requests: { type: 'string' },
    streams: { type: 'string' },
    changes: { type: 'string' },
    records: { type: 'string' },
    events: { type: 'string' },
    'node-options': { type: 'string' },
    ref: { type: 'string' },
  },
  maxSeconds: 1200,
  async run(args, cleanup) {
    const n = args.int('releases', 1000);
    const requests = args.int('requests', 50);
    const streams = args.int('streams', 50);
    const changes = args.int('changes', 10);
    // Helm records and Events per release (bench/lib/seed-helm-history.ts): what a live release page's timeline watches hold.
    const revisions = args.int('records', 0);
    const eventsEach = args.int('events', 0);
    const loadBefore = loadavgString();
    say(`web: N=${n}, ${requests} requests, ${streams} live pages, ${changes} changes; load ${loadBefore}`);
    const be = await startBenchEnv(cleanup, args.optional('state-dir'));
    const ref = args.optional('ref');
    const [entry] = ref ? await buildRef(join(be.dir, 'build-ref'), ref) : await buildCompiled(join(be.dir, 'build'));
    const kube = makeKubeClients(be.kubeConfig);
    const namespaces = await Promise.all([0, 1, 2, 3].map((i) => createNamespace(be.kubeConfig, `bench-web-${i}`)));
    const forgetNs = cleanup.add('delete the bench namespaces', async () => {
      await Promise.all(namespaces.map((ns) => deleteNamespaceFully(be.kubeConfig, ns, 600_000)));
    });
    const team = `bench-web-${randomSuffix()}`;
    await createTeam(kube, team, { members: { slackUsers: [BENCH_USER] }, permissions: [{ verbs: ['status', 'list'] }] });
    cleanup.add(`delete Team ${team}`, () => deleteTeam(kube, team));

    // N HelmReleases over 4 namespaces, each with a status as a controller would leave it (a tenth failed).
    const seedStarted = Date.now();
    await seedReleases(kube, namespaces, n);
    if (revisions > 0 || eventsEach > 0) await seedHelmHistory(kube, namespaces, n, revisions, eventsEach);
    say(`  ${n} HelmReleases, ${n * revisions} helm records, ${n * eventsEach} Events seeded in ${((Date.now() - seedStarted) / 1000).toFixed(1)}s`);

    // As the image runs it (Dockerfile ENV: NODE_OPTIONS and glibc's MALLOC_* settings); --node-options "" for V8's defaults.
    const imageEnv = imageProcessEnv(args.optional('node-options'));
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      ...imageEnv,
      REDIS_URL: be.env.redisUrl,
      KUBECONFIG: be.env.kubeconfig,
      HELMCREW_QUEUE_PREFIX: `bench-web-${randomSuffix()}`,
      HELMCREW_WEB_LISTEN: `127.0.0.1:${port}`,
      HELMCREW_WEB_URL: base,
      // Never asked: discovery runs only when a sign-in starts, and the bench's session is made in Redis.
      HELMCREW_OIDC_ISSUER_URL: 'http://127.0.0.1:9/',
      HELMCREW_OIDC_CLIENT_ID: 'bench',
      HELMCREW_OIDC_CLIENT_SECRET: 'bench-not-a-secret',
      LOG_LEVEL: 'warn',
    };
    const child = spawn(process.execPath, [entry!, 'web'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    cleanup.add(`stop web ${child.pid}`, async () => void child.kill('SIGTERM'));
    const redis = new Redis(be.env.redisUrl);
    cleanup.add('close redis', async () => void redis.disconnect());
    const sessions = new WebSessionStore(redis, readSharedConfig(env).queuePrefix, 3600);
    const { id } = await sessions.create({ id: `slack:${BENCH_USER}`, name: '@bench', via: 'slack', subject: { slackUser: BENCH_USER, slackUserGroups: [] } });
    const cookie = `helmcrew-session=${id}`;
    for (let tries = 0; ; tries++) {
      const probe = await get(`${base}/healthz`, cookie).catch(() => undefined);
      if (probe?.status === 200) break;
      if (tries > 300) throw new Error('the web process did not answer /healthz');
      await sleep(100);
    }
    const rssIdle = await rssMiB(child.pid!);

    // The fleet page, until the shared watch has listed every release, then R timed requests one after another.
    for (let tries = 0; ; tries++) {
      const page = await get(`${base}/`, cookie);
      if (page.status !== 200) throw new Error(`GET / answered ${page.status}`);
      const body = await new Promise<string>((resolve, reject) => {
        httpRequest(`${base}/`, { headers: { cookie } }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => resolve(text));
        })
          .on('error', reject)
          .end();
      });
      if (body.includes(`${n} releases`)) break;
      if (tries > 100) throw new Error(`the fleet page never showed ${n} releases`);
      await sleep(200);
    }
    // The HTML as written (a client that accepts no encoding), then R timed requests as a browser asks (compressed).
    const raw = await get(`${base}/`, cookie);
    const timings: number[] = [];
    let wire = { bytes: 0, encoding: undefined as string | undefined };
    for (let i = 0; i < requests; i++) {
      const page = await get(`${base}/`, cookie, BROWSER_ENCODINGS);
      if (page.status !== 200) throw new Error(`GET / answered ${page.status}`);
      timings.push(page.ms);
      wire = { bytes: page.bytes, encoding: page.encoding };
    }
    const rssAfterPages = await rssMiB(child.pid!);
    const sorted = [...timings].sort((a, b) => a - b);
    const p50 = pct(sorted, 0.5);
    const p99 = pct(sorted, 0.99);
    say(
      `  fleet page: p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, ${(raw.bytes / 1024).toFixed(1)} KiB (${(wire.bytes / 1024).toFixed(1)} KiB ${wire.encoding ?? 'uncompressed'}); RSS ${rssIdle.toFixed(1)} → ${rssAfterPages.toFixed(1)} MiB`,
    );

    // S live pages on one release; C status changes, each heard by every page. RSS sampled every 250 ms
    // from here on: the first live page starts the timeline's watches, whose first reads are the peak.
    let rssPeakLive = 0;
    const sampler = setInterval(
      () =>
        void rssMiB(child.pid!).then(
          (v) => (rssPeakLive = Math.max(rssPeakLive, v)),
          () => undefined,
        ),
      250,
    );
    const watched = { namespace: namespaces[1]!, name: 'app-0001' };
    const live = await Promise.all(
      Array.from({ length: streams }, () =>
        openStream(`${base}/events?${new URLSearchParams({ page: 'release', release: `${watched.namespace}/${watched.name}` }).toString()}`, cookie),
      ),
    );
    await sleep(2000);
    const partsBefore = live.map((s) => s.parts());
    const auditLog = statePaths(be.env.stateDir).auditLog;
    const auditFrom = (await readFile(auditLog)).length;
    const countsBefore = readApiRequests(be.env.kubectlBin, be.env.kubeconfig);
    for (let i = 0; i < changes; i++) {
      const message = `Helm upgrade succeeded (bench change ${i})`;
      await kube.custom.patchNamespacedCustomObjectStatus(
        {
          ...coordinates(watched.namespace),
          name: watched.name,
          body: {
            status: {
              conditions: [
                { type: 'Ready', status: i % 2 ? 'True' : 'False', reason: 'UpgradeSucceeded', message, lastTransitionTime: new Date().toISOString() },
              ],
            },
          },
        },
        mergePatch,
      );
      await sleep(1000);
    }
    await sleep(1000);
    const countsAfter = readApiRequests(be.env.kubectlBin, be.env.kubeconfig);
    const reads = await auditedReads(auditLog, auditFrom);
    const heard = live.map((s, i) => s.parts() - partsBefore[i]!);
    const rssStreams = await rssMiB(child.pid!);
    // The same pages, open and idle 10 s later: what the process keeps once V8 has collected what the first reads left.
    await sleep(SETTLE_MS);
    const rssSettled = await rssMiB(child.pid!);
    const settledParts = rssPartsMiB(child.pid!);
    clearInterval(sampler);
    for (const s of live) s.close();
    const counter = [...diffCounts(countsBefore, countsAfter)].sort((a, b) => b[1] - a[1]);
    say(`  ${streams} live pages, ${changes} changes: parts heard per page min ${Math.min(...heard)} max ${Math.max(...heard)}; audited reads ${reads.length}`);

    child.kill('SIGTERM');
    await deleteTeam(kube, team);
    await Promise.all(namespaces.map((ns) => deleteNamespaceFully(be.kubeConfig, ns, 600_000)));
    forgetNs();

    const lines = [
      `## web: the fleet page at ${n} releases${revisions || eventsEach ? ` (${revisions} helm records and ${eventsEach} Events each)` : ''}, ${streams} live pages on one release`,
      '',
      '```',
      `${formatFacts({ ...machineFacts(be.env.helmBin), loadavg: loadBefore })}`,
      `load after:  ${loadavgString()}`,
      `web env:     ${formatEnv(imageEnv)}`,
      `code:        ${measuredCode(ref)}`,
      `command:     npm run bench -- web ${args.raw.join(' ')}`.trimEnd(),
      '```',
      '',
      '| measure | value | target |',
      '|---|---|---|',
      `| fleet page \`/\`, ${n} releases: time per request (client round trip on loopback, ${requests} requests one after another, \`Accept-Encoding: ${BROWSER_ENCODINGS}\`) p50 / p99 | ${p50.toFixed(1)} ms / ${p99.toFixed(1)} ms | < 300 ms |`,
      `| fleet page size: HTML / on the wire (${wire.encoding ?? 'uncompressed'}) | ${(raw.bytes / 1024).toFixed(1)} KiB (${raw.bytes} bytes) / ${(wire.bytes / 1024).toFixed(1)} KiB (${wire.bytes} bytes) | < 200 KB |`,
      `| web process RSS: started and listed / after the ${requests} pages / with ${streams} live pages | ${rssIdle.toFixed(1)} / ${rssAfterPages.toFixed(1)} / ${rssStreams.toFixed(1)} MiB | < 80 MiB |`,
      `| web process RSS with the ${streams} live pages: ${SETTLE_MS / 1000} s later, idle / highest sampled since the first live page (every 250 ms) | ${rssSettled.toFixed(1)} / ${rssPeakLive.toFixed(1)} MiB | < 80 MiB |`,
      `| of which, 10 s later: anonymous (V8's heap, malloc) / file-backed (the node binary's code and ICU data it touched) | ${settledParts.anon.toFixed(1)} / ${settledParts.file.toFixed(1)} MiB | — |`,
      `| ${streams} live pages, ${changes} status changes: parts each page received (min–max) | ${Math.min(...heard)}–${Math.max(...heard)} | ≥ 1 per change that changed its parts |`,
      `| HelmRelease and Secret GETs/LISTs in the API server's audit log during the changes (no controller runs: all the web's) | ${reads.length} (${(reads.length / changes).toFixed(2)} per change) | 0 |`,
      '',
      `API server request counter during the changes (every client: the bench's ${changes} status patches, the control plane): ${counter.map(([k, v]) => `${k} ${v}`).join('; ') || 'none'}`,
      ...(reads.length ? ['', `audited reads: ${reads.slice(0, 20).join('; ')}`] : []),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  },
};
