// The benchmarks' one entry point:
//
//   npm run bench                          the list, one line each
//   npm run bench -- <name> --help         a benchmark's options; runs nothing
//   npm run bench -- <name> [options]      runs it: progress on stderr, a Markdown report on stdout,
//                                          and (headline benchmarks) bench/results/<name>.json
//   npm run bench -- all [--full]          the headline set (sets.ts), then bench/RESULTS.md
//   npm run bench -- all --set fleet       the fleet set, into bench/results/fleet/, then bench/RESULTS.md
//   npm run bench -- report                bench/RESULTS.md from bench/results/*.json
//
// Each benchmark brings up its own environment under /tmp (or re-uses --state-dir) and takes down
// what it started on success, failure, Ctrl-C or its --max-seconds limit. Results: bench/RESULTS.md.
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { COMMON_USAGE, parseBenchArgs } from './lib/args.js';
import type { Benchmark } from './lib/benchmark.js';
import { runBench } from './lib/cleanup.js';
import { currentCommit, loadavgString } from './lib/machine.js';
import { buildResult, RESULTS_DIR, writeResult } from './lib/record.js';
import { renderTable } from './lib/result.js';
import { say } from './lib/say.js';
import { writeReport } from './report.js';
import { runSet, setCommands, SETS, SET_USAGE } from './sets.js';

interface Entry {
  summary: string;
  load: () => Promise<{ benchmark: Benchmark }>;
}

/** Every benchmark, by the name it is run with, and what it measures. */
export const BENCHMARKS: Record<string, Entry> = {
  burst: {
    summary: 'N releases installed and upgraded by helmcrew against `xargs -P4 helm upgrade --install` (the floor); single-change latency; the steady state',
    load: () => import('./burst.js'),
  },
  scale: { summary: 'install and upgrade bursts of 50 releases at controller concurrency 1, 4, 8', load: () => import('./scale.js') },
  'scale-out': { summary: '1, 2, 3 controller processes on one queue: install and upgrade bursts', load: () => import('./scale-out.js') },
  'in-sync-check': {
    summary: "the cost of deciding a release is in sync: helmcrew's reconcile against `helm status` + `helm get values`",
    load: () => import('./in-sync-check.js'),
  },
  'drift-check': {
    summary: 'the drift check per release (API requests, CPU), cold and warm, at N releases; at rest with drift detection off and on',
    load: () => import('./drift-check.js'),
  },
  'api-calls': { summary: 'what one Kubernetes API call costs: connection reuse, a consistent LIST right after a write', load: () => import('./api-calls.js') },
  'helm-env': {
    summary: "one helm process's CPU and memory under Go runtime settings and helm flags (GOGC, --disable-openapi-validation)",
    load: () => import('./helm-env.js'),
  },
  'api-restart': {
    summary: 'the kube-apiserver restarted (SIGTERM or KILL): how soon a spec change made as it comes back is acted on, and the warnings logged',
    load: () => import('./api-restart.js'),
  },
  'import-rss': { summary: 'RSS of node after importing one compiled module (the cost of a module graph)', load: () => import('./import-rss.js') },
  'ack-latency': { summary: 'how fast the /release bot acknowledges signed slash commands arriving at a steady rate', load: () => import('./ack-latency.js') },
  'notify-latency': { summary: 'event → webhook call latency of notify, with the per-channel limit on and lifted', load: () => import('./notify-latency.js') },
  'freeze-rest': {
    summary: 'N in-sync releases at rest without and with F Freezes: API requests per reconciled pass (freezes are watched, not fetched)',
    load: () => import('./freeze-rest.js'),
  },
  'git-rest': {
    summary: 'N in-sync releases on one Git repository at rest: git processes and API requests per interval (one ls-remote per repository)',
    load: () => import('./git-rest.js'),
  },
  'image-rest': {
    summary:
      'N releases watching R image repositories at rest (spec.imageUpdates behind spec.approval): tag lists, digests and tokens per repository per interval, 0 helm and 0 writes; one new tag → proposals',
    load: () => import('./image-rest.js'),
  },
  'verify-rest': {
    summary:
      'N releases of one signed OCI chart with spec.chart.verify (cosign or notation) at rest: signature fetches and cosign/notation processes (expected 0), registry requests by kind, controller CPU',
    load: () => import('./verify-rest.js'),
  },
  fleet: {
    summary:
      'a fleet at rest: C clusters (control planes on loopback) × M releases, one agent each on one Redis: Redis ops/s and memory, agent memory, 0 helm and 0 writes; signed commands at R/s, p50/p99',
    load: () => import('./fleet.js'),
  },
  'fleet-hub': {
    summary:
      'hub mode: one controller with N releases spread over T target clusters (spec.kubeConfig) against N local releases: time, CPU and memory per release',
    load: () => import('./fleet-hub.js'),
  },
  'settled-memory': {
    summary: "the settled checks' memory per release: N remembered histories and the watch of N record Secrets' metadata (no cluster)",
    load: () => import('./settled-memory.js'),
  },
  'manifest-read': {
    summary:
      "the CPU of reading a release's manifest after helm: two parses (inventory, images), one full parse, and the outline (issue 50), on the unicorn and podinfo manifests (no cluster)",
    load: () => import('./manifest-read.js'),
  },
  web: {
    summary:
      'the web pages at N releases (seeded, no helm): the fleet page per request and its size, the web process RSS, S live pages on one release: API requests per change',
    load: () => import('./web.js'),
  },
  mcp: {
    summary:
      "the assistants' read tools at N releases (seeded, no helm): R calls a second over /mcp with Bearer tokens, p50/p99 per tool and the API server reads they cost",
    load: () => import('./mcp.js'),
  },
  'slack-latency': { summary: "event → Slack API call latency against the local fake Slack and Slack's rate limits", load: () => import('./slack-latency.js') },
};

function list(): string {
  const width = Math.max(...Object.keys(BENCHMARKS).map((name) => name.length));
  return [
    'usage: npm run bench -- <name> [options]   (--help after a name: its options)',
    '',
    ...Object.entries(BENCHMARKS).map(([name, entry]) => `  ${name.padEnd(width)}  ${entry.summary}`),
    '',
    '  all     the headline set, then bench/RESULTS.md (npm run bench -- all --help)',
    '  report  bench/RESULTS.md from bench/results/*.json [--results DIR] [--out FILE]',
    '',
    'Results and the commands that produced them: bench/RESULTS.md; how to read them: docs/performance.md',
  ].join('\n');
}

function help(name: string, benchmark: Benchmark): string {
  return [
    `usage: npm run bench -- ${name} ${benchmark.usage}`,
    `  ${BENCHMARKS[name]!.summary}`,
    '',
    'common options:',
    ...COMMON_USAGE.map((line) => `  ${line}`),
    `  (--max-seconds defaults to ${benchmark.maxSeconds} here)`,
  ].join('\n');
}

async function main(argv: string[]): Promise<void> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'list') {
    process.stdout.write(`${list()}\n`);
    return;
  }
  if (name === 'all') return all(rest);
  if (name === 'report') return report(rest);
  const entry = BENCHMARKS[name];
  if (!entry) {
    process.stderr.write(`unknown benchmark "${name}"\n\n${list()}\n`);
    process.exit(2);
  }
  const { benchmark } = await entry.load();
  let args;
  try {
    args = parseBenchArgs(rest, benchmark.options, benchmark.positionals ?? false);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${help(name, benchmark)}\n`);
    process.exit(2);
  }
  if (args.flag('help')) {
    process.stdout.write(`${help(name, benchmark)}\n`);
    return;
  }
  const maxSeconds = args.int('max-seconds', benchmark.maxSeconds);
  if (!/^[a-z0-9][a-z0-9-]*$/.test(args.optional('as') ?? name)) {
    process.stderr.write(`--as: lower-case letters, digits and dashes, got "${args.optional('as')}"\n`);
    process.exit(2);
  }
  const run = {
    name: args.optional('as') ?? name,
    benchmark: name,
    summary: entry.summary,
    argv: rest,
    started: new Date(),
    loadStart: loadavgString(),
    commit: currentCommit(),
    note: args.optional('note'),
  };
  await runBench(name, maxSeconds, async (cleanup) => {
    const output = await benchmark.run(args, cleanup);
    if (!output) return;
    const result = buildResult(run, output);
    process.stdout.write(
      `${[`## ${result.name}`, '', `command: ${result.command}`, `commit ${result.commit}, ${result.machine.cpuModel}, ${result.machine.cores} cores, load ${result.machine.loadStart} → ${result.machine.loadEnd}`, '', ...output.tables.flatMap(renderTable)].join('\n')}\n`,
    );
    say(`result: ${await writeResult(result, args.optional('results') ?? RESULTS_DIR)}`);
  });
}

/** `npm run bench -- all`: the headline set, each in its own process, then RESULTS.md from what was written. */
async function all(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      set: { type: 'string' },
      only: { type: 'string' },
      full: { type: 'boolean' },
      note: { type: 'string' },
      results: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${SET_USAGE.join('\n')}\n`);
    return;
  }
  const set = values.set ?? 'headline';
  const setDir = SETS[set]?.dir;
  const results = values.results ?? (setDir ? join(RESULTS_DIR, setDir) : undefined);
  const passOn = [...(values.note ? ['--note', values.note] : []), ...(results ? ['--results', results] : [])];
  const failed = await runSet(setCommands(values.only?.split(',').filter(Boolean) ?? [], values.full ?? false, passOn, set));
  if (failed.length) say(`all: failed: ${failed.join('; ')} (their earlier results, if any, are left as they were)`);
  if (!values.results) say(`all: ${await writeReport()}`);
  process.exitCode = failed.length ? 1 : 0;
}

async function report(argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { results: { type: 'string' }, out: { type: 'string' } }, strict: true });
  say(`wrote ${await writeReport(values.results ?? RESULTS_DIR, values.out)}`);
}

await main(process.argv.slice(2));
