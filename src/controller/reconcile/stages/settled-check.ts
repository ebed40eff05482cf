import type { HelmRelease } from '../../../api/helmrelease.js';
import { driftCheckWanted, pendingDriftCorrection } from '../../drift/drift-decision.js';
import { driftMode } from '../../drift/drift-schedule.js';
import { needsManifest } from '../decide/settled-records.js';

/**
 * Does this release's settled check read its records' manifests (drift wanted, or a handover)?
 * Then it reads them each time: no remembered history stands for its read, and none is kept for it.
 */
export function checkNeedsManifest(release: HelmRelease): boolean {
  return needsManifest(release, driftCheckWanted(driftMode(release.spec), pendingDriftCorrection(release)));
}
