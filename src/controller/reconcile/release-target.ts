import type { HelmRelease } from '../../api/helmrelease.js';
import { clampDuration, DURATION_BOUNDS, parseDuration } from '../../api/duration.js';
import type { TenancyPolicy } from '../../config.js';

/** Where and how a HelmRelease is installed, with defaults applied. Pure. */
export interface ReleaseTarget {
  key: string;
  releaseName: string;
  namespace: string;
  timeoutSeconds: number;
  intervalMs: number;
  maxHistory: number;
  createNamespace: boolean;
  /**
   * The ServiceAccount this HelmRelease acts as: spec.serviceAccountName, else the operator's
   * default. When set, everything done for the release (helm, valuesFrom, release records) uses it.
   */
  impersonate?: { namespace: string; name: string };
}

/** No lock-down: what helmcrew did before the operator settings existed. */
export const OPEN_TENANCY: TenancyPolicy = { allowCrossNamespaceTargets: true };

export const DEFAULT_INTERVAL = '10m';
export const DEFAULT_TIMEOUT = '5m';
export const DEFAULT_MAX_HISTORY = 10;

export function releaseKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

export function releaseTarget(release: HelmRelease, tenancy: TenancyPolicy = OPEN_TENANCY): ReleaseTarget {
  const { spec, metadata } = release;
  const serviceAccount = spec.serviceAccountName ?? tenancy.defaultServiceAccount;
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
    impersonate: serviceAccount ? { namespace: metadata.namespace, name: serviceAccount } : undefined,
  };
}
