import type { HelmRelease } from '../../../api/helmrelease.js';
import type { KubeReads } from '../ports/context.js';
import { GIT_DIGEST_PREFIX } from '../../../core/release/chart-revision.js';
import { releaseTarget } from '../../../core/release/release-target.js';
import { accessSecrets, ANONYMOUS } from '../../charts/chart-access.js';
import { displayUrl, gitAccessSecrets } from '../../charts/git/git-access.js';
import { ChartNotFoundError, RepositoryNotAllowedError } from '../../charts/repository-errors.js';
import type { RepositoryIndexCache } from '../../charts/repository-index.js';
import { readChartAccess, readGitAccess, readGitDependencyAccess } from './chart-access-reader.js';
import type { ResolvedChartSource } from './compose-desired.js';
import type { ProvenanceChecks } from '../../charts/verification/provenance-checks.js';
import type { ArtifactVerify } from '../../charts/verification/cosign-verifier.js';
import { failVerification, readKeySecret, VerificationFailedError, VerificationUnreachableError, verifyChart } from './chart-verification.js';
import { GitVerificationError, type GitChartSources, type GitVerifyRequest } from '../../charts/git/git-chart-sources.js';

/** What resolving a chart source reads through. */
export interface ChartSourcePorts {
  /** The HelmRelease's identity's clients: credentials are read as it. */
  kube: KubeReads;
  charts: Pick<RepositoryIndexCache, 'resolveChart'>;
  /** Charts from Git (spec.chart.git); none: such a HelmRelease is reported, not installed. */
  gitCharts?: Pick<GitChartSources, 'resolve'>;
  /** spec.chart.verify provider pgp (helm provenance); none: such a HelmRelease fails its check, never installs unverified. */
  provenance?: Pick<ProvenanceChecks, 'verify'>;
  /** spec.chart.verify provider cosign (oci:// charts); none: such a HelmRelease fails its check, never installs unverified. */
  cosign?: ArtifactVerify;
  /** spec.chart.verify provider notation (oci:// charts); none: such a HelmRelease fails its check, never installs unverified. */
  notation?: ArtifactVerify;
}

/** `newest`: with a pinned version and a range, what the range picks now (issue 35: proposed, not installed). */
export type ChartSourceOutcome =
  { ok: true; resolved: ResolvedChartSource; newest?: string } | { ok: false; problem: 'chart' | 'repository' | 'verification'; message: string };

/**
 * I/O: where the HelmRelease's chart comes from, its exact version and digest, and the credentials
 * read to get it — for each kind of source, and nothing more (compose-desired.ts makes the rest).
 */
export async function resolveChartSource(ports: ChartSourcePorts, release: HelmRelease, pinned?: string): Promise<ChartSourceOutcome> {
  try {
    if (!release.spec.chart.git) return { ok: true, ...(await resolveRepositoryChart(ports, release, pinned)) };
    const resolved = await resolveGitChart(ports, release);
    return typeof resolved === 'string' ? { ok: false, problem: 'chart', message: resolved } : { ok: true, resolved };
  } catch (error) {
    if (error instanceof RepositoryNotAllowedError) return { ok: false, problem: 'repository', message: error.message };
    if (error instanceof ChartNotFoundError) return { ok: false, problem: 'chart', message: error.message };
    if (error instanceof VerificationFailedError) return { ok: false, problem: 'verification', message: error.message };
    // cosign or notation could not reach the registry: not a verdict, retried like a failed pull.
    if (error instanceof VerificationUnreachableError) return { ok: false, problem: 'chart', message: error.message };
    throw error;
  }
}

/**
 * An http(s) index or an oci:// registry: an exact version is taken as written, a range is
 * resolved from the index or the registry's tags; for oci:// the digest its tag points at.
 * `pinned` (an approved or held version, issue 35) is taken instead, from the same answer.
 */
async function resolveRepositoryChart(
  ports: ChartSourcePorts,
  release: HelmRelease,
  pinned?: string,
): Promise<{ resolved: ResolvedChartSource; newest?: string }> {
  const { chart } = release.spec;
  // Credentials are read as the HelmRelease's identity, like valuesFrom.
  const access = await readChartAccess(ports.kube, release);
  // Even an exact version is looked up (the index, or the tag's digest): the fetch goes through
  // the host policy and size limit, and helm pull only runs for a source that answered and has it.
  // An answer as old as the release's interval is good enough: one fetch per source per interval.
  const resolved = await ports.charts.resolveChart(chart, access, releaseTarget(release).intervalMs, pinned);
  const source: ResolvedChartSource = {
    chartName: chart.name,
    chartVersion: resolved.version,
    ...(resolved.digest ? { chartDigest: resolved.digest } : {}),
    chartSource: {
      repository: chart.repository ?? '',
      access,
      ...(resolved.ociRef ? { ociRef: resolved.ociRef } : {}),
      ...(resolved.archiveUrl ? { archiveUrl: resolved.archiveUrl } : {}),
    },
    secrets: accessSecrets(access),
  };
  // Verified before anything renders or installs it (pgp: the archive helm installs; cosign, notation: the digest
  // helm pulls): a chart that fails its check throws here.
  const verified = await verifyChart(ports, release, source);
  return { resolved: verified, ...(resolved.newest ? { newest: resolved.newest } : {}) };
}

/**
 * `spec.chart.git`: the commit its ref picks now, Chart.yaml's version at that commit, and the
 * chart folder helm installs from (nothing is pulled). A string: why it cannot be resolved.
 */
async function resolveGitChart(ports: ChartSourcePorts, release: HelmRelease): Promise<ResolvedChartSource | string> {
  const { chart } = release.spec;
  const git = chart.git!;
  if (!ports.gitCharts) return `charts from Git are not enabled in this controller (${displayUrl(git.url)})`;
  // Credentials are read as the HelmRelease's identity, like valuesFrom.
  const access = await readGitAccess(ports.kube, release);
  const entries = await readGitDependencyAccess(ports.kube, release);
  const key = `${release.metadata.namespace}/${release.metadata.name}`;
  const verify = await gitVerifyRequest(ports, release);
  let resolved;
  try {
    resolved = await ports.gitCharts.resolve(git, chart.name, access, releaseTarget(release).intervalMs, { key, entries }, verify);
  } catch (error) {
    if (error instanceof GitVerificationError) failVerification(release, error.artifact, gitKeysName(release), error.failure);
    throw error;
  }
  return {
    chartName: chart.name,
    chartVersion: resolved.version,
    chartDigest: `${GIT_DIGEST_PREFIX}${resolved.commit}`,
    chartSource: { repository: displayUrl(git.url), access: ANONYMOUS, localChart: resolved.chartDir },
    secrets: [...gitAccessSecrets(access), ...entries.flatMap((e) => accessSecrets(e.access))],
    ...(resolved.signedBy
      ? { verification: { artifact: `${displayUrl(git.url)}@${resolved.commit}`, verifiedBy: resolved.signedBy, provider: 'git' as const } }
      : {}),
  };
}

function gitKeysName(release: HelmRelease): string {
  return `Secret ${release.metadata.namespace}/${release.spec.chart.git?.verify?.secretRef.name ?? ''} (spec.chart.git.verify.secretRef)`;
}

/** spec.chart.git.verify with its key Secret read as the HelmRelease's identity; a missing Secret fails the check. */
async function gitVerifyRequest(ports: ChartSourcePorts, release: HelmRelease): Promise<GitVerifyRequest | undefined> {
  const git = release.spec.chart.git!;
  if (!git.verify) return undefined;
  const secret = await readKeySecret(ports.kube, release, git.verify.secretRef.name, 'spec.chart.git.verify.secretRef');
  if ('problem' in secret)
    failVerification(release, `Git repository ${displayUrl(git.url)}`, gitKeysName(release), { check: 'key-secret', detail: secret.problem });
  return { mode: git.verify.mode ?? 'HEAD', keySecret: secret };
}
