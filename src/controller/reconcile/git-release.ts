import type { HelmRelease } from '../../api/helmrelease.js';
import { GIT_DIGEST_PREFIX } from '../../core/release/chart-revision.js';
import { releaseTarget } from '../../core/release/release-target.js';
import { ANONYMOUS } from '../charts/chart-access.js';
import { displayUrl, gitAccessSecrets } from '../charts/git/git-access.js';
import { ChartNotFoundError, RepositoryNotAllowedError } from '../charts/repository-errors.js';
import { readGitAccess } from './chart-access-reader.js';
import type { ReconcileContext } from './context.js';
import type { DesiredRelease } from '../../core/release/desired-release.js';
import type { ComposedValues } from './values-from.js';

/** As desired-release.ts's DesiredOutcome (not imported: that module imports this one). */
export type GitOutcome = { ok: true; desired: DesiredRelease } | { ok: false; problem: 'chart' | 'repository'; message: string };

/**
 * What a HelmRelease with `spec.chart.git` asks for: the commit its ref picks now, Chart.yaml's
 * version at that commit, and the chart folder helm installs from (nothing is pulled).
 */
export async function resolveGitRelease(ctx: ReconcileContext, release: HelmRelease, composed: ComposedValues): Promise<GitOutcome> {
  const { chart } = release.spec;
  const git = chart.git!;
  if (!ctx.gitCharts) return { ok: false, problem: 'chart', message: `charts from Git are not enabled in this controller (${displayUrl(git.url)})` };
  try {
    // Credentials are read as the HelmRelease's identity, like valuesFrom.
    const access = await readGitAccess(ctx.kube, release);
    const resolved = await ctx.gitCharts.resolve(git, chart.name, access, releaseTarget(release).intervalMs);
    const { values, secrets } = composed;
    for (const secret of gitAccessSecrets(access)) secrets.add(secret);
    return {
      ok: true,
      desired: {
        chartName: chart.name,
        chartVersion: resolved.version,
        chartDigest: `${GIT_DIGEST_PREFIX}${resolved.commit}`,
        chartSource: { repository: displayUrl(git.url), access: ANONYMOUS, localChart: resolved.chartDir },
        values,
        valuesDigest: ctx.digester.digest(values),
        secrets,
      },
    };
  } catch (error) {
    if (error instanceof RepositoryNotAllowedError) return { ok: false, problem: 'repository', message: error.message };
    if (error instanceof ChartNotFoundError) return { ok: false, problem: 'chart', message: error.message };
    throw error;
  }
}
