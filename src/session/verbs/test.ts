import { testPatch } from '../plan/intents.js';
import type { ReleaseVerbHandler } from './verb-handler.js';

/** `test`: helm test of the deployed revision, once per request id (status.lastTest); nothing is undone if it fails. */
export const test: ReleaseVerbHandler<'test'> = {
  plan: ({ release, history, key, deployedNow, why }) => {
    const title = `test ${key}`;
    const deployed = history.deployed;
    if (!deployed) return { title, lines: [`nothing is deployed for ${key}`], warnings: [], doable: false };
    if (release.spec.suspend) return { title, lines: [`${key} is suspended: resume it first`], warnings: [], doable: false };
    return {
      title: `test ${key}: helm test of revision ${deployed.revision}`,
      lines: [
        deployedNow,
        "the controller runs the chart's test hooks against the running release once it is in sync (a pending upgrade goes first)",
        'a failure is reported (TestSuccess=False, which hook failed); nothing is rolled back or changed',
        ...why,
      ],
      warnings: [],
      doable: true,
    };
  },
  intent: ({ requestId }) => testPatch(requestId!),
  outcome: (release, requestId, pending, key) => {
    const record = release.status?.lastTest;
    if (!record || record.requestId !== requestId) return pending;
    return { done: true, succeeded: record.succeeded, message: `${key}: ${record.message}` };
  },
};
