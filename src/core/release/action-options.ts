import type { HelmReleaseSpec } from '../../api/helmrelease.js';
import { clampDuration, DURATION_BOUNDS, parseDuration } from '../../api/duration.js';

/**
 * What each helm action is run with, decided from the spec with Flux's names and defaults:
 * wait for readiness and for Jobs to complete, take ownership of existing objects, hooks on,
 * schema checked. Pure; src/controller/helm/helm-flags.ts spells these as helm 4 flags.
 */

/** How objects are applied: server-side (forcing conflicts, as Flux does), client-side, or as the release's last revision was. */
export type ApplyMode = 'enabled' | 'disabled' | 'auto';

export interface WaitOptions {
  /** --wait=watcher (kstatus); otherwise only hooks are waited for (--wait=hookOnly). */
  wait: boolean;
  /** --wait-for-jobs: Jobs must complete, not just exist. Only meaningful while waiting. */
  waitForJobs: boolean;
}

export interface InstallOptions extends WaitOptions {
  timeoutSeconds: number;
  disableHooks: boolean;
  replace: boolean;
  skipSchemaValidation: boolean;
  takeOwnership: boolean;
  serverSide: boolean;
}

export interface UpgradeOptions extends WaitOptions {
  timeoutSeconds: number;
  disableHooks: boolean;
  cleanupOnFail: boolean;
  skipSchemaValidation: boolean;
  takeOwnership: boolean;
  apply: ApplyMode;
  /** upgrade.force: --force-replace, which helm only does client-side. */
  forceReplace: boolean;
  /** upgrade.preserveValues: --reuse-values (the last release's values, this spec's merged over them) instead of --reset-values. */
  preserveValues: boolean;
}

export interface RollbackOptions extends WaitOptions {
  timeoutSeconds: number;
  disableHooks: boolean;
  cleanupOnFail: boolean;
  apply: ApplyMode;
  forceReplace: boolean;
}

export interface UninstallOptions {
  timeoutSeconds: number;
  wait: boolean;
  disableHooks: boolean;
  keepHistory: boolean;
  cascade: 'background' | 'foreground' | 'orphan';
}

export interface TestOptions {
  timeoutSeconds: number;
  /** helm test --filter values: name=x to run only those, !name=x to skip. */
  filters: string[];
}

export interface ActionOptions {
  install: InstallOptions;
  upgrade: UpgradeOptions;
  rollback: RollbackOptions;
  uninstall: UninstallOptions;
  test: TestOptions;
}

export const DEFAULT_TIMEOUT = '5m';

/** A helm timeout in seconds, clamped again here: objects stored before the schema bounds existed can hold anything. */
export function timeoutSecondsOf(duration: string | undefined): number {
  return Math.round(clampDuration(parseDuration(duration ?? DEFAULT_TIMEOUT), DURATION_BOUNDS.minTimeout, DURATION_BOUNDS.maxTimeout) / 1000);
}

export function actionOptions(spec: HelmReleaseSpec): ActionOptions {
  const timeout = (own: string | undefined) => timeoutSecondsOf(own ?? spec.timeout);
  const { install = {}, upgrade = {}, rollback = {}, uninstall = {}, test = {} } = spec;
  return {
    install: {
      timeoutSeconds: timeout(install.timeout),
      wait: install.disableWait !== true,
      waitForJobs: install.disableWaitForJobs !== true,
      disableHooks: install.disableHooks === true,
      replace: install.replace === true,
      skipSchemaValidation: install.disableSchemaValidation === true,
      takeOwnership: install.disableTakeOwnership !== true,
      serverSide: install.serverSideApply !== false,
    },
    upgrade: {
      timeoutSeconds: timeout(upgrade.timeout),
      wait: upgrade.disableWait !== true,
      waitForJobs: upgrade.disableWaitForJobs !== true,
      disableHooks: upgrade.disableHooks === true,
      cleanupOnFail: upgrade.cleanupOnFail === true,
      skipSchemaValidation: upgrade.disableSchemaValidation === true,
      takeOwnership: upgrade.disableTakeOwnership !== true,
      apply: upgrade.serverSideApply ?? 'auto',
      forceReplace: upgrade.force === true,
      preserveValues: upgrade.preserveValues === true,
    },
    rollback: {
      timeoutSeconds: timeout(rollback.timeout),
      wait: rollback.disableWait !== true,
      waitForJobs: rollback.disableWaitForJobs !== true,
      disableHooks: rollback.disableHooks === true,
      cleanupOnFail: rollback.cleanupOnFail === true,
      apply: rollback.serverSideApply ?? 'auto',
      forceReplace: rollback.force === true,
    },
    uninstall: {
      timeoutSeconds: timeout(uninstall.timeout),
      wait: uninstall.disableWait !== true,
      disableHooks: uninstall.disableHooks === true,
      keepHistory: uninstall.keepHistory === true,
      cascade: uninstall.deletionPropagation ?? 'background',
    },
    test: {
      timeoutSeconds: timeout(test.timeout),
      filters: (test.filters ?? []).map((f) => `${f.exclude ? '!' : ''}name=${f.name}`),
    },
  };
}
