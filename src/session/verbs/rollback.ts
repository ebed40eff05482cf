import type { StoredRelease } from '../../core/helm-storage/release-storage.js';
import type { HelmRelease } from '../../api/helmrelease.js';
import { PAGED_DIFF_BOUNDS, withinBounds } from '../../core/release/diff-bounds.js';
import { DIFF_BOUNDS, readableDiff } from '../../core/release/readable-diff.js';
import { summarizeReadableDiff } from '../../core/release/readable-diff-text.js';
import { chooseRollbackRevision } from '../../core/release/rollback-decision.js';
import { rollbackPatch } from '../plan/intents.js';
import { diffValues, summarizeValuesDifference } from '../plan/values-diff.js';
import type { ReleaseVerbHandler } from './verb-handler.js';

const describe = (r: StoredRelease) => `revision ${r.revision} (${r.chartName} ${r.chartVersion}${r.appVersion ? `, app ${r.appVersion}` : ''})`;

/** `rollback <release> [to N]`: suspends (so nothing undoes it) and asks the controller for helm rollback, once per request id. */
export const rollback: ReleaseVerbHandler<'rollback'> = {
  plan: ({ command, release, history, key, why }) => {
    const choice = chooseRollbackRevision(history, { id: 'plan', revision: command.revision });
    if (!choice.ok) return { title: `roll back ${key}`, lines: [choice.message], warnings: [], doable: false };
    const { from, to } = choice;
    // The bot cannot read the release's Secrets to hide their values: with any, only paths (and images) are shown.
    const withholdValues = takesSecretValues(release);
    // The web pages through the whole diff; chat shows it within DIFF_BOUNDS (diff-bounds.ts).
    const diff =
      from.manifest !== undefined && to.manifest !== undefined
        ? readableDiff(from.manifest, to.manifest, { withholdValues, limits: PAGED_DIFF_BOUNDS })
        : undefined;
    const objects = diff ? summarizeReadableDiff(withinBounds(diff, DIFF_BOUNDS)) : undefined;
    return {
      title: `roll back ${key}: revision ${from.revision} → ${to.revision}`,
      ...(objects?.rest.length ? { more: objects.rest } : {}),
      ...(diff ? { diff } : {}),
      lines: [
        `${describe(from)} → ${describe(to)}`,
        summarizeValuesDifference(diffValues(from.config, to.config)),
        ...(objects?.lines ?? []),
        ...(objects && withholdValues ? ['values not shown: this release takes values from Secrets (or SOPS)'] : []),
        `${key} is suspended so the controller does not undo it; resume returns to the declared spec (${release.spec.chart.name} ${release.spec.chart.version ?? '(newest)'})`,
        ...why,
      ],
      warnings: [],
      doable: true,
    };
  },
  intent: ({ command, actor, now, requestId }) => rollbackPatch(actor, command.reason, command.revision, requestId!, now),
  outcome: (release, requestId, pending, key) => {
    const record = release.status?.rollback;
    if (!record || record.requestId !== requestId || record.inProgress) return pending;
    return { done: true, succeeded: record.succeeded, message: `${key}: ${record.message}` };
  },
  audit: (command, key) => `rollback of ${key} to ${command.revision ?? 'the previous revision'}`,
};

/** Pure: may the release's rendered objects hold values from Secrets (valuesFrom a Secret, SOPS decryption)? */
export function takesSecretValues(release: HelmRelease): boolean {
  return Boolean(release.spec.decryption) || (release.spec.valuesFrom ?? []).some((ref) => ref.kind === 'Secret');
}
