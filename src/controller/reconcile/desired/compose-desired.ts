import type { HelmReleaseSpec } from '../../../api/helmrelease.js';
import type { ChartSource, DesiredRelease } from '../../../core/release/desired-release.js';
import { postRenderDigest, postRenderOf } from '../../../core/release/post-render.js';
import { SecretValues } from '../../../core/release/secret-values.js';
import { mergeValues } from '../../../core/release/values.js';
import { overlayApprovedOverrides, type ApprovedOverride } from './approved-overrides.js';

/**
 * What every chart source (an http(s) index, an OCI registry, Git) resolves to: where the chart
 * comes from, its exact version and digest, and the credentials read to reach it. Nothing else:
 * the rest of the desired release is composed from the spec, the same for every source.
 */
export interface ResolvedChartSource {
  chartName: string;
  chartVersion: string;
  /** oci://: the manifest digest of the version's tag; git: `git:<commit>`. */
  chartDigest?: string;
  chartSource: ChartSource;
  /** Credentials read to reach the source (passwords, keys): redacted like Secret values. */
  secrets: string[];
  /** spec.chart.verify passed: who signed this digest (a key's name in the Secret, or a keyless identity). */
  signedBy?: string;
}

/** Everything the desired release is made of, read beforehand (resolve-desired.ts does the reading). */
export interface DesiredParts {
  spec: Pick<HelmReleaseSpec, 'postRenderers' | 'commonMetadata' | 'postRenderStrategy' | 'upgrade'>;
  source: ResolvedChartSource;
  /** valuesFrom then spec.values (values-from.ts), with the Secret values among them. */
  composed: { values: Record<string, unknown>; secrets: SecretValues };
  /** spec.chart.valuesFiles merged in order; undefined when the spec names none. */
  valuesFiles?: Record<string, unknown>;
  /** status.approvedOverrides (issue 35): approved changes over the declared values, unless these say otherwise now. */
  approvedOverrides?: readonly ApprovedOverride[];
}

/**
 * Pure: the one place a DesiredRelease is put together, whatever the chart source — the values
 * (chart defaults < valuesFiles < valuesFrom < values) and their digest, the post-rendering and
 * its digest, and every secret string to redact. A field added here reaches every source.
 */
export function composeDesiredRelease(parts: DesiredParts, digest: (values: Record<string, unknown>) => string): DesiredRelease {
  const { source, composed, valuesFiles } = parts;
  const declared = valuesFiles ? mergeValues(valuesFiles, composed.values) : composed.values;
  const overlay = parts.approvedOverrides?.length ? overlayApprovedOverrides(declared, parts.approvedOverrides) : undefined;
  const values = overlay ? overlay.values : declared;
  const givenWay = (overlay?.outcomes ?? []).flatMap((outcome) =>
    outcome.kind === 'gave-way'
      ? [{ valuesPath: outcome.override.valuesPath, why: `the declared values now set ${outcome.override.valuesPath} themselves` }]
      : outcome.kind === 'invalid'
        ? [{ valuesPath: outcome.override.valuesPath, why: outcome.why }]
        : [],
  );
  const secrets = new SecretValues();
  for (const secret of [...composed.secrets.list(), ...source.secrets]) secrets.add(secret);
  const postRender = postRenderOf(parts.spec);
  return {
    chartName: source.chartName,
    chartVersion: source.chartVersion,
    ...(source.chartDigest ? { chartDigest: source.chartDigest } : {}),
    ...(source.signedBy ? { signedBy: source.signedBy } : {}),
    chartSource: source.chartSource,
    values,
    valuesDigest: digest(values),
    ...(postRender ? { postRender, postRenderDigest: postRenderDigest(postRender) } : {}),
    ...(parts.spec.upgrade?.preserveValues === true ? { preserveValues: true } : {}),
    ...(givenWay.length ? { overridesGivenWay: givenWay } : {}),
    secrets,
  };
}
