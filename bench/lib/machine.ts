// The facts every report starts with: date, machine, load, versions and the commit measured.
import { execFileSync } from 'node:child_process';
import { availableParallelism, cpus, freemem, loadavg, totalmem } from 'node:os';
import { ETCD_VERSION, HELM_VERSION, K8S_VERSION, KWOK_VERSION, REPO_ROOT } from '../../src/dev/paths.js';

export interface MachineFacts {
  date: string;
  nproc: number;
  cpuModel: string;
  memTotalMiB: number;
  memFreeMiB: number;
  loadavg: string;
  node: string;
  helm: string;
  kubernetes: string;
  etcd: string;
  kwok: string;
  commit: string;
}

export function loadavgString(): string {
  return loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
}

/** The code a run measures: `--ref`'s commit when one is given, else the checkout's (currentCommit). */
export function measuredCode(ref: string | undefined): string {
  return ref ? `${execFileSync('git', ['-C', REPO_ROOT, 'rev-parse', '--short', ref], { encoding: 'utf8' }).trim()} (--ref ${ref})` : currentCommit();
}

/** Short commit of the checkout, noting uncommitted changes under src/ (the code a controller runs). */
export function currentCommit(): string {
  try {
    let commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
    if (dirty) commit += ' (src/ has uncommitted changes)';
    return commit;
  } catch {
    return 'unknown';
  }
}

export function machineFacts(helmBin?: string): MachineFacts {
  let helm = HELM_VERSION;
  if (helmBin) {
    try {
      helm = execFileSync(helmBin, ['version', '--short'], { encoding: 'utf8' }).trim();
    } catch {
      // keep the pinned version
    }
  }
  return {
    date: new Date().toISOString(),
    nproc: availableParallelism(),
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memTotalMiB: Math.round(totalmem() / 2 ** 20),
    memFreeMiB: Math.round(freemem() / 2 ** 20),
    loadavg: loadavgString(),
    node: process.version,
    helm,
    kubernetes: K8S_VERSION,
    etcd: ETCD_VERSION,
    kwok: KWOK_VERSION,
    commit: currentCommit(),
  };
}

export function formatFacts(f: MachineFacts): string {
  return [
    `date:        ${f.date}`,
    `machine:     nproc=${f.nproc}, ${f.cpuModel}, memory ${f.memTotalMiB} MiB total / ${f.memFreeMiB} MiB free`,
    `load avg:    ${f.loadavg} (1/5/15 min) at start`,
    `versions:    node ${f.node}, helm ${f.helm}, kube-apiserver ${f.kubernetes}, etcd ${f.etcd}, kwok ${f.kwok}`,
    `commit:      ${f.commit}`,
  ].join('\n');
}
