import type { HelmRelease } from '../../api/helmrelease.js';
import { clampDuration, DURATION_BOUNDS, parseDuration } from '../../api/duration.js';
import type { TenancyPolicy } from './tenancy-policy.js';
import { impersonatedAccount, releaseIdentity, type ReleaseIdentity } from './release-identity.js';
import { actionOptions, DEFAULT_TIMEOUT, timeoutSecondsOf, type ActionOptions } from './action-options.js';

export { DEFAULT_TIMEOUT, timeoutSecondsOf };

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
  /** Every action's options (timeouts, hooks, waiting, apply mode…), Flux's defaults applied. */
  actions: ActionOptions;
  /** Who this HelmRelease acts as (release-identity.ts). */
  identity: ReleaseIdentity;
  /**
   * The ServiceAccount it impersonates (every identity but the controller's own). When set,
   * everything done for the release (helm, valuesFrom, release records) uses it.
   */
  impersonate?: { namespace: string; name: string };
}

/** No lock-down: what helmcrew did before the safe defaults (the controller's rights everywhere). */
export const OPEN_TENANCY: TenancyPolicy = { allowCrossNamespaceTargets: true, clusterScopeNamespaces: ['*'] };

export const DEFAULT_INTERVAL = '10m';
export const DEFAULT_MAX_HISTORY = 10;

export function releaseKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

export function releaseTarget(release: HelmRelease, tenancy: TenancyPolicy = OPEN_TENANCY): ReleaseTarget {
  const { spec, metadata } = release;
  const identity = releaseIdentity(release, tenancy);
  return {
    key: releaseKey(metadata.namespace, metadata.name),
    // Once installed, the status remembers the name: deleting must find the release even if the spec is odd.
    releaseName: spec.releaseName ?? release.status?.releaseName ?? metadata.name,
    namespace: spec.targetNamespace ?? release.status?.releaseNamespace ?? metadata.namespace,
    timeoutSeconds: timeoutSecondsOf(spec.timeout),
    intervalMs: checkIntervalMs(spec),
    maxHistory: spec.maxHistory ?? DEFAULT_MAX_HISTORY,
    createNamespace: spec.install?.createNamespace ?? false,
    installWait: spec.install?.disableWait !== true,
    upgradeWait: spec.upgrade?.disableWait !== true,
    forceReplace: spec.upgrade?.force === true,
    uninstallKeepHistory: spec.uninstall?.keepHistory === true,
    uninstallTimeoutSeconds: timeoutSecondsOf(spec.uninstall?.timeout ?? spec.timeout),
    actions: actionOptions(spec),
    identity,
    impersonate: impersonatedAccount(identity),
  };
}

/**
 * How often the release is checked: spec.interval, or a git chart's own shorter interval (its
 * new commits are looked for that often). Throws on a duration it cannot parse.
 */
export function checkIntervalMs(spec: Pick<HelmRelease['spec'], 'interval' | 'chart'>): number {
  const clamp = (text: string) => clampDuration(parseDuration(text), DURATION_BOUNDS.minInterval, DURATION_BOUNDS.maxInterval);
  const interval = clamp(spec.interval ?? DEFAULT_INTERVAL);
  const git = spec.chart?.git?.interval;
  return git ? Math.min(interval, clamp(git)) : interval;
}
