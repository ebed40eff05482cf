import type { HelmRelease } from '../../api/helmrelease.js';
import { releaseTarget } from '../../core/release/release-target.js';
import { accessSecrets, type ChartAccess } from '../charts/chart-access.js';
import { ChartNotFoundError, RepositoryNotAllowedError } from '../charts/repository-errors.js';
import type { ResolvedChart } from '../charts/repository-index.js';
import { readChartAccess } from './chart-access-reader.js';
import { resolveGitRelease } from './git-release.js';
import type { ReconcileContext } from './context.js';
import type { DesiredRelease } from '../../core/release/desired-release.js';
import { valuesTooDeep } from './values-depth.js';
import { postRenderDigest, postRenderOf } from '../../core/release/post-render.js';
import { withValuesFiles } from './values-files.js';
import { composeValues, ValuesError, type ComposedValues } from './values-from.js';

export type DesiredOutcome = { ok: true; desired: DesiredRelease } | { ok: false; problem: 'values' | 'chart' | 'repository'; message: string };

/**
 * Resolves what the HelmRelease asks for: the exact chart version (an exact version is taken as
 * written; a range is resolved from the repository index or the registry's tags), for oci:// the
 * digest its tag points at, the composed values and the Secret values among them (for redaction,
 * the chart credentials included).
 */
export async function resolveDesiredRelease(ctx: ReconcileContext, release: HelmRelease): Promise<DesiredOutcome> {
  // Checked before anything recurses over them: deep values would overflow the stack.
  const tooDeep = valuesTooDeep(release.spec.values ?? {}, 'spec.values');
  if (tooDeep) return { ok: false, problem: 'values', message: tooDeep };
  let composed: ComposedValues;
  try {
    composed = await composeValues(ctx.kube, release);
    const composedTooDeep = valuesTooDeep(composed.values, 'The values (valuesFrom and spec.values)');
    if (composedTooDeep) return { ok: false, problem: 'values', message: composedTooDeep };
  } catch (error) {
    if (error instanceof ValuesError) return { ok: false, problem: 'values', message: error.message };
    throw error;
  }
  const { chart } = release.spec;
  if (chart.git) {
    const git = await resolveGitRelease(ctx, release, composed);
    return git.ok ? withValuesFiles(ctx, release, git.desired) : git;
  }
  let resolved: ResolvedChart;
  let access: ChartAccess;
  try {
    // Credentials are read as the HelmRelease's identity, like valuesFrom.
    access = await readChartAccess(ctx.kube, release);
    // Even an exact version is looked up (the index, or the tag's digest): the fetch goes through
    // the host policy and size limit, and helm pull only runs for a source that answered and has it.
    // An answer as old as the release's interval is good enough: one fetch per source per interval.
    resolved = await ctx.charts.resolveChart(chart, access, releaseTarget(release).intervalMs);
  } catch (error) {
    if (error instanceof RepositoryNotAllowedError) return { ok: false, problem: 'repository', message: error.message };
    if (error instanceof ChartNotFoundError) return { ok: false, problem: 'chart', message: error.message };
    throw error;
  }
  const { values, secrets } = composed;
  for (const secret of accessSecrets(access)) secrets.add(secret);
  const chartSource = {
    repository: chart.repository ?? '',
    access,
    ...(resolved.ociRef ? { ociRef: resolved.ociRef } : {}),
    ...(resolved.archiveUrl ? { archiveUrl: resolved.archiveUrl } : {}),
  };
  return withValuesFiles(ctx, release, {
    chartName: chart.name,
    chartVersion: resolved.version,
    ...(resolved.digest ? { chartDigest: resolved.digest } : {}),
    chartSource,
    values,
    valuesDigest: ctx.digester.digest(values),
    ...postRenderFields(release),
    secrets,
  });
}

/** The post-rendering the spec asks for and its digest; nothing when it asks for none. */
function postRenderFields(release: HelmRelease): Pick<DesiredRelease, 'postRender' | 'postRenderDigest'> {
  const postRender = postRenderOf(release.spec);
  return postRender ? { postRender, postRenderDigest: postRenderDigest(postRender) } : {};
}
