import { createHash } from 'node:crypto';
import { ADOPT_FROM_FLUX_ANNOTATION, ADOPT_RELEASE_ANNOTATION } from '../../../api/annotations.js';
import { HELMRELEASE_API_VERSION, HelmReleaseSpec, type HelmRelease } from '../../../api/helmrelease.js';
import { HELMRELEASE_KIND } from '../../../api/vocabulary.js';
import { toOpenApi } from '../../../api/schema-helpers.js';
import { fitToSchema, type JsonSchema } from '../schema-fit.js';
import { resolveChart, type Note } from './chart-source.js';
import { reasonFor } from './field-table.js';
import { record, text, type FluxObject, type FluxSources } from './flux-objects.js';

/**
 * A Flux HelmRelease as a helmcrew HelmRelease. Pure. The few fields whose name or shape differ
 * are mapped here (the chart and its source, releaseName's default, maxHistory's default); every
 * other field is carried under its own name and then fitted to helmcrew's schema, so whatever
 * helmcrew's schema does not (yet) have is reported with its path instead of being pruned
 * silently by the API server, and a field helmcrew gains later carries with no change here.
 */

export interface ImportOptions {
  /** Name the live release in the imported object, so the controller takes it over (default true). */
  handover?: boolean;
  /** Releases whose records `--move-records` moved into the release's namespace, by source (`HelmRelease apps/podinfo`): the revisions moved. */
  movedRecords?: ReadonlyMap<string, number[]>;
}

export interface ImportResult {
  /** `HelmRelease apps/podinfo`. */
  source: string;
  release?: HelmRelease;
  notes: Note[];
}

/** Handled above, or not carried at all: never copied as they are. */
const MAPPED = new Set(['chart', 'chartRef', 'releaseName', 'storageNamespace', 'maxHistory', 'suspend']);
const FLUX_DEFAULT_MAX_HISTORY = 5;
const SPEC_SCHEMA = toOpenApi(HelmReleaseSpec) as JsonSchema;

export function mapFluxRelease(flux: FluxObject, sources: FluxSources, options: ImportOptions = {}, defaultNamespace = 'default'): ImportResult {
  const namespace = flux.metadata.namespace ?? defaultNamespace;
  const name = flux.metadata.name;
  const source = `HelmRelease ${namespace}/${name}`;
  const spec = record(flux.spec);
  const chart = resolveChart(spec, namespace, sources);
  const notes: Note[] = [...chart.notes];
  const target = fluxReleaseTarget(flux, namespace);

  const candidate: Record<string, unknown> = { ...(chart.chart ? { chart: chart.chart } : {}), releaseName: target.releaseName };
  for (const [key, value] of Object.entries(spec)) if (!MAPPED.has(key)) candidate[key] = value;
  candidate.maxHistory = typeof spec.maxHistory === 'number' ? spec.maxHistory : FLUX_DEFAULT_MAX_HISTORY;

  // Entries that would mean something else without a field helmcrew lacks go whole, then the rest is fitted.
  for (const misfit of fitToSchema(candidate, SPEC_SCHEMA, 'spec').misfits) {
    const whole = wholeEntryLost(misfit.path);
    if (!whole || !Array.isArray(candidate[whole.list])) continue;
    // A copy: the Flux object is the caller's and stays as it was.
    const entries = [...(candidate[whole.list] as unknown[])];
    entries[whole.index] = DROPPED;
    candidate[whole.list] = entries;
    notes.push({
      path: `spec.${whole.list}[${whole.index}]`,
      reason: `not carried as a whole: helmcrew has no ${misfit.path.split('.').pop()}, and without it ${whole.why}`,
    });
  }
  for (const key of Object.keys(candidate)) {
    const value = candidate[key];
    if (!Array.isArray(value) || !value.includes(DROPPED)) continue;
    const kept = value.filter((entry) => entry !== DROPPED);
    if (kept.length > 0) candidate[key] = kept;
    else delete candidate[key];
  }
  const fitted = fitToSchema(candidate, SPEC_SCHEMA, 'spec');
  for (const misfit of fitted.misfits) {
    if (misfit.path.startsWith('spec.chart') && chart.chart) {
      notes.push({
        path: `${misfit.path} (from ${chart.origin})`,
        reason: misfit.kind === 'unknown' ? 'helmcrew has no such field yet' : `not valid in helmcrew: ${misfit.detail}`,
      });
    } else if (misfit.path === 'spec' && !chart.chart) {
      continue;
    } else {
      notes.push({ path: misfit.path, reason: misfit.kind === 'unknown' ? reasonFor(misfit.path) : `not valid in helmcrew: ${misfit.detail}` });
    }
  }
  if (spec.suspend === true) {
    // The move starts by suspending the Flux HelmRelease; carried, that would hold the handover too.
    notes.push({
      path: 'spec.suspend',
      reason: 'the Flux HelmRelease is suspended (as the move asks); the helmcrew HelmRelease is not: set spec.suspend if it must stay paused',
      attention: true,
    });
  }
  const moved = options.movedRecords?.get(source);
  if (target.storageNamespace !== target.namespace && moved) {
    notes.push({
      path: 'spec.storageNamespace',
      reason: `records moved from ${target.storageNamespace} to ${target.namespace} (revisions ${moved.join(', ')}), where helm keeps them; the Flux HelmRelease must stay suspended until it is deleted`,
      attention: true,
    });
  } else if (target.storageNamespace !== target.namespace) {
    notes.push({
      path: spec.storageNamespace === undefined ? 'spec.storageNamespace (Flux default: the HelmRelease namespace)' : 'spec.storageNamespace',
      reason:
        `handled differently: Flux keeps this release's records in ${target.storageNamespace}, helmcrew in ${target.namespace}; ` +
        `no handover is named, so helmcrew would install revision 1 in ${target.namespace} instead of taking over Flux's history ` +
        '(import from the cluster with --move-records to move the records and hand the release over)',
    });
  }
  for (const key of Object.keys(flux.metadata.annotations ?? {})) {
    if (key.startsWith('reconcile.fluxcd.io/'))
      notes.push({ path: `metadata.annotations.${key}`, reason: 'handled differently: helmcrew.dev/requestedAt and the /release bot' });
  }
  if (!fitted.value) return { source, notes: [...notes, { path: 'spec', reason: 'cannot be carried: no HelmRelease could be made (see the notes above)' }] };
  // A release of another cluster whose way there is not carried must not be installed into this one.
  if (spec.kubeConfig !== undefined && (fitted.value as { kubeConfig?: unknown }).kubeConfig === undefined) {
    const reason =
      'cannot be carried: its target cluster is reached in a way helmcrew does not carry (see the notes above); without spec.kubeConfig it would install into this cluster';
    return { source, notes: [...notes, { path: 'spec.kubeConfig', reason }] };
  }

  const handover = options.handover !== false && (target.storageNamespace === target.namespace || !!moved);
  const labels = Object.fromEntries(Object.entries(flux.metadata.labels ?? {}).filter(([key]) => !key.includes('toolkit.fluxcd.io/')));
  const release: HelmRelease = {
    apiVersion: HELMRELEASE_API_VERSION,
    kind: HELMRELEASE_KIND,
    metadata: {
      name,
      namespace,
      ...(Object.keys(labels).length > 0 ? { labels } : {}),
      ...(handover
        ? { annotations: { [ADOPT_RELEASE_ANNOTATION]: `${target.namespace}/${target.releaseName}`, [ADOPT_FROM_FLUX_ANNOTATION]: `${namespace}/${name}` } }
        : {}),
    },
    spec: fitted.value as HelmRelease['spec'],
  };
  return { source, release, notes };
}

/** List entries that mean something else without one of their fields: dropped whole, never half-carried. */
const WHOLE_ENTRIES: Array<{ pattern: RegExp; why: string }> = [
  { pattern: /^spec\.(valuesFrom)\[([0-9]+)\]\.(targetPath)$/, why: 'the key would be merged as a whole values document' },
];

function wholeEntryLost(path: string): { list: string; index: number; why: string } | undefined {
  for (const { pattern, why } of WHOLE_ENTRIES) {
    const match = pattern.exec(path);
    if (match) return { list: match[1]!, index: Number(match[2]), why };
  }
  return undefined;
}

const DROPPED = Symbol('dropped');

export interface FluxReleaseTarget {
  releaseName: string;
  namespace: string;
  storageNamespace: string;
}

/** Pure: where Flux put the release: helm-controller's GetReleaseName, ShortenName, GetStorageNamespace. */
export function fluxReleaseTarget(flux: FluxObject, defaultNamespace = 'default'): FluxReleaseTarget {
  const spec = record(flux.spec);
  const namespace = flux.metadata.namespace ?? defaultNamespace;
  const targetNamespace = text(spec.targetNamespace);
  const name = text(spec.releaseName) ?? (targetNamespace ? `${targetNamespace}-${flux.metadata.name}` : flux.metadata.name);
  return { releaseName: shortenName(name), namespace: targetNamespace ?? namespace, storageNamespace: text(spec.storageNamespace) ?? namespace };
}

/** helm-controller's release.ShortenName: past 53 characters, the first 40 and 12 hex of its sha256. */
export function shortenName(name: string): string {
  if (name.length <= 53) return name;
  return `${name.slice(0, 40)}-${createHash('sha256').update(name).digest('hex').slice(0, 12)}`;
}
