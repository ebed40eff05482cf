import { DRIFT_CORRECTION_REQUEST_ANNOTATION } from '../../api/annotations.js';
import type { HelmRelease } from '../../api/helmrelease.js';
import type { CorrectionResult, DriftReport, ObjectDrift } from './drift-detector.js';
import type { DriftMode } from './drift-schedule.js';

/** Pure decisions and words about drift; drift-detector.ts does the reading and applying. */

/** A "Correct now" asked for (the annotation) and not handled yet (status.lastDriftCorrection). */
export function pendingDriftCorrection(release: HelmRelease): string | undefined {
  const id = release.metadata.annotations?.[DRIFT_CORRECTION_REQUEST_ANNOTATION];
  if (!id) return undefined;
  return release.status?.lastDriftCorrection?.requestId === id ? undefined : id.slice(0, 100);
}

/** Is a check wanted at all? Disabled releases cost nothing unless a person asked for a correction. */
export function driftCheckWanted(mode: DriftMode, request: string | undefined): boolean {
  return mode !== 'disabled' || request !== undefined;
}

export type DriftAction = 'none' | 'report' | 'correct';

/** What the check's findings call for: `enabled` and a person's request correct; `warn` reports. */
export function decideDrift(mode: DriftMode, report: Pick<DriftReport, 'drifted'>, request: string | undefined): DriftAction {
  if (report.drifted.length === 0) return 'none';
  if (mode === 'enabled' || request !== undefined) return 'correct';
  return mode === 'warn' ? 'report' : 'none';
}

const MAX_MESSAGE = 3000;

function describeOne(drift: ObjectDrift): string {
  return drift.missing ? `${drift.object} (deleted)` : `${drift.object} (${drift.fields.join(', ')})`;
}

/** "2 objects differ from revision 3: Deployment web/unicorn (/spec/replicas); ConfigMap web/page (deleted)". */
export function describeDrift(drifted: readonly ObjectDrift[], revision: number): string {
  const head = `${drifted.length} ${drifted.length === 1 ? 'object differs' : 'objects differ'} from revision ${revision}: `;
  return bounded(head + drifted.map(describeOne).join('; '));
}

export function describeCorrection(result: CorrectionResult, revision: number): string {
  const parts: string[] = [];
  if (result.corrected.length > 0) parts.push(`Re-applied revision ${revision} to ${result.corrected.map(describeOne).join('; ')}`);
  if (result.failed.length > 0) parts.push(`could not correct ${result.failed.map((f) => `${f.object}: ${f.error}`).join('; ')}`);
  return bounded(parts.join('; ') || `Nothing to correct in revision ${revision}`);
}

function bounded(text: string): string {
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text;
}
