/**
 * Annotations through which people (the `/release` bot, the terminal, kubectl) ask the
 * controller for something the spec cannot say. The controller honours them through its
 * one-worker-per-release queue, so chat and spec changes never race.
 */

/** JSON `SuspensionRecord`: who suspended the release, why, when, from where. */
export const SUSPENSION_ANNOTATION = 'helmcrew.dev/suspension';
/** "previous" or a revision number: where the requested rollback goes. */
export const ROLLBACK_TO_ANNOTATION = 'helmcrew.dev/rollback-to';
/** Unique per request; the controller records the id it handled in status.rollback, so each request runs once. */
export const ROLLBACK_REQUEST_ANNOTATION = 'helmcrew.dev/rollback-request';
/**
 * JSON `BreakGlassRecord`: two people let one generation of this release through the named
 * freezes (`/release upgrade … --break-glass`). Any later spec change makes it stale.
 */
export const BREAK_GLASS_ANNOTATION = 'helmcrew.dev/break-glass';
/** On a Freeze set from Slack: `<channel id>/<message ts>` of its channel message, updated when it ends (lifted, expired, deleted). */
export const FREEZE_MESSAGE_ANNOTATION = 'helmcrew.dev/slack-message';
/** On a Freeze that ended by itself: when the bot reported its end in that message (so no replica reports it again). */
export const FREEZE_REPORTED_ANNOTATION = 'helmcrew.dev/slack-reported';
/** On a Freeze with windows set from Slack: how long before each window opens its channel is told (`--warn 30m`). */
export const WINDOW_WARNING_ANNOTATION = 'helmcrew.dev/window-warning';
/** Unique per request: correct the drift now (the Slack "Correct now" button); handled once, recorded in status.lastDriftCorrection. */
export const DRIFT_CORRECTION_REQUEST_ANNOTATION = 'helmcrew.dev/correct-drift-request';
/** Unique per request: run the chart's tests on the deployed revision now (`/release test`); handled once, recorded in status.lastTest.requestId. */
export const TEST_REQUEST_ANNOTATION = 'helmcrew.dev/test-request';

/**
 * The handover of a live release another tool installed: `<namespace>/<releaseName>` of the Helm
 * release this HelmRelease takes over at its next upgrade (no uninstall, no reinstall). It must be
 * this HelmRelease's own release, and the tool's marks on it must name the tool's object below.
 */
export const ADOPT_RELEASE_ANNOTATION = 'helmcrew.dev/adopt-release';
/** `<namespace>/<name>` of the Flux HelmRelease that installed the release named above (`helmcrew import flux` writes both). */
export const ADOPT_FROM_FLUX_ANNOTATION = 'helmcrew.dev/adopt-from-flux';
/** Any new value: reconcile now (Flux: reconcile.fluxcd.io/requestedAt); recorded in status.lastHandledReconcileAt. */
export const REQUESTED_AT_ANNOTATION = 'helmcrew.dev/requestedAt';
/** Any new value: one forced install or upgrade, also of a failed spec (Flux: forceAt); recorded in status.lastHandledForceAt. */
export const FORCE_AT_ANNOTATION = 'helmcrew.dev/forceAt';
/** Any new value: the failure counters start again at 0 (Flux: resetAt); recorded in status.lastHandledResetAt. */
export const RESET_AT_ANNOTATION = 'helmcrew.dev/resetAt';

export interface SuspensionRecord {
  /** "slack:U0123" or "kube:alice". */
  by: string;
  reason?: string;
  /** ISO time. */
  at: string;
  /** Slack channel id it was asked from, if any. */
  channel?: string;
}

/** Pure: the record in the annotation, or undefined when absent or not ours to trust. */
export function readSuspension(annotations: Record<string, string> | undefined): SuspensionRecord | undefined {
  const raw = annotations?.[SUSPENSION_ANNOTATION];
  if (!raw) return undefined;
  try {
    const value = JSON.parse(raw) as Partial<SuspensionRecord>;
    if (typeof value.by !== 'string' || typeof value.at !== 'string') return undefined;
    return {
      by: value.by.slice(0, 200),
      at: value.at.slice(0, 40),
      ...(typeof value.reason === 'string' ? { reason: value.reason.slice(0, 500) } : {}),
      ...(typeof value.channel === 'string' ? { channel: value.channel.slice(0, 100) } : {}),
    };
  } catch {
    return undefined;
  }
}

export interface RollbackRequest {
  id: string;
  /** undefined: the previous deployed revision. */
  revision?: number;
}

/** Pure: the rollback asked for in the annotations; a malformed target is kept as NaN so it fails visibly. */
export function readRollbackRequest(annotations: Record<string, string> | undefined): RollbackRequest | undefined {
  const id = annotations?.[ROLLBACK_REQUEST_ANNOTATION];
  if (!id) return undefined;
  const to = annotations?.[ROLLBACK_TO_ANNOTATION] ?? 'previous';
  if (to === 'previous') return { id };
  return { id, revision: /^[0-9]+$/.test(to) ? Number(to) : Number.NaN };
}

export interface BreakGlassRecord {
  /** The freezes the change may go through, by name. */
  freezes: string[];
  /** The generation it applies to: the one the requester's patch made. */
  generation: number;
  /** "slack:U0123": who asked. */
  by: string;
  /** "slack:U0456": the second person. */
  approvedBy: string;
  at: string;
  reason?: string;
}

/** Pure: the break-glass record in the annotations, or undefined when absent or malformed. */
export function readBreakGlass(annotations: Record<string, string> | undefined): BreakGlassRecord | undefined {
  const raw = annotations?.[BREAK_GLASS_ANNOTATION];
  if (!raw) return undefined;
  try {
    const value = JSON.parse(raw) as Partial<BreakGlassRecord>;
    if (!Array.isArray(value.freezes) || !value.freezes.every((f) => typeof f === 'string')) return undefined;
    if (typeof value.generation !== 'number' || typeof value.by !== 'string' || typeof value.approvedBy !== 'string' || typeof value.at !== 'string')
      return undefined;
    return {
      freezes: value.freezes.slice(0, 64),
      generation: value.generation,
      by: value.by.slice(0, 200),
      approvedBy: value.approvedBy.slice(0, 200),
      at: value.at.slice(0, 40),
      ...(typeof value.reason === 'string' ? { reason: value.reason.slice(0, 500) } : {}),
    };
  } catch {
    return undefined;
  }
}
