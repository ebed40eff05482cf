import { HELM_CHART_LAYER } from '../../../api/chart-fetch.js';
import { record, sourceKey, text, type FluxObject, type FluxSources } from './flux-objects.js';

/**
 * Resolves a Flux HelmRelease's chart (`spec.chart.spec` + its sourceRef, or `spec.chartRef`) into
 * helmcrew's inline `spec.chart`. Pure. Every source field that cannot come along is a note.
 */

export interface Note {
  /** `spec.chart.spec.sourceRef` or `HelmRepository flux-system/podinfo spec.provider`. */
  path: string;
  reason: string;
  /** Carried, but a person must do something (copy a Secret): reported as "check", not "not carried". */
  attention?: boolean;
}

export interface ResolvedChart {
  /** undefined: no chart can be built (the source is missing or of a kind helmcrew cannot use). */
  chart?: Record<string, unknown>;
  notes: Note[];
  /** What the chart came from, for the report: `HelmRepository flux-system/podinfo`. */
  origin: string;
}

const SOURCE_ADMIN = ['interval', 'timeout', 'suspend', 'accessFrom'];

export function resolveChart(spec: Record<string, unknown>, namespace: string, sources: FluxSources): ResolvedChart {
  const chartRef = record(spec.chartRef);
  if (text(chartRef.kind)) return fromChartRef(chartRef, namespace, sources);
  const template = record(record(spec.chart).spec);
  const notes: Note[] = [];
  if (template.reconcileStrategy !== undefined) notes.push({ path: 'spec.chart.spec.reconcileStrategy', reason: REASONS.reconcileStrategy });
  if (record(spec.chart).metadata !== undefined)
    notes.push({ path: 'spec.chart.metadata', reason: 'handled differently: helmcrew creates no HelmChart object' });
  const resolved = fromTemplate(template, 'spec.chart.spec', namespace, sources);
  // Flux makes the HelmChart in its source's namespace: the verify Secret is looked for there.
  const chartNamespace = text(record(template.sourceRef).namespace) ?? namespace;
  const chart = withVerify(resolved.chart, template.verify, 'spec.chart.spec.verify', notes, namespace, chartNamespace);
  return { ...resolved, ...(chart ? { chart } : {}), notes: [...notes, ...resolved.notes] };
}

const REASONS = {
  reconcileStrategy: 'handled differently: a Git chart follows its commit, other charts their version',
  interval: 'handled differently: versions are resolved at spec.interval',
};

/** `{chart, version, sourceRef, valuesFiles, …}` of a HelmRelease's chart template or a HelmChart. */
function fromTemplate(template: Record<string, unknown>, at: string, namespace: string, sources: FluxSources): ResolvedChart {
  const ref = record(template.sourceRef);
  const kind = text(ref.kind) ?? 'HelmRepository';
  const sourceNamespace = text(ref.namespace) ?? namespace;
  const origin = `${kind} ${sourceNamespace}/${text(ref.name) ?? '?'}`;
  const source = sources.get(sourceKey(kind, sourceNamespace, text(ref.name) ?? ''));
  if (!source) return { origin, notes: [{ path: `${at}.sourceRef`, reason: `cannot be carried: ${origin} was not found` }] };
  const chartName = text(template.chart);
  const extras: Record<string, unknown> = {};
  for (const key of ['valuesFiles', 'ignoreMissingValuesFiles'] as const) if (template[key] !== undefined) extras[key] = template[key];
  const notes: Note[] = [];
  if (template.interval !== undefined && kind !== 'GitRepository') notes.push({ path: `${at}.interval`, reason: REASONS.interval });
  const version = text(template.version);
  switch (kind) {
    case 'HelmRepository': {
      const chart = helmRepositoryChart(source, origin, chartName, notes, namespace);
      return { origin, notes, chart: chart && { ...chart, ...(version && version !== '*' ? { version } : {}), ...extras } };
    }
    case 'GitRepository': {
      if (version && version !== '*')
        notes.push({ path: `${at}.version`, reason: 'handled differently: a Git chart takes its version from Chart.yaml (Flux ignores it too)' });
      const git = gitChart(source, origin, chartName, notes, namespace);
      // helmcrew names the chart (Teams, freezes and the bot match on it) and checks the name against
      // Chart.yaml; Flux names only the folder, whose last segment is the chart's name by convention.
      const name = chartName?.replace(/\/+$/, '').split('/').pop();
      if (name)
        notes.push({
          path: `${at}.chart`,
          reason: `spec.chart.name set to ${name} (the folder's name): it must match the name in its Chart.yaml`,
          attention: true,
        });
      return { origin, notes, chart: { ...(name ? { name } : {}), git, ...extras } };
    }
    default:
      return { origin, notes: [{ path: `${at}.sourceRef`, reason: `helmcrew has no equivalent: charts from a ${kind}` }] };
  }
}

function fromChartRef(chartRef: Record<string, unknown>, namespace: string, sources: FluxSources): ResolvedChart {
  const kind = text(chartRef.kind)!;
  const sourceNamespace = text(chartRef.namespace) ?? namespace;
  const origin = `${kind} ${sourceNamespace}/${text(chartRef.name) ?? '?'}`;
  const source = sources.get(sourceKey(kind, sourceNamespace, text(chartRef.name) ?? ''));
  if (kind !== 'OCIRepository' && kind !== 'HelmChart')
    return { origin, notes: [{ path: 'spec.chartRef', reason: `helmcrew has no equivalent: charts from a ${kind}` }] };
  if (!source) return { origin, notes: [{ path: 'spec.chartRef', reason: `cannot be carried: ${origin} was not found` }] };
  if (kind === 'HelmChart') {
    const spec = record(source.spec);
    const notes: Note[] = [];
    if (spec.reconcileStrategy !== undefined) notes.push({ path: `${origin} spec.reconcileStrategy`, reason: REASONS.reconcileStrategy });
    const resolved = fromTemplate(spec, `${origin} spec`, sourceNamespace, sources);
    const chart = withVerify(resolved.chart, spec.verify, `${origin} spec.verify`, notes, namespace, sourceNamespace);
    return { ...resolved, ...(chart ? { chart } : {}), origin: `${origin} → ${resolved.origin}`, notes: [...notes, ...resolved.notes] };
  }
  const notes: Note[] = [];
  return { origin, notes, chart: ociRepositoryChart(source, origin, notes, namespace) };
}

function helmRepositoryChart(source: FluxObject, origin: string, chartName: string | undefined, notes: Note[], namespace: string) {
  const spec = record(source.spec);
  const url = text(spec.url);
  if (!url || !chartName) {
    notes.push({ path: `${origin} spec.url`, reason: 'cannot be carried: the repository has no url, or the HelmRelease names no chart' });
    return undefined;
  }
  const oci = spec.type === 'oci' || url.startsWith('oci://');
  notUsed(spec, origin, notes, ['url', 'type', 'secretRef', 'certSecretRef', 'insecure', 'proxySecretRef']);
  return {
    repository: url.replace(/\/+$/, ''),
    name: chartName,
    ...credentials(spec, origin, notes, namespace, source),
    ...(oci && spec.insecure === true ? { insecure: true } : {}),
  };
}

function ociRepositoryChart(source: FluxObject, origin: string, notes: Note[], namespace: string) {
  const spec = record(source.spec);
  const url = text(spec.url)?.replace(/\/+$/, '');
  const cut = url?.lastIndexOf('/') ?? -1;
  if (!url || cut <= 'oci://'.length) {
    notes.push({ path: `${origin} spec.url`, reason: 'cannot be carried: not an oci://host/path/chart url' });
    return undefined;
  }
  const ref = record(spec.ref);
  const version = text(ref.semver) ?? text(ref.tag);
  if (text(ref.digest))
    notes.push({ path: `${origin} spec.ref.digest`, reason: "handled differently: helmcrew pins the digest a version's tag points at, not a digest given" });
  if (!version)
    notes.push({ path: `${origin} spec.ref`, reason: 'handled differently: no tag or semver, so helmcrew takes the newest version (Flux: the tag latest)' });
  notUsed(spec, origin, notes, ['url', 'ref', 'secretRef', 'certSecretRef', 'insecure', 'proxySecretRef', 'layerSelector', 'verify']);
  const verify =
    spec.verify !== undefined ? carriedVerify(spec.verify, `${origin} spec.verify`, notes, namespace, source.metadata.namespace ?? namespace) : undefined;
  return {
    ...(verify ? { verify } : {}),
    repository: url.slice(0, cut),
    name: url.slice(cut + 1),
    ...(version ? { version } : {}),
    ...(text(ref.semverFilter) ? { semverFilter: ref.semverFilter } : {}),
    ...chartLayer(spec.layerSelector, origin, notes),
    ...credentials(spec, origin, notes, namespace, source),
    ...(spec.insecure === true ? { insecure: true } : {}),
  };
}

function gitChart(source: FluxObject, origin: string, path: string | undefined, notes: Note[], namespace: string) {
  const spec = record(source.spec);
  const ref = record(spec.ref);
  const carriedRef = gitRef(ref, origin, notes);
  notUsed(spec, origin, notes, ['url', 'ref', 'secretRef', 'interval', 'verify', 'sparseCheckout', 'recurseSubmodules', 'proxySecretRef']);
  const sparse = Array.isArray(spec.sparseCheckout)
    ? spec.sparseCheckout.filter((d): d is string => typeof d === 'string').map((d) => d.replace(/^\.?\/+/, ''))
    : [];
  return {
    url: spec.url,
    ...(carriedRef ? { ref: carriedRef } : {}),
    ...(path ? { path: path.replace(/^\.\//, '') } : {}),
    ...(text(record(spec.secretRef).name) ? { secretRef: secretIn(spec.secretRef, origin, 'secretRef', notes, namespace, source) } : {}),
    ...(text(spec.interval) ? { interval: spec.interval } : {}),
    ...(gitVerify(spec.verify, origin, notes, namespace, source) ?? {}),
    ...(sparse.length ? { sparseCheckout: sparse } : {}),
    ...(spec.recurseSubmodules === true ? { recurseSubmodules: true } : {}),
    ...(text(record(spec.proxySecretRef).name) ? { proxySecretRef: secretIn(spec.proxySecretRef, origin, 'proxySecretRef', notes, namespace, source) } : {}),
  };
}

/** Flux's order when several are set: commit, name, semver, tag, branch; helmcrew takes one, the first. */
function gitRef(ref: Record<string, unknown>, origin: string, notes: Note[]): Record<string, unknown> | undefined {
  const given = (['commit', 'name', 'semver', 'tag', 'branch'] as const).filter((key) => text(ref[key]));
  const [first, ...rest] = given;
  for (const key of rest) notes.push({ path: `${origin} spec.ref.${key}`, reason: `handled differently: spec.ref.${first} takes precedence, as in Flux` });
  return first ? { [first]: ref[first] } : undefined;
}

/** spec.verify {mode, secretRef}: Flux's lowercase `head` (an old spelling) is HEAD. */
function gitVerify(verify: unknown, origin: string, notes: Note[], namespace: string, source: FluxObject) {
  const v = record(verify);
  if (!text(record(v.secretRef).name)) return undefined;
  const mode = text(v.mode) === 'head' ? 'HEAD' : text(v.mode);
  return { verify: { ...(mode ? { mode } : {}), secretRef: secretIn(v.secretRef, origin, 'verify.secretRef', notes, namespace, source) } };
}

function credentials(spec: Record<string, unknown>, origin: string, notes: Note[], namespace: string, source: FluxObject) {
  const out: Record<string, unknown> = {};
  for (const key of ['secretRef', 'certSecretRef', 'proxySecretRef'] as const) {
    if (text(record(spec[key]).name)) out[key] = secretIn(spec[key], origin, key, notes, namespace, source);
  }
  return out;
}

/** A chart template's (HelmChart's) verify: carried for an oci:// chart, as Flux verifies only those. */
function withVerify(
  chart: Record<string, unknown> | undefined,
  raw: unknown,
  path: string,
  notes: Note[],
  namespace: string,
  secretNamespace: string,
): Record<string, unknown> | undefined {
  if (!chart || raw === undefined) return chart;
  if (!text(chart.repository)?.startsWith('oci://')) {
    notes.push({ path, reason: 'cannot be carried: verify is for oci:// charts (Flux verifies only those too)' });
    return chart;
  }
  const verify = carriedVerify(raw, path, notes, namespace, secretNamespace);
  return verify ? { ...chart, verify } : chart;
}

/** Flux's verify has helmcrew's shape (src/api/verification.ts): provider, secretRef, matchOIDCIdentity. */
function carriedVerify(raw: unknown, path: string, notes: Note[], namespace: string, secretNamespace: string): Record<string, unknown> | undefined {
  const verify = record(raw);
  const provider = text(verify.provider) ?? 'cosign';
  if (provider !== 'cosign' && provider !== 'notation') {
    notes.push({ path, reason: `cannot be carried: provider ${provider}` });
    return undefined;
  }
  const name = text(record(verify.secretRef).name);
  if (name && secretNamespace !== namespace)
    notes.push({
      path: `${path}.secretRef`,
      reason: `helmcrew reads the Secret from the HelmRelease's namespace: copy Secret ${secretNamespace}/${name} to ${namespace}`,
      attention: true,
    });
  const identities = Array.isArray(verify.matchOIDCIdentity)
    ? verify.matchOIDCIdentity
        .map(record)
        .filter((m) => text(m.issuer) && text(m.subject))
        .map((m) => ({ issuer: m.issuer, subject: m.subject }))
    : [];
  return { provider, ...(name ? { secretRef: { name } } : {}), ...(identities.length ? { matchOIDCIdentity: identities } : {}) };
}

/** helmcrew reads Secrets from the HelmRelease's own namespace; a source elsewhere needs its Secret copied. */
function secretIn(ref: unknown, origin: string, key: string, notes: Note[], namespace: string, source: FluxObject): { name: string } {
  const name = text(record(ref).name)!;
  const sourceNamespace = source.metadata.namespace ?? namespace;
  if (sourceNamespace !== namespace) {
    notes.push({
      path: `${origin} spec.${key}`,
      reason: `helmcrew reads the Secret from the HelmRelease's namespace: copy Secret ${sourceNamespace}/${name} to ${namespace}`,
      attention: true,
    });
  }
  return { name };
}

/** Source fields the chart does not use are noted; its scheduling fields have no home without source objects. */
function notUsed(spec: Record<string, unknown>, origin: string, notes: Note[], used: string[]): void {
  for (const key of Object.keys(spec)) {
    if (used.includes(key) || (key === 'provider' && spec.provider === 'generic')) continue;
    const reason = SOURCE_ADMIN.includes(key)
      ? 'handled differently: helmcrew has no source objects; the chart is checked at spec.interval'
      : key === 'provider'
        ? 'helmcrew has no equivalent: no cloud workload identity; use secretRef'
        : 'helmcrew has no equivalent';
    notes.push({ path: `${origin} spec.${key}`, reason });
  }
}

/** OCIRepository layerSelector: carried when it selects helm's chart layer, the only one helm installs. */
function chartLayer(selector: unknown, origin: string, notes: Note[]): { layerSelector?: Record<string, unknown> } {
  const { mediaType, operation } = record(selector);
  if (mediaType === undefined) return {};
  if (mediaType === HELM_CHART_LAYER) return { layerSelector: { mediaType, ...(operation === 'extract' || operation === 'copy' ? { operation } : {}) } };
  notes.push({
    path: `${origin} spec.layerSelector`,
    reason: `cannot be carried: it selects ${JSON.stringify(mediaType)}, and the helm CLI installs only the chart layer (${HELM_CHART_LAYER})`,
  });
  return {};
}
