import { ConditionType } from '../../api/vocabulary.js';
import { resumePatch } from '../plan/intents.js';
import { previewLines, previewMore } from '../plan/preview-lines.js';
import { generationOutcome } from './generation-outcome.js';
import type { ReleaseVerbHandler } from './verb-handler.js';

/** `resume`: back to the declared spec; a pending rollback request is dropped with the suspension. */
export const resume: ReleaseVerbHandler<'resume'> = {
  plan: ({ release, history, preview, key, deployedNow, why }) => {
    if (!release.spec.suspend) return { title: `resume ${key}`, lines: [`${key} is not suspended`], warnings: [], doable: false };
    const deployed = history.deployed;
    const declared = `${release.spec.chart.name} ${release.spec.chart.version ?? '(newest)'}`;
    const differs = deployed && deployed.chartVersion !== release.spec.chart.version;
    return {
      title: `resume ${key}`,
      lines: [
        `back to the declared spec: ${declared}`,
        deployedNow,
        ...(differs ? [`the controller will upgrade ${deployed.chartVersion} → ${release.spec.chart.version}`] : []),
        ...previewLines(preview),
        ...why,
      ],
      warnings: [],
      doable: true,
      ...previewMore(preview),
    };
  },
  intent: () => resumePatch(),
  outcome: (release, _requestId, pending, key) => {
    // Still suspended: the controller has not taken the resume yet.
    if (release.status?.conditions?.some((c) => c.type === ConditionType.Suspended)) return pending;
    return generationOutcome(release, pending, key);
  },
};
