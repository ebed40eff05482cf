import type { HelmRelease } from '../../api/helmrelease.js';
import { parseDuration } from '../../api/duration.js';

/** Where and how a HelmRelease is installed, with defaults applied. Pure. */
export interface ReleaseTarget {
  key: string;
  releaseName: string;
  namespace: string;
  timeoutSeconds: number;
  intervalMs: number;
  maxHistory: number;
  createNamespace: boolean;
  /** helm --wait=watcher on install / upgrade, unless install/upgrade.disableWait. */
  installWait: boolean;
  upgradeWait: boolean;
  /** upgrade.force: helm upgrade --force-replace. */
  forceReplace: boolean;
  uninstallKeepHistory: boolean;
  uninstallTimeoutSeconds: number;
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
    timeoutSeconds: Math.max(1, Math.round(parseDuration(spec.timeout ?? DEFAULT_TIMEOUT) / 1000)),
    intervalMs: parseDuration(spec.interval ?? DEFAULT_INTERVAL),
    maxHistory: spec.maxHistory ?? DEFAULT_MAX_HISTORY,
    createNamespace: spec.install?.createNamespace ?? false,
    installWait: spec.install?.disableWait !== true,
    upgradeWait: spec.upgrade?.disableWait !== true,
    forceReplace: spec.upgrade?.force === true,
    uninstallKeepHistory: spec.uninstall?.keepHistory === true,
    uninstallTimeoutSeconds: Math.max(1, Math.round(parseDuration(spec.uninstall?.timeout ?? spec.timeout ?? DEFAULT_TIMEOUT) / 1000)),
    impersonate: spec.serviceAccountName ? { namespace: metadata.namespace, name: spec.serviceAccountName } : undefined,
  };
}
