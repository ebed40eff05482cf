/**
 * Which chart version a release takes (issue 35), before the repository is asked. Pure.
 * - The version an approved proposal put in effect (status.approvedChart: a chart-version proposal,
 *   a promotion), while spec.chart.version says what it said at approval. When it says something
 *   else, a person (or Git) has spoken since: the approved version gives way.
 * - With spec.approval.required ≥ 1 and a range, the version the release runs, while the range
 *   still allows it: a newer one is proposed, not installed on its own. Nothing runs yet (a first
 *   install), or a range that no longer allows it (the spec changed): the range's newest.
 * - Otherwise the range's newest, or the exact version as written.
 * A chart from Git has no version range: its version is its commit's Chart.yaml's.
 */
import { gt, satisfies, valid, validRange } from 'semver';

export interface ChartChoiceInput {
  /** spec.chart.version: an exact version, a range, or absent (the newest). */
  declared: string | undefined;
  /** spec.chart.git: no versions to choose from. */
  git: boolean;
  /** status.approvedChart. */
  approved?: { version: string; declared?: string } | undefined;
  /** The chart version of the deployed revision, when there is one. */
  running?: string | undefined;
  /** spec.approval.required (0: changes apply on their own). */
  required: number;
}

export type ChartChoice =
  /** What spec.chart.version picks: the range's newest, or the exact version as written. */
  | { kind: 'declared' }
  /** status.approvedChart's version. */
  | { kind: 'approved'; version: string }
  /** The version the release runs: a newer one in the range waits for approvals. */
  | { kind: 'held'; version: string };

export interface ChartChoiceOutcome {
  choice: ChartChoice;
  /** status.approvedChart gave way, and why (the pass drops it). */
  approvedGaveWay?: string;
}

export function chooseChartVersion(input: ChartChoiceInput): ChartChoiceOutcome {
  let approvedGaveWay: string | undefined;
  if (input.approved) {
    const then = input.approved.declared ?? '';
    const now = input.declared ?? '';
    if (input.git) approvedGaveWay = `the chart comes from Git now, which has no versions to choose from; ${input.approved.version} is not pinned`;
    else if (then.trim() !== now.trim())
      approvedGaveWay = `spec.chart.version is ${describe(input.declared)} now, not ${describe(input.approved.declared)} as when ${input.approved.version} was approved`;
    else return { choice: { kind: 'approved', version: input.approved.version } };
  }
  const held = heldVersion(input);
  return { choice: held ? { kind: 'held', version: held } : { kind: 'declared' }, ...(approvedGaveWay ? { approvedGaveWay } : {}) };
}

/** Whether spec.chart.version is a range (absent: any version), not an exact version. */
export function isVersionRange(declared: string | undefined): boolean {
  return !valid(declared?.trim() || '*');
}

function heldVersion(input: ChartChoiceInput): string | undefined {
  if (input.git || input.required < 1 || !input.running) return undefined;
  const range = input.declared?.trim() || '*';
  if (!isVersionRange(range) || !validRange(range) || !valid(input.running)) return undefined;
  // A range that no longer allows what runs was changed by a person (or Git): it is followed.
  return satisfies(input.running, range) ? input.running : undefined;
}

/**
 * The change to propose, when the range allows a newer version than the one in effect: held ones
 * (approval required) and approved ones (a newer version than the approved one; without
 * spec.approval it is proposed approved, and applies on its own). Never for an exact version.
 */
export function chartVersionToPropose(choice: ChartChoice, declared: string | undefined, newest: string | undefined): { from: string; to: string } | undefined {
  if (choice.kind === 'declared' || newest === undefined || !isVersionRange(declared)) return undefined;
  if (!valid(newest) || !valid(choice.version) || !gt(newest, choice.version)) return undefined;
  return { from: choice.version, to: newest };
}

function describe(version: string | undefined): string {
  return version?.trim() ? JSON.stringify(version.trim()) : '(absent: the newest)';
}
