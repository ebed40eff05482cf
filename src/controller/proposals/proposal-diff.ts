/**
 * A proposal's plan diff, for its chat message (issue 35): the preview the bot's plans show
 * (preview/compute-preview.ts: the chart resolved and pulled as the release's identity, rendered by
 * `helm --dry-run=server`, compared with the deployed manifest object by object — a Secret only
 * "changed", never its contents, and Secret values redacted from every line), made with the
 * proposal's values over the desired release, as the pass will once it is applied. Bounded, since
 * the record lives in Redis and the message has a size; when no diff can be made, one line says why
 * and the proposal opens all the same.
 */
import type { HelmRelease } from '../../api/helmrelease.js';
import type { Logger } from '../../core/log.js';
import type { PreviewResult } from '../../core/preview/preview-protocol.js';
import type { Proposal } from '../../core/proposals/proposal.js';
import type { DesiredRelease } from '../../core/release/desired-release.js';
import { readableDiffText } from '../../core/release/readable-diff-text.js';
import { parseTargetPath, setAtPath } from '../reconcile/desired/target-path.js';

/** previewRelease (compute-preview.ts) as the diff needs it: a release, and a change to its desired release before rendering. */
export type Previewer = (release: HelmRelease, adjust: (desired: DesiredRelease) => DesiredRelease) => Promise<PreviewResult>;

export interface DiffLimits {
  /** Lines kept, the note on what was cut included. */
  lines: number;
  /** Characters per line (a longer one is cut with …). */
  lineChars: number;
  /** Characters in all (under the message's own limit for the diff, 2800). */
  chars: number;
}

export const DIFF_LIMITS: DiffLimits = { lines: 30, lineChars: 300, chars: 2400 };

/** Pure: the desired release with the proposal's values at their paths (for rendering only: its valuesDigest is left as it was). */
export function withProposedValues(desired: DesiredRelease, proposal: Pick<Proposal, 'values'>): DesiredRelease {
  let values = desired.values;
  for (const change of proposal.values) values = setAtPath(values, parseTargetPath(change.valuesPath), change.to);
  return { ...desired, values };
}

/** Pure: the line a proposal shows when it has no diff. */
export function noDiffLine(why: string, limits: DiffLimits = DIFF_LIMITS): string {
  return cut(`no diff could be made: ${why}`, limits.lineChars);
}

/**
 * Pure: the lines the record keeps — every object with its changed values (the preview's readable
 * diff; from a controller of an earlier version, its summary and the rest), cut to the limits with
 * a note; or why there are none.
 */
export function diffLines(result: PreviewResult, limits: DiffLimits = DIFF_LIMITS): string[] {
  if (!result.ok) return [noDiffLine(result.message, limits)];
  const text = result.diff ? readableDiffText(result.diff) : [...result.lines, ...result.rest];
  const all = text.map((line) => cut(line, limits.lineChars));
  const shown: string[] = [];
  let used = 0;
  for (const [i, line] of all.entries()) {
    const last = i === all.length - 1;
    // Room for this line, and for the note when more lines follow it.
    const fits = shown.length + (last ? 1 : 2) <= limits.lines && used + line.length + 1 + (last ? 0 : NOTE_ROOM) <= limits.chars;
    if (!fits) {
      const more = all.length - i;
      shown.push(`… and ${more} more line${more === 1 ? '' : 's'}, cut to keep the proposal small`);
      break;
    }
    shown.push(line);
    used += line.length + 1;
  }
  return shown;
}

/** The room the note on cut lines takes. */
const NOTE_ROOM = 70;

/**
 * The proposal's diff lines; never throws (an unexpected failure is logged here and named in one
 * line without its details, which may quote the cluster's answers).
 */
export async function proposalDiff(preview: Previewer, release: HelmRelease, proposal: Proposal, log: Logger): Promise<string[]> {
  // A chart-version proposal renders that version, as `/release upgrade <version>` would.
  const subject = proposal.chartVersion
    ? { ...release, spec: { ...release.spec, chart: { ...release.spec.chart, version: proposal.chartVersion.to } } }
    : release;
  try {
    return diffLines(await preview(subject, (desired) => withProposedValues(desired, proposal)));
  } catch (error) {
    log.warn(
      { release: `${release.metadata.namespace}/${release.metadata.name}`, proposalId: proposal.id, error: (error as Error).message },
      'proposal diff: the preview failed',
    );
    return [noDiffLine("the controller could not compute it; the controller's log says why")];
  }
}

function cut(line: string, max: number): string {
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}
