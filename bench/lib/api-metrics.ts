// The API server's own request counter (apiserver_request_total on /metrics), read before and
// after a phase: every request from every client (the controller, helm, the bench's own polling
// and applies, and the control plane's controllers), by verb and resource. The bench subtracts
// nothing: it reports its own requests next to the totals.
import { execFileSync } from 'node:child_process';

export type Counts = Map<string, number>;

/** `verb resource[/subresource]` → count, summed over codes, groups, versions and scopes. */
export function readApiRequests(kubectlBin: string, kubeconfig: string): Counts {
  const text = execFileSync(kubectlBin, ['--kubeconfig', kubeconfig, 'get', '--raw', '/metrics'], { encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
  const counts: Counts = new Map();
  for (const line of text.split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    const close = line.lastIndexOf('}');
    const labels = Object.fromEntries([...line.slice(line.indexOf('{') + 1, close).matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
    const value = Number(line.slice(close + 1).trim());
    const resource = labels.resource || (labels.subresource ? `/${labels.subresource}` : '(none)');
    const key = `${labels.verb} ${resource}${labels.resource && labels.subresource ? `/${labels.subresource}` : ''}`;
    counts.set(key, (counts.get(key) ?? 0) + value);
  }
  return counts;
}

export function diffCounts(before: Counts, after: Counts): Counts {
  const out: Counts = new Map();
  for (const [key, value] of after) {
    const d = value - (before.get(key) ?? 0);
    if (d > 0) out.set(key, d);
  }
  return out;
}

const READ_VERBS = new Set(['GET', 'LIST', 'WATCH']);

export interface RequestSummary {
  reads: number;
  writes: number;
  /** HelmRelease writes (status included): the steady-state figure of issue 9. */
  helmReleaseWrites: number;
  helmReleaseStatusWrites: number;
  /** The ten largest rows, "verb resource n". */
  top: string[];
  /** Every row of Secrets, "verb secrets n" (Helm's records are Secrets: what the controller reads of them, issue 50). */
  secrets?: string[];
}

export function summarizeRequests(counts: Counts): RequestSummary {
  let reads = 0;
  let writes = 0;
  let helmReleaseWrites = 0;
  let helmReleaseStatusWrites = 0;
  for (const [key, n] of counts) {
    const [verb, resource] = key.split(' ') as [string, string];
    if (READ_VERBS.has(verb)) reads += n;
    else {
      writes += n;
      if (resource.startsWith('helmreleases')) helmReleaseWrites += n;
      if (resource === 'helmreleases/status') helmReleaseStatusWrites += n;
    }
  }
  const top = [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 10)
    .map(([k, n]) => `${k} ${n}`);
  const secrets = [...counts]
    .filter(([k]) => k.split(' ')[1] === 'secrets')
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k} ${n}`);
  return { reads, writes, helmReleaseWrites, helmReleaseStatusWrites, top, secrets };
}
