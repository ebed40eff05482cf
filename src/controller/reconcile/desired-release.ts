import type { HelmRelease } from '../../api/helmrelease.js';
import { valid } from 'semver';
import { ChartNotFoundError } from '../charts/repository-index.js';
import type { ReconcileContext } from './context.js';
import type { DesiredRelease } from './release-state.js';
import { composeValues, ValuesError } from './values-from.js';
import { valuesTooDeep } from './values-depth.js';
import { valuesDigest } from './values.js';

export type DesiredOutcome =
  | { ok: true; desired: DesiredRelease }
  | { ok: false; problem: 'values' | 'chart'; message: string };

/**
 * Resolves what the HelmRelease asks for: the exact chart version (an exact version is taken as
 * written; a range is resolved from the repository index over HTTP) and the composed values.
 */
export async function resolveDesiredRelease(ctx: ReconcileContext, release: HelmRelease): Promise<DesiredOutcome> {
  // Checked before anything recurses over them: deep values would overflow the stack.
  const tooDeep = valuesTooDeep(release.spec.values ?? {}, 'spec.values');
  if (tooDeep) return { ok: false, problem: 'values', message: tooDeep };
  let values: Record<string, unknown>;
  try {
    values = await composeValues(ctx.kube, release);
    const composedTooDeep = valuesTooDeep(values, 'The values (valuesFrom and spec.values)');
    if (composedTooDeep) return { ok: false, problem: 'values', message: composedTooDeep };
  } catch (error) {
    if (error instanceof ValuesError) return { ok: false, problem: 'values', message: error.message };
    throw error;
  }
  const { repository, name, version } = release.spec.chart;
  let chartVersion: string;
  if (version && valid(version)) {
    chartVersion = valid(version)!;
  } else {
    try {
      chartVersion = await ctx.charts.resolve(repository, name, version);
    } catch (error) {
      if (error instanceof ChartNotFoundError) return { ok: false, problem: 'chart', message: error.message };
      throw error;
    }
  }
  return { ok: true, desired: { chartName: name, chartVersion, values, valuesDigest: valuesDigest(values) } };
}
