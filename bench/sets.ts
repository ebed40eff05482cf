// `npm run bench -- all`: the headline benchmarks, each in its own process, one after the other,
// then RESULTS.md generated from their JSON. Small sizes by default, so the set finishes in about
// half an hour on 2 cores; --full runs the sizes the figures in docs/performance.md were taken at.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '../src/dev/paths.js';
import { say } from './lib/say.js';

export interface SetEntry {
  /** The result's name (bench/results/<as>.json). */
  as: string;
  benchmark: string;
  /** Its options in the default (small) run, and with --full. */
  small: string[];
  full: string[];
}

export const HEADLINE: SetEntry[] = [
  // Install and upgrade bursts against the strict helm floor; single-change latency; the steady state.
  { as: 'burst', benchmark: 'burst', small: ['--releases', '20', '--rest-seconds', '60'], full: ['--releases', '100'] },
  // At rest at scale: one real install copied to N records, adopted; 0 helm, 0 writes, CPU per full resync.
  {
    as: 'at-rest',
    benchmark: 'burst',
    small: ['--releases', '200', '--seeded', '--rest-seconds', '90'],
    full: ['--releases', '1000', '--seeded', '--rest-seconds', '130'],
  },
  { as: 'ack-latency', benchmark: 'ack-latency', small: ['--rate', '20', '--seconds', '10'], full: ['--rate', '20', '--seconds', '30'] },
  {
    as: 'notify-latency',
    benchmark: 'notify-latency',
    small: ['--releases', '20', '--teams', '4', '--changes', '2', '--seconds', '20'],
    full: ['--releases', '100', '--teams', '10', '--changes', '3', '--seconds', '40'],
  },
];

/**
 * The fleet set (issue 32): agents of C clusters on one Redis, and one controller driving T target
 * clusters. Its results are kept apart (bench/results/fleet/), one commit of their own, and
 * RESULTS.md shows them as a part of their own, so the headline set need not run again with them.
 */
export const FLEET: SetEntry[] = [
  {
    as: 'fleet',
    benchmark: 'fleet',
    small: ['--clusters', '3', '--releases', '50', '--rest-seconds', '70', '--command-seconds', '20'],
    full: ['--clusters', '5', '--releases', '200', '--rest-seconds', '90', '--rate', '10', '--command-seconds', '30'],
  },
  {
    as: 'fleet-hub',
    benchmark: 'fleet-hub',
    small: ['--targets', '2', '--releases', '100', '--installs', '10', '--rest-seconds', '70'],
    full: ['--targets', '5', '--releases', '500', '--installs', '50', '--rest-seconds', '90'],
  },
];

/**
 * At rest at scale (issue 36): N in-sync seeded releases on one replica, and what the settled
 * checks' memory costs per release. Kept apart (bench/results/rest-scale/) like the fleet set.
 */
export const REST_SCALE: SetEntry[] = [
  {
    as: 'at-rest-scale',
    benchmark: 'burst',
    small: ['--releases', '1000', '--seeded', '--skip', 'floor,upgrade,latency', '--rest-seconds', '90'],
    full: ['--releases', '10000', '--seeded', '--skip', 'floor,upgrade,latency', '--rest-seconds', '150'],
  },
  { as: 'settled-memory', benchmark: 'settled-memory', small: ['--releases', '1000'], full: ['--releases', '10000'] },
];

/**
 * Image watching at rest (issue 35): N releases keeping R image repositories current behind
 * spec.approval. Kept apart (bench/results/image-rest/), quoted in docs, like rest-scale.
 */
export const IMAGE_REST: SetEntry[] = [
  {
    as: 'image-rest',
    benchmark: 'image-rest',
    small: ['--releases', '40', '--repositories', '4', '--rest-seconds', '40'],
    full: ['--releases', '200', '--repositories', '20', '--rest-seconds', '60'],
  },
];

/** The sets `all --set NAME` runs; `dir`: where under bench/results/ their results are kept (none: bench/results/ itself). */
/** `inReport: false`: kept in its folder and quoted in docs, not in RESULTS.md (which stays under 250 lines). */
export const SETS: Record<string, { entries: SetEntry[]; dir?: string; title?: string; inReport?: false }> = {
  headline: { entries: HEADLINE },
  fleet: { entries: FLEET, dir: 'fleet', title: 'Fleet (issue 32): agents on one Redis, and one controller over target clusters' },
  'rest-scale': { entries: REST_SCALE, dir: 'rest-scale', title: 'At rest at scale (issue 36): settled checks without a LIST', inReport: false },
  'image-rest': { entries: IMAGE_REST, dir: 'image-rest', title: 'Image watching at rest (issue 35)', inReport: false },
};

export const SET_USAGE = [
  'usage: npm run bench -- all [--set headline|fleet|rest-scale|image-rest] [--only burst,at-rest,ack-latency,notify-latency] [--full] [--note TEXT] [--results DIR]',
  '  the headline benchmarks (or --set fleet: bench/results/fleet/) one after the other, each writing bench/results/<name>.json, then bench/RESULTS.md',
  ...HEADLINE.map((e) => `  ${e.as.padEnd(15)} npm run bench -- ${e.benchmark} ${e.small.join(' ')}   (--full: ${e.full.join(' ')})`),
  '  --set fleet:',
  ...FLEET.map((e) => `  ${e.as.padEnd(15)} npm run bench -- ${e.benchmark} ${e.small.join(' ')}   (--full: ${e.full.join(' ')})`),
  '  --set rest-scale:',
  ...REST_SCALE.map((e) => `  ${e.as.padEnd(15)} npm run bench -- ${e.benchmark} ${e.small.join(' ')}   (--full: ${e.full.join(' ')})`),
  '  --set image-rest:',
  ...IMAGE_REST.map((e) => `  ${e.as.padEnd(15)} npm run bench -- ${e.benchmark} ${e.small.join(' ')}   (--full: ${e.full.join(' ')})`),
];

/** The command lines `all` runs, in order. Pure. */
export function setCommands(only: string[], full: boolean, passOn: string[], set = 'headline'): string[][] {
  const entries = SETS[set]?.entries;
  if (!entries) throw new Error(`--set: no such set: ${set} (${Object.keys(SETS).join(', ')})`);
  const unknown = only.filter((name) => !entries.some((e) => e.as === name));
  if (unknown.length) throw new Error(`--only: no such ${set} benchmark: ${unknown.join(', ')}`);
  return entries
    .filter((e) => only.length === 0 || only.includes(e.as))
    .map((e) => [e.benchmark, ...(e.as === e.benchmark ? [] : ['--as', e.as]), ...(full ? e.full : e.small), ...passOn]);
}

/** Runs each command as `tsx bench/main.ts …`, in its own process; returns the names that failed. */
export async function runSet(commands: string[][]): Promise<string[]> {
  const failed: string[] = [];
  const tsx = join(REPO_ROOT, 'node_modules', '.bin', 'tsx');
  for (const argv of commands) {
    say(`all: npm run bench -- ${argv.join(' ')}`);
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(tsx, [join(REPO_ROOT, 'bench', 'main.ts'), ...argv], { stdio: ['ignore', 'inherit', 'inherit'], cwd: REPO_ROOT });
      child.on('error', reject);
      child.on('exit', (status) => resolve(status));
    });
    if (code !== 0) failed.push(argv.join(' '));
  }
  return failed;
}
