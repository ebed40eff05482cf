import type { ProposalStore } from '../../core/proposals/proposal-store.js';
import type { ProposalReads, ProposalWrites } from '../reconcile/ports/context.js';

/** A pass's view of the proposal store (core/proposals/proposal-store.ts): this cluster's approved proposals, opening one, and marking one applied. */
export function proposalPorts(
  store: Pick<ProposalStore, 'list' | 'update' | 'get' | 'open'>,
  cluster: string,
): { reads: ProposalReads; writes: ProposalWrites } {
  return {
    reads: {
      cluster,
      approvedFor: async (namespace, name) =>
        (await store.list()).filter(
          (p) => p.state.phase === 'approved' && p.release.cluster === cluster && p.release.namespace === namespace && p.release.name === name,
        ),
      find: (id) => store.get(id),
    },
    writes: {
      // Compare-and-set: a proposal rejected or already applied meanwhile is left as it is.
      markApplied: (id) =>
        store.update(id, (p) => (p.state.phase === 'approved' ? { ...p, state: { phase: 'applied', approvers: p.state.approvers } } : undefined)),
      open: (proposal) => store.open(proposal),
    },
  };
}
