import { IdentityClients } from '../../../core/kube/identity.js';
import type { ControllerContext } from './context.js';

/** The parts a context is built from; the identities default to the controller's own clients, the clock to the wall clock. */
export type ContextParts = Omit<ControllerContext, 'identities' | 'now'> & Partial<Pick<ControllerContext, 'identities' | 'now'>>;

/**
 * The one way a reconcile context is made: by the controller (controller.ts), the benches and the
 * tests alike. Frozen: every part is known when it is built, and nothing is added or swapped later.
 */
export function buildReconcileContext(parts: ContextParts): Readonly<ControllerContext> {
  return Object.freeze({
    ...parts,
    identities: parts.identities ?? new IdentityClients(parts.kube),
    now: parts.now ?? (() => new Date()),
  });
}
