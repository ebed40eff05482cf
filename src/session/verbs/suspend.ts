import { ConditionType } from '../../api/vocabulary.js';
import { suspendPatch } from '../plan/intents.js';
import type { ReleaseVerbHandler } from './verb-handler.js';

/** `suspend`: the controller stops acting on the release until `resume`; who and why are recorded. */
export const suspend: ReleaseVerbHandler<'suspend'> = {
  plan: ({ release, key, deployedNow, why }) =>
    release.spec.suspend
      ? { title: `suspend ${key}`, lines: [`${key} is already suspended`], warnings: [], doable: false }
      : { title: `suspend ${key}`, lines: [`the controller stops acting on ${key} until resume`, deployedNow, ...why], warnings: [], doable: true },
  intent: ({ command, actor, now }) => suspendPatch(actor, command.reason, now),
  outcome: (release, _requestId, pending, key) => {
    const suspended = release.status?.conditions?.find((c) => c.type === ConditionType.Suspended);
    return suspended?.status === 'True' ? { done: true, succeeded: true, message: `${key}: ${suspended.message}` } : pending;
  },
};
