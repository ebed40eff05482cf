// The bot's side of the fleet's command channel, alone in a process of its own (plain node on the
// compiled build, as bench/lib/import-rss.mjs: tsx would add its weight): FleetCommandClient
// (src/core/fleet/command-client.ts) sends signed `suspend` commands, round-robin over the clusters,
// at a steady rate, and times each from its scheduled start to the agent's outcome (its first
// reply). Configured by FLEET_CLIENT (JSON, see bench/fleet.ts); prints one JSON line.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { clearInterval, setInterval } from 'node:timers';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';

const cfg = JSON.parse(process.env.FLEET_CLIENT ?? '{}');
const load = (path) => import(pathToFileURL(join(cfg.dist, path)).href);
const { FleetCommandClient } = await load('core/fleet/command-client.js');
const { newCommand } = await load('core/fleet/command-protocol.js');
const { signCommand } = await load('core/fleet/signed-command.js');
const { suspendPatch } = await load('session/plan/intents.js');
const { Redis } = await import('ioredis');

const kib = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? NaN);
const hwm = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? NaN);
const redis = new Redis(cfg.redisUrl, { maxRetriesPerRequest: null });
const client = new FleetCommandClient(redis, cfg.prefix);
const actor = { id: 'slack:UBENCH' };
const next = Object.fromEntries(cfg.clusters.map((c) => [c.name, 0]));

/** One command to `cluster`'s next release; its latency from `scheduledAt` to the outcome. */
async function one(cluster, scheduledAt) {
  const c = cfg.clusters.find((x) => x.name === cluster);
  const name = c.releases[next[cluster]++ % c.releases.length];
  const command = newCommand(
    { cluster, namespace: c.namespace, name, verb: 'suspend', patch: suspendPatch(actor, 'fleet bench', new Date()), actor: actor.id, reason: 'fleet bench' },
    Date.now(),
  );
  const outcome = await client.send(signCommand(command, c.key), cfg.timeoutMs);
  return { cluster, ms: performance.now() - scheduledAt, ok: outcome.ok, message: outcome.ok ? undefined : outcome.message };
}

const rssStart = kib();
// The first command to each cluster opens its lane (a queue and a QueueEvents connection): timed apart.
const warm = [];
for (const c of cfg.clusters) warm.push(await one(c.name, performance.now()));
const rssAfterWarm = kib();
let rssPeak = rssAfterWarm;
const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, kib())), 250);
const total = Math.round(cfg.rate * cfg.seconds);
const t0 = performance.now() + 100;
const pending = [];
for (let i = 0; i < total; i++) {
  const at = t0 + (i * 1000) / cfg.rate;
  const wait = at - performance.now();
  if (wait > 0) await sleep(wait);
  pending.push(one(cfg.clusters[i % cfg.clusters.length].name, at));
}
const sentInMs = performance.now() - t0;
const results = await Promise.all(pending);
clearInterval(sampler);
const rssEnd = kib();
await client.close();
redis.disconnect();
process.stdout.write(
  `${JSON.stringify({ warm, results, sentInMs, rssKiB: { start: rssStart, afterWarm: rssAfterWarm, peak: Math.max(rssPeak, rssEnd), end: rssEnd, hwm: hwm() } })}\n`,
);
process.exit(0);
