// Event → Slack API call latency: N releases changing over a period, published with the
// controller's own publisher onto the real queue; a `helmcrew notify` child process with the Slack
// provider (SLACK_BOT_TOKEN / SLACK_API_URL pointed at the local fake Slack on 127.0.0.1) routes and
// delivers; the fake records every call and enforces Slack's limits (chat.postMessage ~1/s per
// channel with a burst of 3, chat.update Tier 3 ≈ 50/min per workspace, 429 + Retry-After).
//
// Scenarios (fresh queue prefix, Teams and fake Slack each): (a) every release in its own channel,
// (b) the releases sharing 10 channels, (c) all in one channel. Each notification's message carries
// a marker (its id), so the bench finds the chat.postMessage / chat.update call that first carried
// that state — a top-level post, an edit, or a thread reply also sent to the channel (seen there
// too); latency = that call's arrival at the fake − the notification's `at`.
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { makeKubeClients, type ClientNodeKubeClients as KubeClients } from '../src/core/kube/client.js';
import { DEFAULT_RATE_LIMITS, startFakeSlack } from '../src/dev/fake-slack/index.js';
import type { ReleaseNotification } from '../src/notify/contract.js';
import { createTeam, deleteTeams } from '../test/support/notify-fixtures.js';
import { createNamespace } from '../src/dev/harness/index.js';
import type { Benchmark } from './lib/benchmark.js';
import type { Cleanup } from './lib/cleanup.js';
import { startBenchEnv, type BenchEnv } from './lib/environment.js';
import { formatFacts, loadavgString, machineFacts } from './lib/machine.js';
import { publishSchedule, startNotifyChild } from './lib/notify-harness.js';
import { say } from './lib/say.js';
import { benchMarker, countCalls, everyEventFloor, firstCarried, limitFloor, type CallCounts } from './lib/slack-calls.js';
import { fmtMs as ms, pct } from './lib/stats.js';

const TOKEN = 'xoxb-bench-slack-latency';
const NAMESPACES = 10;
const UPDATE_TIER = DEFAULT_RATE_LIMITS.methods['chat.update']!;

interface Scenario {
  label: string;
  name: string;
  channels: number;
  releases: number;
  changes: number;
}

interface Outcome {
  scenario: Scenario;
  loadStart: string;
  loadEnd: string;
  published: number;
  operations: number;
  /** Latency of each operation's final state: the first accepted post/update carrying it − `at`. */
  finals: number[];
  /** Latency of every notification that some accepted post/update carried (the rest were coalesced). */
  carried: number[];
  finalsMissing: number;
  /** What the per-channel limit alone (1 message/s, served in order) implies for the finals, each a post or edit and its thread reply. */
  floor: number[];
  /** The same, counting one message per outcome (thread replies left out, as the first runs did). */
  floorNoReplies: number[];
  /** The per-channel floor when the starts are said too (each a message and its reply, before their outcomes). */
  startsFloor: number[];
  /** What chat.update's workspace-wide tier alone implies if every outcome were an edit. */
  updateFloor: number[];
  calls: CallCounts;
  warnLines: number;
  /** Thread replies sent after the last final state reached Slack, and how long after it the last one went. */
  repliesAfterLastFinal: number;
  lastReplyAfterFinalMs: number;
}

async function runScenario(bench: BenchEnv, kube: KubeClients, cleanup: Cleanup, scenario: Scenario, seconds: number, namespaces: string[]): Promise<Outcome> {
  const run = `bench-slack-${Math.random().toString(36).slice(2, 8)}`;
  const channelOf = (r: number) => r % scenario.channels;
  const releaseOf = (r: number) => ({ namespace: namespaces[r % namespaces.length]!, name: `${run}-app-${r}` });
  const slack = await startFakeSlack({ tokens: [TOKEN], channels: Array.from({ length: scenario.channels }, (_, c) => ({ name: `${run}-c${c}` })) });
  const undoSlack = cleanup.add('stop fake Slack', () => slack.stop());
  for (let c = 0; c < scenario.channels; c++) {
    const releases = [];
    for (let r = c; r < scenario.releases; r += scenario.channels) releases.push(`${releaseOf(r).namespace}/${releaseOf(r).name}`);
    await createTeam(kube, run, `${run}-t${c}`, { subscriptions: [{ releases }], channels: [{ slack: `#${run}-c${c}` }] });
  }
  const undoTeams = cleanup.add(`delete Teams of ${run}`, () => deleteTeams(kube, run));
  const notify = await startNotifyChild(bench, cleanup, run, { SLACK_BOT_TOKEN: TOKEN, SLACK_API_URL: slack.apiUrl });

  const loadStart = loadavgString();
  const notifications = scenario.releases * scenario.changes * 2;
  say(
    `${scenario.label} ${scenario.name}: ${scenario.releases} releases × ${scenario.changes} operations (${notifications} notifications) over ${seconds}s, load ${loadStart}`,
  );
  const opts = { releases: scenario.releases, changes: scenario.changes, seconds };
  const marked = (n: ReleaseNotification) => ({ ...n, message: `${n.message} ${benchMarker(n.id)}` });
  const { all, finals } = await publishSchedule(bench, run, opts, releaseOf, marked);

  // Wait until every operation's outcome reached Slack, or a generous limit (one channel at 1/s).
  const finalIds = [...finals.values()].map((n) => n.id);
  const carriedCount = () => {
    const first = firstCarried(slack.calls());
    return finalIds.filter((id) => first.has(id)).length;
  };
  const deadline = Date.now() + Math.max(90_000, (notifications * 1000) / scenario.channels + 60_000);
  while (carriedCount() < finalIds.length && Date.now() < deadline) await sleep(500);
  const lastFinalAt = Math.max(0, ...firstCarried(slack.calls()).values());
  // Thread replies reserve their slot after their post, so they may trail the final states: wait until Slack is quiet.
  let seen = slack.calls().length;
  let quietSince = Date.now();
  while (Date.now() - quietSince < 5000 && Date.now() < deadline + 300_000) {
    await sleep(500);
    if (slack.calls().length !== seen) [seen, quietSince] = [slack.calls().length, Date.now()];
  }
  const replyTimes = slack
    .okCalls('chat.postMessage')
    .filter((c) => c.params.thread_ts)
    .map((c) => c.at);
  const loadEnd = loadavgString();

  const calls = slack.calls();
  const first = firstCarried(calls);
  const latency = (n: ReleaseNotification) => first.get(n.id)! - Date.parse(n.at);
  const releaseIndex = new Map(Array.from({ length: scenario.releases }, (_, r) => [releaseOf(r).name, r]));
  const channelFinals = [...finals.values()].map((n) => ({ channel: channelOf(releaseIndex.get(n.release.name)!), atMs: Date.parse(n.at) }));
  const outcome: Outcome = {
    scenario,
    loadStart,
    loadEnd,
    published: all.length,
    operations: finals.size,
    finals: [...finals.values()].filter((n) => first.has(n.id)).map(latency),
    carried: all.filter((n) => first.has(n.id)).map(latency),
    finalsMissing: finalIds.length - carriedCount(),
    floor: limitFloor(channelFinals, 1, 1, 2),
    floorNoReplies: limitFloor(channelFinals),
    startsFloor: everyEventFloor(
      all.map((n) => ({ channel: channelOf(releaseIndex.get(n.release.name)!), atMs: Date.parse(n.at), final: finalIds.includes(n.id) })),
    ),
    updateFloor: limitFloor(
      [...finals.values()].map((n) => ({ channel: 0, atMs: Date.parse(n.at) })),
      UPDATE_TIER.perSecond,
      UPDATE_TIER.burst,
    ),
    calls: countCalls(calls),
    warnLines: 0,
    repliesAfterLastFinal: replyTimes.filter((at) => at > lastFinalAt).length,
    lastReplyAfterFinalMs: Math.max(0, ...replyTimes) - lastFinalAt,
  };
  await notify.stop();
  outcome.warnLines = readFileSync(notify.logFile, 'utf8')
    .split('\n')
    .filter((line) => /"level":(40|50|60)/.test(line)).length;
  await deleteTeams(kube, run);
  undoTeams();
  await slack.stop();
  undoSlack();
  return outcome;
}

const fmtCounts = (counts: Record<string, number>) =>
  Object.entries(counts)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ') || '0';
const per = (count: number, ops: number) => (count / ops).toFixed(2);

const COLUMNS = [
  'scenario',
  'published / operations',
  'final state p50 / p99 / max',
  'any carried state p50 / p99 (count)',
  'per-channel floor, thread replies counted, p50 / p99 (p99 without them)',
  'measured ÷ floor p50 / p99',
  'floor with the starts said too, p50 / p99 (measured ÷ it, p99)',
  'chat.update tier floor p50 / p99',
  'posts / updates / thread replies (of which also sent to the channel) (per operation)',
  '429s',
  'other errors',
  'thread replies after the last final / last one after it',
  'finals missing',
  'notify warn+ lines',
  'load avg start → end',
];

function row(o: Outcome): string[] {
  const c = o.calls;
  const floor50 = pct(o.floor, 0.5);
  const floor99 = pct(o.floor, 0.99);
  const p50 = pct(o.finals, 0.5);
  const p99 = pct(o.finals, 0.99);
  const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}×` : 'n/a (floor 0)');
  return [
    `${o.scenario.label} ${o.scenario.name}`,
    `${o.published} / ${o.operations}`,
    `${ms(p50)} / ${ms(p99)} / ${ms(Math.max(...o.finals))}`,
    `${ms(pct(o.carried, 0.5))} / ${ms(pct(o.carried, 0.99))} (${o.carried.length})`,
    `${ms(floor50)} / ${ms(floor99)} (${ms(pct(o.floorNoReplies, 0.99))})`,
    `${ratio(p50, floor50)} / ${ratio(p99, floor99)}`,
    `${ms(pct(o.startsFloor, 0.5))} / ${ms(pct(o.startsFloor, 0.99))} (${ratio(p99, pct(o.startsFloor, 0.99))})`,
    `${ms(pct(o.updateFloor, 0.5))} / ${ms(pct(o.updateFloor, 0.99))}`,
    `${c.posts} / ${c.updates} / ${c.replies} (${c.broadcasts}) (${per(c.posts, o.operations)} / ${per(c.updates, o.operations)} / ${per(c.replies, o.operations)})`,
    fmtCounts(c.rateLimited),
    fmtCounts(c.otherErrors),
    `${o.repliesAfterLastFinal} / ${ms(o.lastReplyAfterFinalMs)}`,
    String(o.finalsMissing),
    String(o.warnLines),
    `${o.loadStart} → ${o.loadEnd}`,
  ];
}

export const benchmark: Benchmark = {
  usage: '[--releases 100] [--changes 1] [--seconds 30] [--shared-channels 10] [--only a,b,c]',
  options: {
    releases: { type: 'string' },
    changes: { type: 'string' },
    seconds: { type: 'string' },
    'shared-channels': { type: 'string' },
    only: { type: 'string' },
  },
  maxSeconds: 1500,
  async run(args, cleanup) {
    const releases = args.int('releases', 100);
    const changes = args.int('changes', 1);
    const seconds = args.int('seconds', 30);
    const shared = args.int('shared-channels', 10);
    const only = args.list('only', ['a', 'b', 'c']);
    const facts = machineFacts();
    const bench = await startBenchEnv(cleanup, args.optional('state-dir'));
    const kube = makeKubeClients(bench.kubeConfig);
    const namespaces: string[] = [];
    for (let i = 0; i < NAMESPACES; i++) namespaces.push(await createNamespace(bench.kubeConfig, 'bench-slack'));
    cleanup.add('delete bench namespaces', async () => {
      for (const name of namespaces) await kube.core.deleteNamespace({ name }).catch(() => undefined);
    });
    const scenarios: Scenario[] = [
      { label: '(a)', name: `${releases} releases, each in its own channel`, channels: releases, releases, changes },
      { label: '(b)', name: `${releases} releases sharing ${shared} channels`, channels: shared, releases, changes },
      { label: '(c)', name: `${releases} releases in one channel`, channels: 1, releases, changes },
    ].filter((s) => only.includes(s.label.slice(1, 2)));
    const outcomes: Outcome[] = [];
    for (const scenario of scenarios) outcomes.push(await runScenario(bench, kube, cleanup, scenario, seconds, namespaces));

    const version = (pkg: string) =>
      (JSON.parse(readFileSync(new URL(`../node_modules/${pkg}/package.json`, import.meta.url), 'utf8')) as { version: string }).version;
    return {
      tables: [
        {
          title: `Event → Slack: ${releases} releases, ${changes} operation(s) each over ${seconds} s`,
          columns: COLUMNS,
          rows: outcomes.map(row),
          notes: [
            formatFacts(facts),
            `packages: @slack/web-api ${version('@slack/web-api')}, bullmq ${version('bullmq')}, @kubernetes/client-node ${version('@kubernetes/client-node')}`,
            `Each release runs ${changes} operation(s) (UpgradeStarted → UpgradeSucceeded/Failed 1–3 s later) at random moments of ${seconds} s; releases in ${NAMESPACES} namespaces; notify at its defaults (1 message/s per channel, burst 1; chat.update 45/min, burst 40, for the workspace; an outcome waits at most 2 s for its edit). A state is seen when a post, an edit or a thread reply also sent to the channel carries it. The per-channel floor serves each outcome as a post or edit and its thread reply (two messages a channel carries at 1/s), in the order the outcomes happened; the floor with the starts said too serves every event so, starts and outcomes in the order they happened, and gives the outcomes' latencies.`,
          ],
        },
      ],
      data: outcomes.map((o) => ({ scenario: o.scenario, finals: o.finals, floor: o.floor, updateFloor: o.updateFloor, calls: o.calls })),
    };
  },
};
