import type { HelmRelease } from '../../../api/helmrelease.js';
import type { KubeReads } from '../ports/context.js';
import type { DesiredRelease } from '../../../core/release/desired-release.js';
import type { ValuesDigester } from '../../../core/release/values-digest.js';
import { resolveChartSource, type ChartSourcePorts } from './chart-source-resolution.js';
import { composeDesiredRelease, type DesiredParts } from './compose-desired.js';
import { valuesTooDeep } from './values-depth.js';
import { imageUpdatesProblem, overridesOf } from './image-updates.js';
import { chartVersionToPropose, chooseChartVersion } from '../decide/chart-choice.js';
import { readValuesFiles, type ValuesFilesPorts } from './values-files.js';
import { composeValues, ValuesError, type ComposedValues, type ValuesPorts } from './values-from.js';

export type DesiredOutcome =
  { ok: true; desired: DesiredRelease } | { ok: false; problem: 'values' | 'chart' | 'repository' | 'verification'; message: string };

/** What resolving a desired release reads through (a pass gives its context, acting as the release's identity). */
export type DesiredReleasePorts = ChartSourcePorts &
  ValuesFilesPorts &
  ValuesPorts & {
    kube: KubeReads;
    digester: Pick<ValuesDigester, 'digest'>;
  };

/**
 * Resolves what the HelmRelease asks for, one path for every chart source: the values (valuesFrom
 * and spec.values, read as the release's identity), then the chart source
 * (chart-source-resolution.ts: version, digest, credentials), then the chart's values files; the
 * DesiredRelease itself is composed by one pure function (compose-desired.ts). `running`: the chart
 * version of the deployed revision, which a range holds to while a newer one waits for approvals
 * (decide/chart-choice.ts); absent: nothing runs, or the caller does not hold (the newest).
 */
export async function resolveDesiredRelease(ports: DesiredReleasePorts, release: HelmRelease, running?: string): Promise<DesiredOutcome> {
  // Checked before anything recurses over them: deep values would overflow the stack.
  const tooDeep = valuesTooDeep(release.spec.values ?? {}, 'spec.values');
  if (tooDeep) return { ok: false, problem: 'values', message: tooDeep };
  // A range or pattern the API server could not check is named before anything is fetched.
  const imageProblem = imageUpdatesProblem(release.spec);
  if (imageProblem) return { ok: false, problem: 'values', message: imageProblem };
  let composed: ComposedValues;
  try {
    composed = await composeValues(ports, release);
    const composedTooDeep = valuesTooDeep(composed.values, 'The values (valuesFrom and spec.values)');
    if (composedTooDeep) return { ok: false, problem: 'values', message: composedTooDeep };
  } catch (error) {
    if (error instanceof ValuesError) return { ok: false, problem: 'values', message: error.message };
    throw error;
  }
  const { chart } = release.spec;
  const approvedChart = release.status?.approvedChart;
  const { choice, approvedGaveWay } = chooseChartVersion({
    declared: chart.version,
    git: !!chart.git,
    approved: approvedChart,
    running,
    required: release.spec.approval?.required ?? 0,
  });
  const source = await resolveChartSource(ports, release, choice.kind === 'declared' ? undefined : choice.version);
  if (!source.ok) return source;
  const newerChart = chartVersionToPropose(choice, chart.version, source.newest);
  const chartNotes = { ...(newerChart ? { newerChart } : {}), ...(approvedGaveWay ? { approvedChartGaveWay: approvedGaveWay } : {}) };
  const approvedOverrides = overridesOf(release.status);
  const parts: DesiredParts = { spec: release.spec, source: source.resolved, composed, ...(approvedOverrides.length ? { approvedOverrides } : {}) };
  const digest = (values: Record<string, unknown>) => ports.digester.digest(values);
  const desired = composeDesiredRelease(parts, digest);
  // The values files are in the chart: read from where `desired` says it is (pulled with its credentials).
  const files = await readValuesFiles(ports, release, desired);
  if (!files.ok) return files;
  return { ok: true, desired: { ...(files.values ? composeDesiredRelease({ ...parts, valuesFiles: files.values }, digest) : desired), ...chartNotes } };
}
