import type { ApprovedChartStatus, ApprovedOverrideStatus, HelmReleaseStatus } from '../../api/helmrelease-status.js';

/**
 * The status patch that sets status.approvedOverrides (issue 35) and the images they put in effect
 * (the `kubectl get hcr` column). A merge patch replaces the list whole; `null` clears what is gone.
 */
export function approvedOverridesStatus(entries: ApprovedOverrideStatus[], images: string | undefined): HelmReleaseStatus {
  return {
    approvedOverrides: entries.length ? entries : (null as unknown as undefined),
    approvedImages: images ?? (null as unknown as undefined),
  };
}

/** The status patch that sets status.approvedChart (issue 35), or clears it (`null`) when it gave way. */
export function approvedChartStatus(entry: ApprovedChartStatus | undefined): HelmReleaseStatus {
  return { approvedChart: entry ?? (null as unknown as undefined) };
}
