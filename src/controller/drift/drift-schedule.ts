import { createHash } from 'node:crypto';
import type { HelmReleaseSpec } from '../../api/helmrelease.js';

/**
 * Pure: when a release's drift is checked. A check reads every object of the release, so a
 * thousand releases applied together must not be checked together at each interval: each release
 * gets a fixed phase within its interval from a hash of its key, and its periodic check falls on
 * the slots phase + n × interval. Checks stay one interval apart and spread evenly over it,
 * whenever the releases were created.
 */

export type DriftMode = 'enabled' | 'warn' | 'disabled';

export function driftMode(spec: Pick<HelmReleaseSpec, 'driftDetection'> | undefined): DriftMode {
  return spec?.driftDetection?.mode ?? 'disabled';
}

/** This key's offset within an interval, in [0, intervalMs). */
export function slotPhaseMs(key: string, intervalMs: number): number {
  const hash = createHash('sha256').update(key).digest().readUInt32BE(0);
  return intervalMs > 0 ? hash % intervalMs : 0;
}

/** Has a slot (phase + n × interval) passed after `lastMs` and by `nowMs`? */
export function slotPassed(lastMs: number, nowMs: number, intervalMs: number, phaseMs: number): boolean {
  if (intervalMs <= 0) return true;
  return Math.floor((nowMs - phaseMs) / intervalMs) > Math.floor((lastMs - phaseMs) / intervalMs);
}
