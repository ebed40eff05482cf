import type { HelmRelease } from '../../../api/helmrelease.js';
import type { ChartRequest, ReleaseRequest } from '../../helm/helm-client.js';
import type { ReconcileContext } from '../ports/context.js';
import { redactSecrets } from '../decide/redact.js';
import type { DesiredRelease } from '../../../core/release/desired-release.js';
import { releaseLabels } from '../decide/ownership.js';
import { crdsPolicy, crdStep } from '../../crds/crd-policy.js';
import type { ReleaseTarget } from '../../../core/release/release-target.js';
import { ownsDownload } from '../../charts/repository-index.js';
import { installFlags, uninstallFlags, upgradeFlags } from '../../helm/helm-flags.js';

/** Pure: what helm is asked to do for a desired release (pull, install or upgrade, uninstall); the preview builds the same requests. */

/** What helm pull is given for the desired chart: its digest, source and credentials as resolved. */
export function chartPullRequest(
  ctx: { charts: Pick<ReconcileContext['charts'], 'downloadArchive'> },
  release: HelmRelease,
  target: ReleaseTarget,
  desired: DesiredRelease,
): ChartRequest {
  const source = desired.chartSource;
  const repository = source?.repository ?? release.spec.chart.repository ?? '';
  const access = source?.access;
  // helm takes credentials for an http(s) chart only beside a cached index, and would ask a proxy by
  // name: the controller fetches those archives itself (ownsDownload).
  const ownDownload = !!source?.archiveUrl && !!access && ownsDownload(access);
  // oci:// through a proxy: the controller pulls the chart layer by digest itself (OciRegistryClient.chartArchive).
  const ociViaProxy = !!access?.proxy && !!source?.ociRef && !!desired.chartDigest;
  return {
    key: target.key,
    repository,
    name: desired.chartName,
    version: desired.chartVersion,
    timeoutSeconds: Math.min(target.timeoutSeconds, 120),
    ...(desired.chartDigest ? { digest: desired.chartDigest } : {}),
    ...(source ? { source } : {}),
    ...(ownDownload ? { download: () => ctx.charts.downloadArchive(source.archiveUrl!, repository, access) } : {}),
    ...(ociViaProxy ? { download: () => ctx.charts.downloadArchive(`${source.ociRef!}@${desired.chartDigest!}`, repository, access) } : {}),
    redact: (text) => redactSecrets(text, desired.secrets),
  };
}

export function releaseRequest(
  release: HelmRelease,
  target: ReleaseTarget,
  desired: DesiredRelease,
  chartPath: string,
  op: 'install' | 'upgrade',
  /** How the release's newest revision was applied (ssa/csa): what upgradeServerSideApply "auto" follows. */
  lastApplyMethod?: string,
): ReleaseRequest {
  const options = target.actions[op];
  return {
    key: target.key,
    releaseName: target.releaseName,
    namespace: target.namespace,
    chartPath,
    values: desired.values,
    timeoutSeconds: options.timeoutSeconds,
    createNamespace: target.createNamespace,
    actionFlags: op === 'install' ? installFlags(target.actions.install) : upgradeFlags(target.actions.upgrade, lastApplyMethod),
    maxHistory: target.maxHistory,
    description: `helmcrew: ${target.key} generation ${release.metadata.generation}`,
    labels: releaseLabels(release, options.timeoutSeconds, desired.chartDigest, desired.postRenderDigest),
    ...(desired.postRender ? { postRender: desired.postRender } : {}),
    skipCrds: crdStep(op, crdsPolicy(op, release.spec)).skipCrdsFlag,
    ...(op === 'upgrade' && target.actions.upgrade.preserveValues ? { preserveValues: true } : {}),
    impersonate: target.impersonate,
    redact: (text) => redactSecrets(text, desired.secrets),
  };
}

/**
 * helm uninstall of the release: on deletion with uninstall's options; to remediate or before a
 * reinstall always without --keep-history (helm cannot install again over kept records).
 */
export function uninstallRequest(target: ReleaseTarget, purpose: 'delete' | 'remediate') {
  const options = purpose === 'delete' ? target.actions.uninstall : { ...target.actions.uninstall, keepHistory: false };
  return {
    key: target.key,
    releaseName: target.releaseName,
    namespace: target.namespace,
    timeoutSeconds: options.timeoutSeconds,
    flags: uninstallFlags(options),
    impersonate: target.impersonate,
  };
}
