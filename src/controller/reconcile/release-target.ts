import type { HelmRelease } from '../../api/helmrelease.js';
import { clampDuration, DURATION_BOUNDS, parseDuration } from '../../api/duration.js';

/** Where and how a HelmRelease is installed, with defaults applied. Pure. */
export interface ReleaseTarget {
  key: string;
  releaseName: string;
  namespace: string;
  timeoutSeconds: number;
  intervalMs: number;
  maxHistory: number;
  createNamespace: boolean;
  impersonate?: { namespace: string; name: string };
}

export const DEFAULT_INTERVAL = '10m';
export const DEFAULT_TIMEOUT = '5m';
export const DEFAULT_MAX_HISTORY = 10;

export function releaseKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

export function releaseTarget(release: HelmRelease): ReleaseTarget {
  const { spec, metadata } = release;
  return {
    key: releaseKey(metadata.namespace, metadata.name),
    // Once installed, the status remembers the name: deleting must find the release even if the spec is odd.
    releaseName: spec.releaseName ?? release.status?.releaseName ?? metadata.name,
    namespace: spec.targetNamespace ?? release.status?.releaseNamespace ?? metadata.namespace,
    // Clamped again here: objects stored before the schema bounds existed can hold anything.
    timeoutSeconds: Math.round(clampDuration(parseDuration(spec.timeout ?? DEFAULT_TIMEOUT), DURATION_BOUNDS.minTimeout, DURATION_BOUNDS.maxTimeout) / 1000),
    intervalMs: clampDuration(parseDuration(spec.interval ?? DEFAULT_INTERVAL), DURATION_BOUNDS.minInterval, DURATION_BOUNDS.maxInterval),
    maxHistory: spec.maxHistory ?? DEFAULT_MAX_HISTORY,
    createNamespace: spec.install?.createNamespace ?? false,
    impersonate: spec.serviceAccountName ? { namespace: metadata.namespace, name: spec.serviceAccountName } : undefined,
  };
}
