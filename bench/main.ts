// The benchmarks' one entry point:
//
//   npm run bench                          the list, one line each
//   npm run bench -- <name> --help         a benchmark's options; runs nothing
//   npm run bench -- <name> [options]      runs it: progress on stderr, a Markdown report on stdout
//
// Each benchmark brings up its own environment under /tmp (or re-uses --state-dir) and takes down
// what it started on success, failure, Ctrl-C or its --max-seconds limit. Results: bench/RESULTS.md.
import { COMMON_USAGE, parseBenchArgs } from './lib/args.js';
import type { Benchmark } from './lib/benchmark.js';
import { runBench } from './lib/cleanup.js';

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
  'slack-latency': { summary: "event → Slack API call latency against the local fake Slack and Slack's rate limits", load: () => import('./slack-latency.js') },
};

function list(): string {
  const width = Math.max(...Object.keys(BENCHMARKS).map((name) => name.length));
  return [
    'usage: npm run bench -- <name> [options]   (--help after a name: its options)',
    '',
    ...Object.entries(BENCHMARKS).map(([name, entry]) => `  ${name.padEnd(width)}  ${entry.summary}`),
    '',
    'Results and the commands that produced them: bench/RESULTS.md',
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
  await runBench(name, maxSeconds, (cleanup) => benchmark.run(args, cleanup));
}

await main(process.argv.slice(2));
