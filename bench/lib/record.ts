// Writes a run's JSON result (bench/results/<name>.json) with what a reader needs to trust it: the
// command, the commit, the machine, its load before and after, the versions and the date.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REPO_ROOT } from '../../src/dev/paths.js';
import { loadavgString, machineFacts } from './machine.js';
import { RESULT_FORMAT, type BenchOutput, type BenchResult } from './result.js';

export const RESULTS_DIR = join(REPO_ROOT, 'bench', 'results');

/** Options that describe where or how a result is kept, not what was measured: left out of its command. */
const NOT_IN_COMMAND = new Set(['--note', '--results', '--state-dir']);

/** The command that runs it again, quoted for a POSIX shell where needed, without --note, --results, --state-dir. */
export function rerunCommand(benchmark: string, argv: string[]): string {
  const kept: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [option] = arg.split('=', 1);
    if (NOT_IN_COMMAND.has(option!)) {
      if (!arg.includes('=')) i++;
      continue;
    }
    kept.push(arg);
  }
  const quote = (a: string) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replaceAll("'", `'\\''`)}'`);
  return ['npm run bench --', benchmark, ...kept.map(quote)].join(' ');
}

export interface RunFacts {
  name: string;
  benchmark: string;
  summary: string;
  argv: string[];
  started: Date;
  loadStart: string;
  /** The checkout's commit when the run started, before it compiles src/: edits made during a long run are not what it measured. */
  commit: string;
  note?: string;
}

export function buildResult(run: RunFacts, output: BenchOutput, now = new Date()): BenchResult {
  const facts = machineFacts();
  return {
    format: RESULT_FORMAT,
    name: run.name,
    benchmark: run.benchmark,
    summary: run.summary,
    command: rerunCommand(run.benchmark, run.argv),
    commit: run.commit,
    date: run.started.toISOString(),
    seconds: Math.round((now.getTime() - run.started.getTime()) / 1000),
    machine: { cpuModel: facts.cpuModel, cores: facts.nproc, memoryMiB: facts.memTotalMiB, loadStart: run.loadStart, loadEnd: loadavgString() },
    versions: { node: facts.node, helm: facts.helm, kubernetes: facts.kubernetes, etcd: facts.etcd, kwok: facts.kwok },
    ...(run.note ? { note: run.note } : {}),
    tables: output.tables,
    ...(output.data !== undefined ? { data: output.data } : {}),
  };
}

/** Writes `<dir>/<name>.json`; returns its path. */
export async function writeResult(result: BenchResult, dir = RESULTS_DIR): Promise<string> {
  await mkdir(dir, { recursive: true });
  const file = join(dir, `${result.name}.json`);
  await writeFile(file, `${JSON.stringify(result, null, 2)}\n`);
  return file;
}
