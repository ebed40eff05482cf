import { chartSignatureNote, requiredSignature } from '../../core/release/chart-signature.js';
import { gitOpsWarning } from '../../core/release/gitops-owner.js';
import { upgradePatch } from '../plan/intents.js';
import { previewLines, previewMore } from '../plan/preview-lines.js';
import { generationOutcome } from './generation-outcome.js';
import type { ReleaseVerbHandler } from './verb-handler.js';

/** `upgrade <release> <version>`: spec.chart.version changes; the controller upgrades (on resume, when suspended). */
export const upgrade: ReleaseVerbHandler<'upgrade'> = {
  plan: ({ command, release, preview, key, deployedNow, why }) => {
    const gitops = gitOpsWarning(release);
    return {
      title: `upgrade ${key} to ${command.version}`,
      lines: [
        `spec.chart.version: ${release.spec.chart.version ?? '(newest)'} → ${command.version}`,
        deployedNow,
        ...(release.spec.suspend ? ['the release is suspended: the controller upgrades on resume'] : []),
        ...(requiredSignature(release)
          ? [`${command.version} is installed only if its signature verifies (${requiredSignature(release)}); now: ${chartSignatureNote(release)}`]
          : []),
        ...previewLines(preview),
        ...why,
      ],
      warnings: gitops ? [gitops] : [],
      doable: release.spec.chart.version !== command.version,
      ...previewMore(preview),
    };
  },
  intent: ({ command }) => upgradePatch(command.version),
  outcome: (release, _requestId, pending, key) =>
    release.spec.suspend
      ? { done: true, succeeded: true, message: `${key}: version recorded; the release is suspended, so the controller upgrades on resume` }
      : generationOutcome(release, pending, key),
  audit: (command, key) => `upgrade of ${key} to ${command.version}`,
};
