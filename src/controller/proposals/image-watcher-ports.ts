import type { OpenOutcome } from '../../core/proposals/proposal-store.js';
import type { Proposal } from '../../core/proposals/proposal.js';
import type { ChartAccess } from '../charts/chart-access.js';
import type { OciChartRef } from '../charts/oci-registry.js';

/** What the tag watcher (image-watcher.ts) works on: the proposal store and the registry, and where an image lives. */

/** What the watcher needs of the proposal store (core/proposals/proposal-store.ts). */
export interface ProposalBook {
  open(proposal: Proposal): Promise<OpenOutcome>;
  list(): Promise<Proposal[]>;
  update(id: string, change: (current: Proposal) => Proposal | undefined): Promise<Proposal | undefined>;
  prune(before: number, known?: readonly Proposal[]): Promise<number>;
}

export interface TagLister {
  tags(repository: string, ref: OciChartRef, access: ChartAccess): Promise<string[]>;
  digest(repository: string, ref: OciChartRef, access: ChartAccess, tag: string): Promise<string>;
}

/** Pure: where an image repository (host[:port]/path) lives, in the OCI client's terms. */
export function imageRef(repository: string, insecure: boolean): OciChartRef {
  const slash = repository.indexOf('/');
  const host = repository.slice(0, slash);
  const name = repository.slice(slash + 1);
  return { host, base: `${insecure ? 'http' : 'https'}://${host}`, name, ref: `oci://${repository}` };
}
