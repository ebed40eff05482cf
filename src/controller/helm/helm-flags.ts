import type { ApplyMode, InstallOptions, RollbackOptions, TestOptions, UninstallOptions, UpgradeOptions, WaitOptions } from '../../core/release/action-options.js';

/**
 * Each action's options spelled as helm 4.2.4 flags (checked against `helm <verb> --help`).
 * Pure, so every spelling is unit-tested; helm-client.ts adds the flags every action shares.
 */

export function waitFlags(o: WaitOptions): string[] {
  if (!o.wait) return ['--wait=hookOnly'];
  // helm only waits for Jobs while it waits at all ("if set and --wait enabled").
  return o.waitForJobs ? ['--wait=watcher', '--wait-for-jobs'] : ['--wait=watcher'];
}

function timeoutFlags(seconds: number): string[] {
  return ['--timeout', `${seconds}s`];
}

/**
 * Server-side apply always forces conflicts, as Flux does: a field another manager took (a
 * `kubectl edit`) goes back to what the chart says instead of failing the upgrade. helm refuses
 * --force-conflicts on a client-side apply, so "auto" is resolved here as helm would resolve it:
 * the way the release's last revision was applied ("ssa"; helm 3's records have no method, i.e. client-side).
 */
export function applyFlags(mode: ApplyMode, forceReplace: boolean, lastApplyMethod: string | undefined): string[] {
  // --force-replace is client-side only in helm 4: force wins over the apply mode.
  if (forceReplace) return ['--force-replace', '--server-side=false'];
  return serverSideFlags(mode === 'enabled' || (mode === 'auto' && lastApplyMethod === 'ssa'));
}

/** helm 4's spelling of the apply method; server-side always forces conflicts (applyFlags says why). */
function serverSideFlags(serverSide: boolean): string[] {
  return serverSide ? ['--server-side=true', '--force-conflicts'] : ['--server-side=false'];
}

/** What upgrade and rollback share: both write a revision over the last one, applied as applyFlags decides. */
function overLastRevisionFlags(o: RollbackOptions, lastApplyMethod: string | undefined): string[] {
  return [
    ...waitFlags(o),
    ...timeoutFlags(o.timeoutSeconds),
    ...applyFlags(o.apply, o.forceReplace, lastApplyMethod),
    ...(o.disableHooks ? ['--no-hooks'] : []),
    ...(o.cleanupOnFail ? ['--cleanup-on-fail'] : []),
  ];
}

export function installFlags(o: InstallOptions): string[] {
  return [
    ...waitFlags(o),
    ...timeoutFlags(o.timeoutSeconds),
    ...serverSideFlags(o.serverSide),
    ...(o.disableHooks ? ['--no-hooks'] : []),
    ...(o.replace ? ['--replace'] : []),
    ...(o.skipSchemaValidation ? ['--skip-schema-validation'] : []),
    ...(o.takeOwnership ? ['--take-ownership'] : []),
  ];
}

export function upgradeFlags(o: UpgradeOptions, lastApplyMethod: string | undefined): string[] {
  return [
    ...overLastRevisionFlags(o, lastApplyMethod),
    ...(o.skipSchemaValidation ? ['--skip-schema-validation'] : []),
    ...(o.takeOwnership ? ['--take-ownership'] : []),
  ];
}

/**
 * What an upgrade's values go over: by default nothing but the chart's (the HelmRelease is the
 * whole truth; values not declared there are dropped); upgrade.preserveValues keeps the last
 * release's values under this spec's (helm --reuse-values, as Flux).
 */
export function valuesBaseFlag(preserveValues: boolean): string {
  return preserveValues ? '--reuse-values' : '--reset-values';
}

export function rollbackFlags(o: RollbackOptions, lastApplyMethod: string | undefined): string[] {
  return overLastRevisionFlags(o, lastApplyMethod);
}

export function uninstallFlags(o: UninstallOptions): string[] {
  return [
    // uninstall's --wait waits for the objects to be gone; its default (hookOnly) does not.
    ...(o.wait ? ['--wait'] : []),
    ...timeoutFlags(o.timeoutSeconds),
    '--cascade',
    o.cascade,
    ...(o.disableHooks ? ['--no-hooks'] : []),
    ...(o.keepHistory ? ['--keep-history'] : []),
  ];
}

export function testFlags(o: TestOptions): string[] {
  return [...timeoutFlags(o.timeoutSeconds), ...o.filters.flatMap((f) => ['--filter', f])];
}
