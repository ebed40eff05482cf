import type { HelmRelease } from '../../api/helmrelease.js';
import { valid } from 'semver';
import { ChartNotFoundError } from '../charts/repository-index.js';
import type { ReconcileContext } from './context.js';
import type { DesiredRelease } from './release-state.js';
import { composeValues, ValuesError, type ComposedValues } from './values-from.js';

export type DesiredOutcome =
  | { ok: true; desired: DesiredRelease }
  | { ok: false; problem: 'values' | 'chart'; message: string };

/**
 * Resolves what the HelmRelease asks for: the exact chart version (an exact version is taken as
 * written; a range is resolved from the repository index over HTTP), the composed values and
 * the Secret values among them (for redaction).
 */
export async function resolveDesiredRelease(ctx: ReconcileContext, release: HelmRelease): Promise<DesiredOutcome> {
  let composed: ComposedValues;
  try {
    composed = await composeValues(ctx.kube, release);
  } catch (error) {
    if (error instanceof ValuesError) return { ok: false, problem: 'values', message: error.message };
    throw error;
  }
  const { repository, name, version } = release.spec.chart;
  let chartVersion: string;
  if (version && valid(version)) {
    // As written, not normalized: helm pull looks for this exact string first, and a `v` or a
    // `+build` is part of how the chart records its version (compared in chart-version.ts).
    chartVersion = version.trim();
  } else {
    try {
      chartVersion = await ctx.charts.resolve(repository, name, version);
    } catch (error) {
      if (error instanceof ChartNotFoundError) return { ok: false, problem: 'chart', message: error.message };
      throw error;
    }
  }
  const { values, secrets } = composed;
  return { ok: true, desired: { chartName: name, chartVersion, values, valuesDigest: ctx.digester.digest(values), secrets } };
}
