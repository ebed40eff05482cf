// Event → provider call latency of notify: N releases changing over a period, their notifications
// published with the controller's own publisher onto the real queue, a `helmcrew notify` child
// process routing and delivering them to a local signed-webhook receiver on 127.0.0.1.
//
// Three scenarios, each with a fresh queue prefix and Teams: the releases spread over one channel
// per Team at the default limit of 1 message/s per channel; all releases on one channel (the worst
// case for the limit); and the limit lifted (the pipeline's own cost).
import { setTimeout as sleep } from 'node:timers/promises';
import { makeKubeClients, type ClientNodeKubeClients as KubeClients } from '../src/core/kube/client.js';
import { createSigningSecret, createTeam, deleteTeams, randomKey } from '../test/support/notify-fixtures.js';
import { WebhookReceiver } from '../test/support/webhook-receiver.js';
import { createNamespace } from '../src/dev/harness/index.js';
import type { Benchmark } from './lib/benchmark.js';
import type { Cleanup } from './lib/cleanup.js';
import { startBenchEnv, type BenchEnv } from './lib/environment.js';
import { loadavgString } from './lib/machine.js';
import { publishSchedule, startNotifyChild } from './lib/notify-harness.js';
import { say } from './lib/say.js';
import { fmtMs as ms, pct } from './lib/stats.js';

interface Scenario {
  name: string;
  channels: number;
  ratePerSecond: number;
  releases: number;
  changes: number;
}

interface Outcome {
  scenario: Scenario;
  published: number;
  deliveredRequests: number;
  /** Latency of every accepted request: arrival − the notification's `at`. */
  all: number[];
  /** Latency of each operation's final state (what a reader of the channel ends up seeing). */
  finals: number[];
  finalsMissing: number;
}

async function runScenario(bench: BenchEnv, kube: KubeClients, cleanup: Cleanup, scenario: Scenario, seconds: number): Promise<Outcome> {
  const opts = { releases: scenario.releases, changes: scenario.changes, seconds };
  const run = `bench-notify-${Math.random().toString(36).slice(2, 8)}`;
  const hooks = await createNamespace(bench.kubeConfig, 'hooks');
  cleanup.add(`delete namespace ${hooks}`, async () => {
    await kube.core.deleteNamespace({ name: hooks }).catch(() => undefined);
  });
  const keys: Record<string, string> = {};
  for (let c = 0; c < scenario.channels; c++) keys[`/c${c}`] = randomKey(`c${c}`);
  const receiver = await new WebhookReceiver(keys).start();
  const undoReceiver = cleanup.add('stop webhook receiver', () => receiver.stop());
  const namespaceOf = (r: number) => `${run}-ns${r % scenario.channels}`;
  for (let c = 0; c < scenario.channels; c++) {
    await createSigningSecret(kube, hooks, `c${c}`, keys[`/c${c}`]!);
    await createTeam(kube, run, `${run}-t${c}`, {
      subscriptions: [{ namespaces: [namespaceOf(c)] }],
      channels: [{ webhook: { url: receiver.url(`/c${c}`), secretRef: { namespace: hooks, name: `c${c}` } } }],
    });
  }
  const undoTeams = cleanup.add(`delete Teams of ${run}`, () => deleteTeams(kube, run));

  const notify = await startNotifyChild(bench, cleanup, run, { HELMCREW_NOTIFY_RATE_PER_SECOND: String(scenario.ratePerSecond) });
  say(
    `${scenario.name}: ${opts.releases} releases × ${opts.changes} operations (${opts.releases * opts.changes * 2} notifications) over ${opts.seconds}s, load ${loadavgString()}`,
  );
  const { all, finals } = await publishSchedule(bench, run, opts, (r) => ({ namespace: namespaceOf(r), name: `app-${r}` }));
  const published = all.length;
  // Wait until every operation's final state arrived (or a generous limit).
  const finalIds = new Set([...finals.values()].map((n) => n.id));
  const arrived = () => receiver.requests.filter((r) => r.status === 200 && finalIds.has(r.json.id as string)).length;
  const deadline = Date.now() + Math.max(60_000, (opts.releases * opts.changes * 1000) / scenario.channels / scenario.ratePerSecond + 30_000);
  while (arrived() < finalIds.size && Date.now() < deadline) await sleep(250);

  const accepted = receiver.requests.filter((r) => r.status === 200);
  const latency = (r: (typeof accepted)[number]) => r.at - Date.parse(r.json.at as string);
  const outcome: Outcome = {
    scenario,
    published,
    deliveredRequests: accepted.length,
    all: accepted.map(latency),
    finals: accepted.filter((r) => finalIds.has(r.json.id as string)).map(latency),
    finalsMissing: finalIds.size - arrived(),
  };
  await notify.stop();
  await deleteTeams(kube, run);
  undoTeams();
  await receiver.stop();
  undoReceiver();
  return outcome;
}

export const benchmark: Benchmark = {
  usage: '[--releases 100] [--teams 10] [--changes 3] [--seconds 40]',
  options: { releases: { type: 'string' }, teams: { type: 'string' }, changes: { type: 'string' }, seconds: { type: 'string' } },
  maxSeconds: 900,
  async run(args, cleanup) {
    const releases = args.int('releases', 100);
    const changes = args.int('changes', 3);
    const seconds = args.int('seconds', 40);
    const teams = args.int('teams', 10);
    const bench = await startBenchEnv(cleanup, args.optional('state-dir'));
    const kube = makeKubeClients(bench.kubeConfig);
    const scenarios: Scenario[] = [
      { name: `${releases} releases, ${teams} channels, 1 msg/s each`, channels: teams, ratePerSecond: 1, releases, changes },
      // One channel at 1 msg/s can carry only ~seconds messages: this one is sized to show queueing, not to finish in an hour.
      { name: `20 releases × 2, 1 channel, 1 msg/s`, channels: 1, ratePerSecond: 1, releases: 20, changes: 2 },
      { name: `${releases} releases, ${teams} channels, limit lifted`, channels: teams, ratePerSecond: 1000, releases, changes },
    ];
    const outcomes: Outcome[] = [];
    for (const scenario of scenarios) outcomes.push(await runScenario(bench, kube, cleanup, scenario, seconds));

    return {
      tables: [
        {
          title: `Event → webhook call: each release runs its operations (Started → Succeeded/Failed 1–3 s later) at random moments of ${seconds} s`,
          columns: ['scenario', 'published', 'delivered (after coalescing)', 'final state p50 / p99 / max', 'any delivery p50 / p99', 'finals missing'],
          rows: outcomes.map((o) => [
            o.scenario.name,
            o.published,
            o.deliveredRequests,
            `${ms(pct(o.finals, 0.5))} / ${ms(pct(o.finals, 0.99))} / ${ms(Math.max(...o.finals))}`,
            `${ms(pct(o.all, 0.5))} / ${ms(pct(o.all, 0.99))}`,
            o.finalsMissing,
          ]),
        },
      ],
      data: outcomes.map((o) => ({
        ...o.scenario,
        published: o.published,
        delivered: o.deliveredRequests,
        finalsMissing: o.finalsMissing,
        finalsMs: o.finals,
        allMs: o.all,
      })),
    };
  },
};
