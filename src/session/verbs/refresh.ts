import { REQUESTED_AT_ANNOTATION } from '../../api/annotations.js';
import type { ReleaseVerbHandler } from './verb-handler.js';

/** `refresh`: reconcile now (Flux's `flux reconcile hr`), once per request id; recorded in status.lastHandledReconcileAt. */
export const refresh: ReleaseVerbHandler<'refresh'> = {
  plan: ({ key, deployedNow, why }) => ({
    title: `refresh ${key}`,
    lines: [deployedNow, 'the controller checks the release now instead of at its next interval; helm runs only if something changed', ...why],
    warnings: [],
    doable: true,
  }),
  intent: ({ requestId }) => ({ metadata: { annotations: { [REQUESTED_AT_ANNOTATION]: requestId! } } }),
  outcome: (release, requestId, pending, key) =>
    release.status?.lastHandledReconcileAt === requestId ? { done: true, succeeded: true, message: `${key}: checked` } : pending,
};
