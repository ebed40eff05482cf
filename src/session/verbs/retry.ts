import { ConditionType } from '../../api/vocabulary.js';
import { retryPatch } from '../plan/intents.js';
import type { ReleaseVerbHandler } from './verb-handler.js';

/** `retry`: one forced install or upgrade of the current spec (helmcrew.dev/forceAt), also after a failure. */
export const retry: ReleaseVerbHandler<'retry'> = {
  plan: ({ release, history, key, deployedNow, why }) => {
    if (release.spec.suspend) return { title: `retry ${key}`, lines: [`${key} is suspended: resume it instead`], warnings: [], doable: false };
    const ready = release.status?.conditions?.find((c) => c.type === ConditionType.Ready);
    const failed = release.status?.lastAttemptFailed === true;
    return {
      title: `retry ${key}: one forced ${history.deployed ? 'upgrade' : 'install'} of the current spec`,
      lines: [
        deployedNow,
        failed ? `the last attempt failed: ${ready?.message ?? ''}` : 'the release is not failing: this makes a new revision of the same chart and values',
        'helmcrew.dev/forceAt: the controller runs helm once, even though the spec did not change',
        ...why,
      ],
      warnings: [],
      doable: true,
    };
  },
  intent: ({ requestId }) => retryPatch(requestId!),
  outcome: (release, requestId, pending, key) => {
    // Handled once the controller recorded the value; decided once its forced attempt reported (Reconciling gone).
    const conditions = release.status?.conditions ?? [];
    const ready = conditions.find((c) => c.type === ConditionType.Ready);
    if (release.status?.lastHandledForceAt !== requestId) return pending;
    if (conditions.find((c) => c.type === ConditionType.Reconciling)?.status === 'True' || !ready || ready.status === 'Unknown') return pending;
    return { done: true, succeeded: ready.status === 'True', message: `${key}: ${ready.message}` };
  },
  audit: (_command, key) => `forced retry of ${key}`,
};
