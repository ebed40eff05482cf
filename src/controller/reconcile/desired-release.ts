import type { HelmRelease } from '../../api/helmrelease.js';
import { valid } from 'semver';
import { ChartNotFoundError, RepositoryNotAllowedError } from '../charts/repository-errors.js';
import type { ReconcileContext } from './context.js';
import type { DesiredRelease } from '../../core/release/desired-release.js';
import { valuesTooDeep } from './values-depth.js';
import { composeValues, ValuesError, type ComposedValues } from './values-from.js';

export type DesiredOutcome = { ok: true; desired: DesiredRelease } | { ok: false; problem: 'values' | 'chart' | 'repository'; message: string };

/**
 * Resolves what the HelmRelease asks for: the exact chart version (an exact version is taken as
 * written; a range is resolved from the repository index over HTTP), the composed values and
 * the Secret values among them (for redaction).
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
  const { repository, name, version } = release.spec.chart;
  let chartVersion: string;
  try {
    if (repository.startsWith('oci://')) {
      // helm fetches OCI charts itself; the host policy is checked first. The schema requires an exact version.
      await ctx.charts.checkHost(repository);
      chartVersion = (version ?? '').trim();
    } else {
      // Even an exact version is looked up in the index: the fetch goes through the host policy
      // and size limit, and helm pull only runs for a repository that answered and lists it.
      const resolved = await ctx.charts.resolve(repository, name, version);
      // An exact version stays as written, not normalized: helm pull looks for this exact string
      // first, and a `v` or a `+build` is part of how the chart records it (chart-version.ts).
      chartVersion = version && valid(version) ? version.trim() : resolved;
    }
  } catch (error) {
    if (error instanceof RepositoryNotAllowedError) return { ok: false, problem: 'repository', message: error.message };
    if (error instanceof ChartNotFoundError) return { ok: false, problem: 'chart', message: error.message };
    throw error;
  }
  const { values, secrets } = composed;
  return { ok: true, desired: { chartName: name, chartVersion, values, valuesDigest: ctx.digester.digest(values), secrets } };
}
