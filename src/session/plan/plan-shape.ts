import type { ReadableDiff } from '../../core/release/readable-diff.js';

/** What a mutating command will change, in words, before anyone confirms it (plan.ts builds it; the verbs' handlers write its lines). */
export interface Plan {
  /** One line: the action on the release(s). */
  title: string;
  lines: string[];
  warnings: string[];
  /** False when there is nothing to confirm: `lines` say why. */
  doable: boolean;
  /** What a long object diff left out of `lines`: posted in a thread under the plan. */
  more?: string[];
  /** The object diff per object (bounded), for a surface that shows more than chat (the web's plan page). */
  diff?: ReadableDiff;
}
