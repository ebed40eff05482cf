import { QUEUE_NAMES } from '../fleet/cluster-keys.js';

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
      /** The summary for chat (manifest-diff-summary.ts) and what it left out. */
      lines: string[];
      rest: string[];
    }
  | { ok: false; message: string };
