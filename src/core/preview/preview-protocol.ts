import { QUEUE_NAMES } from '../fleet/cluster-keys.js';
import type { ReadableDiff } from '../release/readable-diff.js';

/**
 * What the bot asks the controller when a plan should show what would change, and what it gets
 * back. The controller answers because it alone runs helm, pulls charts with their credentials
 * and acts as a HelmRelease's identity; the question and the answer travel over Redis (BullMQ),
 * which both already use.
 */

export const PREVIEW_QUEUE = QUEUE_NAMES.preview;

export interface PreviewRequest {
  namespace: string;
  name: string;
  /** Render this chart version instead of the one the spec declares (an upgrade plan). */
  version?: string;
}

export type PreviewResult =
  | {
      ok: true;
      /** What is deployed now ("nothing" before the first install). */
      from: string;
      /** What would be deployed: chart and version. */
      to: string;
      /** The summary for chat (readable-diff-text.ts) and what it left out. */
      lines: string[];
      rest: string[];
      /**
       * The same diff per object, bounded more loosely (PAGED_DIFF_BOUNDS: `lines` and `rest` are it
       * within DIFF_BOUNDS), for the web's plan page, which pages through it. Absent in an answer from a controller of an earlier version: `lines` and
       * `rest` are what every version carries.
       */
      diff?: ReadableDiff;
    }
  | { ok: false; message: string };
