// /proc sampling: a process's and its descendants' memory (VmRSS, RssAnon, VmHWM), how many helm
// processes run, and CPU seconds.
import { readFileSync, readdirSync } from 'node:fs';
import { loadavgString } from './machine.js';
import { median } from './stats.js';

function readStatusKb(pid: number, field: 'VmRSS' | 'VmHWM' | 'RssAnon' | 'RssFile'): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

function readComm(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

function childrenOf(pid: number): number[] {
  const out: number[] = [];
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        const text = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim();
        if (text) out.push(...text.split(/\s+/).map(Number));
      } catch {
        // thread gone
      }
    }
  } catch {
    // process gone
  }
  return out;
}

function descendantsOf(pid: number): number[] {
  const all: number[] = [];
  const queue = childrenOf(pid);
  while (queue.length > 0) {
    const next = queue.shift()!;
    all.push(next);
    queue.push(...childrenOf(next));
  }
  return all;
}

/** utime + stime of a process in seconds (clock ticks assumed 100/s, as on Linux x86-64/arm64). */
export function cpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/** CPU seconds of this process's waited-for children (cutime + cstime). */
export function childrenCpuSeconds(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

export interface SampleStats {
  samples: number;
  peakRssKb: number;
  /**
   * The median of the samples' VmRSS: at rest, what the process settles at. The peak of a rest that
   * follows a burst or an adoption is mostly what that left behind, which V8 gives back over the
   * next collections (docs/performance.md, issue 50 third pass).
   */
  medianRssKb: number;
  /** Controller plus every descendant (helm, its bash wrapper) at one instant. */
  peakTreeRssKb: number;
  /**
   * The same tree counting anonymous memory only (RssAnon): the sum of VmRSS counts the helm
   * binary's shared file pages once per process, a cgroup counts them once; this is closer to
   * what a container's memory limit sees (a lower bound: page cache and kernel memory excluded).
   */
  peakTreeAnonKb: number;
  peakHelmProcesses: number;
  meanHelmProcesses: number;
  loadavgAtEnd: string;
}

/** Samples a process every `everyMs`: its VmRSS, its tree's RSS, how many `helm` descendants run. */
export function startSampler(pid: number, everyMs = 250): { stop: () => SampleStats } {
  let samples = 0;
  let peakRssKb = 0;
  let peakTreeRssKb = 0;
  let peakTreeAnonKb = 0;
  let peakHelm = 0;
  let helmSum = 0;
  const rssSamples: number[] = [];
  const sample = () => {
    const rss = readStatusKb(pid, 'VmRSS');
    if (rss === undefined) return;
    let tree = rss;
    let anon = readStatusKb(pid, 'RssAnon') ?? 0;
    let helm = 0;
    for (const child of descendantsOf(pid)) {
      tree += readStatusKb(child, 'VmRSS') ?? 0;
      anon += readStatusKb(child, 'RssAnon') ?? 0;
      if (readComm(child) === 'helm') helm++;
    }
    samples++;
    rssSamples.push(rss);
    peakRssKb = Math.max(peakRssKb, rss);
    peakTreeRssKb = Math.max(peakTreeRssKb, tree);
    peakTreeAnonKb = Math.max(peakTreeAnonKb, anon);
    peakHelm = Math.max(peakHelm, helm);
    helmSum += helm;
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      sample();
      return {
        samples,
        peakRssKb,
        medianRssKb: median(rssSamples),
        peakTreeRssKb,
        peakTreeAnonKb,
        peakHelmProcesses: peakHelm,
        meanHelmProcesses: samples ? helmSum / samples : 0,
        loadavgAtEnd: loadavgString(),
      };
    },
  };
}

export function peakRssOfLifetimeKb(pid: number): number | undefined {
  return readStatusKb(pid, 'VmHWM');
}

/** The process's VmRSS now, in KiB; undefined when it is gone. */
export function currentRssKb(pid: number): number | undefined {
  return readStatusKb(pid, 'VmRSS');
}

/** The process's VmRSS now, in MiB (NaN when it is gone): what the web and MCP benchmarks report. */
export async function rssMiB(pid: number): Promise<number> {
  return (currentRssKb(pid) ?? Number.NaN) / 1024;
}

/** VmRSS split: anonymous memory (heaps) and file-backed pages (the node binary's code and ICU data touched), in MiB. */
export function rssPartsMiB(pid: number): { anon: number; file: number } {
  return { anon: (readStatusKb(pid, 'RssAnon') ?? Number.NaN) / 1024, file: (readStatusKb(pid, 'RssFile') ?? Number.NaN) / 1024 };
}
