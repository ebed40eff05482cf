import { ConditionType } from '../../api/vocabulary.js';
import { correctDriftPatch } from '../plan/intents.js';
import type { ReleaseVerbHandler } from './verb-handler.js';

/** `correct`: put drifted objects back to what Helm last applied, now, once per request id (status.lastDriftCorrection). */
export const correct: ReleaseVerbHandler<'correct'> = {
  plan: ({ release, history, key, why }) => {
    const deployed = history.deployed;
    const drifted = release.status?.conditions?.find((c) => c.type === ConditionType.Drifted && c.status === 'True');
    if (!deployed) return { title: `correct ${key}`, lines: [`nothing is deployed for ${key}`], warnings: [], doable: false };
    if (release.spec.suspend) return { title: `correct ${key}`, lines: [`${key} is suspended: resume it first`], warnings: [], doable: false };
    return {
      title: `correct drift of ${key}`,
      lines: [
        drifted ? drifted.message : 'no drift reported yet: the controller looks now and re-applies whatever differs',
        `the drifted objects get revision ${deployed.revision}'s manifest again (server-side apply as helm; no new revision, ignored fields kept)`,
        ...why,
      ],
      warnings: [],
      doable: true,
    };
  },
  intent: ({ requestId }) => correctDriftPatch(requestId!),
  outcome: (release, requestId, pending, key) => {
    const record = release.status?.lastDriftCorrection;
    if (!record || record.requestId !== requestId) return pending;
    return { done: true, succeeded: record.succeeded, message: `${key}: ${record.message}` };
  },
  audit: (_command, key) => `drift correction of ${key}`,
};
