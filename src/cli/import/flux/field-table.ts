import { HELM_CHART_LAYER } from '../../../api/chart-fetch.js';
import { toOpenApi } from '../../../api/schema-helpers.js';
import { HelmReleaseSpec } from '../../../api/helmrelease.js';
import { schemaKnows, type JsonSchema } from '../schema-fit.js';

/**
 * Flux helm-controller v1.6.3's HelmRelease (and source-controller's sources) field by field
 * against helmcrew's. The import uses it for the reasons it gives; docs/flux-import.md shows it
 * (test/unit/flux-import.test.ts checks the two agree). A `same` row is carried under the same
 * name whenever helmcrew's schema has the field, so a field helmcrew gains later carries with no
 * change here.
 */

export interface FieldRow {
  /** The Flux field: `spec.install.replace`, `HelmRepository spec.url`; `[]` marks a list. */
  flux: string;
  /** Where it goes: `same` (that path in helmcrew's spec), another path, or null (not carried). */
  helmcrew: string | null;
  note: string;
}

const NO_EQUIVALENT = 'helmcrew has no equivalent';
const OPENAPI = "handled differently: helmcrew always skips helm's client-side OpenAPI check; the API server validates";
const WORKLOAD_IDENTITY =
  "helmcrew has no equivalent: no workload identity for target clusters (Flux's cloud-provider kubeconfig); put a kubeconfig in a Secret and use spec.kubeConfig.secretRef";
const NO_SOURCE_OBJECTS = 'handled differently: helmcrew has no source objects; the chart is inline in spec.chart';

/** Flux v1.6.3's options of each action (api/v2/helmrelease_types.go), each carried under its name when helmcrew has it. */
const ACTION_OPTIONS: Record<string, string[]> = {
  install: [
    'timeout',
    'strategy.name, retryInterval',
    'remediation.retries, remediateLastFailure',
    'remediation.ignoreTestFailures',
    'disableTakeOwnership',
    'disableWait',
    'disableWaitForJobs',
    'disableHooks',
    'disableSchemaValidation',
    'replace',
    'crds',
    'skipCRDs',
    'createNamespace',
    'serverSideApply',
  ],
  upgrade: [
    'timeout',
    'strategy.name, retryInterval',
    'remediation.retries, strategy, remediateLastFailure',
    'remediation.ignoreTestFailures',
    'disableTakeOwnership',
    'disableWait',
    'disableWaitForJobs',
    'disableHooks',
    'disableSchemaValidation',
    'force',
    'preserveValues',
    'cleanupOnFail',
    'crds',
    'serverSideApply',
    'chartNameChangeStrategy',
  ],
  rollback: ['timeout', 'disableWait', 'disableWaitForJobs', 'disableHooks', 'recreate', 'force', 'cleanupOnFail', 'serverSideApply'],
  uninstall: ['timeout', 'disableHooks', 'keepHistory', 'disableWait', 'deletionPropagation'],
  test: ['enable', 'timeout', 'ignoreFailures', 'filters'],
};

const RECREATE = 'handled differently: helm 4 removed pod recreation (helm#31023); Flux v1.6.3 ignores the field too, with a warning';

/** Notes of action options whose meaning or default is not simply Flux's. */
const ACTION_NOTES: Record<string, string> = {
  'spec.install.skipCRDs': 'Deprecated in Flux: true is crds: Skip, and crds wins (Flux v1.6.3 no longer reads it; helmcrew keeps its documented meaning).',
  'spec.upgrade.preserveValues': "helm --reuse-values; in sync when the declared values are all in the release's.",
  'spec.upgrade.chartNameChangeStrategy': "helmcrew's default is InPlaceUpdate, Flux's Reinstall: set Reinstall to keep Flux's behaviour.",
  'spec.rollback.recreate': RECREATE,
};

function actionRows(): FieldRow[] {
  const rows = Object.entries(ACTION_OPTIONS).flatMap(([action, options]) =>
    options.map((option): FieldRow => {
      const flux = `spec.${action}.${option}`;
      return flux === 'spec.rollback.recreate' ? { flux, helmcrew: null, note: RECREATE } : { flux, helmcrew: 'same', note: ACTION_NOTES[flux] ?? '' };
    }),
  );
  rows.push({ flux: 'spec.install.disableOpenAPIValidation, spec.upgrade.disableOpenAPIValidation', helmcrew: null, note: OPENAPI });
  return rows;
}

export const FLUX_FIELDS: readonly FieldRow[] = [
  { flux: 'spec.chart.spec.sourceRef', helmcrew: 'spec.chart', note: 'The source is resolved into the inline chart (rows below).' },
  { flux: 'spec.chart.spec.chart', helmcrew: 'spec.chart.name', note: 'For a GitRepository: spec.chart.git.path.' },
  { flux: 'spec.chart.spec.version', helmcrew: 'spec.chart.version', note: 'Exact or a semver range; ignored for Git charts, as in Flux.' },
  {
    flux: 'spec.chart.spec.interval',
    helmcrew: null,
    note: 'handled differently: versions are resolved at spec.interval (Git charts: spec.chart.git.interval).',
  },
  {
    flux: 'spec.chart.spec.valuesFiles',
    helmcrew: 'spec.chart.valuesFiles',
    note: "The chart's own values files, over the chart's values.yaml (Flux drops values.yaml unless listed).",
  },
  { flux: 'spec.chart.spec.ignoreMissingValuesFiles', helmcrew: 'spec.chart.ignoreMissingValuesFiles', note: '' },
  { flux: 'spec.chart.spec.reconcileStrategy', helmcrew: null, note: 'handled differently: a Git chart follows its commit, other charts their version.' },
  {
    flux: 'spec.chart.spec.verify',
    helmcrew: 'spec.chart.verify',
    note: 'OCI charts: cosign and notation verified; the Secret must be in the HelmRelease’s namespace.',
  },
  { flux: 'spec.chart.metadata', helmcrew: null, note: 'handled differently: helmcrew creates no HelmChart object.' },
  { flux: 'spec.chartRef', helmcrew: 'spec.chart', note: 'OCIRepository: oci:// repository, name and version; HelmChart: its chart and source.' },
  { flux: 'HelmRepository spec.url', helmcrew: 'spec.chart.repository', note: 'type: oci gives an oci:// repository.' },
  { flux: 'HelmRepository spec.secretRef', helmcrew: 'spec.chart.secretRef', note: "The Secret must be in the HelmRelease's namespace." },
  { flux: 'HelmRepository spec.certSecretRef', helmcrew: 'spec.chart.certSecretRef', note: "The Secret must be in the HelmRelease's namespace." },
  { flux: 'HelmRepository spec.insecure', helmcrew: 'spec.chart.insecure', note: 'oci:// only, as in Flux.' },
  {
    flux: 'HelmRepository spec.passCredentials',
    helmcrew: null,
    note: "not carried by choice: credentials go only to the repository's own origin (helm's default); an index naming archives elsewhere gets them fetched without.",
  },
  { flux: 'HelmRepository spec.provider', helmcrew: null, note: `${NO_EQUIVALENT}: no cloud workload identity; use secretRef.` },
  {
    flux: 'HelmRepository spec.proxySecretRef',
    helmcrew: 'spec.chart.proxySecretRef',
    note: "address, username, password as Flux; the index and archives go through it, the host policy still applied. The Secret must be in the HelmRelease's namespace.",
  },
  { flux: 'HelmRepository spec.interval, timeout, suspend, accessFrom', helmcrew: null, note: NO_SOURCE_OBJECTS },
  { flux: 'OCIRepository spec.url', helmcrew: 'spec.chart.repository', note: 'The last path segment is spec.chart.name.' },
  { flux: 'OCIRepository spec.ref.tag, spec.ref.semver', helmcrew: 'spec.chart.version', note: 'No ref: the newest version (Flux: the tag latest).' },
  {
    flux: 'OCIRepository spec.ref.digest',
    helmcrew: null,
    note: "handled differently: helmcrew pins the digest a version's tag points at, not a digest given.",
  },
  {
    flux: 'OCIRepository spec.ref.semverFilter',
    helmcrew: 'spec.chart.semverFilter',
    note: 'A regular expression over the tags before the range (JavaScript syntax; the usual RE2 filters read the same).',
  },
  { flux: 'OCIRepository spec.secretRef, certSecretRef, insecure', helmcrew: 'spec.chart.secretRef, certSecretRef, insecure', note: '' },
  {
    flux: 'OCIRepository spec.verify',
    helmcrew: 'spec.chart.verify',
    note: 'cosign (keys, or keyless matchOIDCIdentity) and notation (trust policy and certificates) verified.',
  },
  {
    flux: 'OCIRepository spec.proxySecretRef',
    helmcrew: 'spec.chart.proxySecretRef',
    note: 'Tags, digests and the chart layer go through it (the controller pulls the layer itself).',
  },
  {
    flux: 'OCIRepository spec.layerSelector',
    helmcrew: 'spec.chart.layerSelector',
    note: `Only the chart layer (${HELM_CHART_LAYER}), extract or copy: the helm CLI installs nothing else; another media type is reported, not carried.`,
  },
  { flux: 'OCIRepository spec.provider, serviceAccountName', helmcrew: null, note: `${NO_EQUIVALENT}: no cloud workload identity; use secretRef.` },
  { flux: 'GitRepository spec.url', helmcrew: 'spec.chart.git.url', note: '' },
  {
    flux: 'GitRepository spec.ref.branch, tag, semver, commit, name',
    helmcrew: 'spec.chart.git.ref',
    note: 'One of them: when Flux has several, its precedence (commit, name, semver, tag, branch) picks.',
  },
  { flux: 'GitRepository spec.secretRef', helmcrew: 'spec.chart.git.secretRef', note: "The Secret must be in the HelmRelease's namespace." },
  { flux: 'GitRepository spec.interval', helmcrew: 'spec.chart.git.interval', note: '' },
  {
    flux: 'GitRepository spec.proxySecretRef',
    helmcrew: 'spec.chart.git.proxySecretRef',
    note: "https:// only (git's http.proxy). The Secret must be in the HelmRelease's namespace.",
  },
  { flux: 'GitRepository spec.verify', helmcrew: 'spec.chart.git.verify', note: "mode and secretRef; the Secret must be in the HelmRelease's namespace." },
  { flux: 'GitRepository spec.sparseCheckout', helmcrew: 'spec.chart.git.sparseCheckout', note: '' },
  { flux: 'GitRepository spec.recurseSubmodules', helmcrew: 'spec.chart.git.recurseSubmodules', note: '' },
  {
    flux: 'GitRepository spec.include',
    helmcrew: null,
    note: `${NO_EQUIVALENT}: it names other GitRepository objects, and helmcrew has no source objects; an inline second repository would need its own credentials, ref and verification (not built).`,
  },
  { flux: 'GitRepository spec.ignore, provider', helmcrew: null, note: NO_EQUIVALENT },
  {
    flux: 'Bucket, ExternalArtifact sources',
    helmcrew: null,
    note: `${NO_EQUIVALENT}: helm installs from a repository, a registry or a folder, and helmcrew has no bucket or artifact client; publish the chart to one.`,
  },
  {
    flux: 'spec.releaseName',
    helmcrew: 'same',
    note: "Always written: Flux's default ([targetNamespace-]name, shortened past 53 characters) is not helmcrew's (metadata.name).",
  },
  { flux: 'spec.targetNamespace', helmcrew: 'same', note: '' },
  {
    flux: 'spec.storageNamespace',
    helmcrew: 'same',
    note: "Accepted only equal to targetNamespace: helm's CLI keeps records in the namespace it installs into. The import writes none; records Flux keeps elsewhere are moved there by --move-records (the Flux HelmRelease suspended), history and rollback kept.",
  },
  { flux: 'spec.interval', helmcrew: 'same', note: '' },
  { flux: 'spec.timeout', helmcrew: 'same', note: '' },
  { flux: 'spec.suspend', helmcrew: 'same', note: 'Not carried when true: the move suspends the Flux HelmRelease first (reported).' },
  { flux: 'spec.serviceAccountName', helmcrew: 'same', note: 'helmcrew also reads valuesFrom and release records as it.' },
  { flux: 'spec.maxHistory', helmcrew: 'same', note: "Flux's default 5 is written when unset (helmcrew's is 10)." },
  { flux: 'spec.persistentClient', helmcrew: null, note: 'handled differently: every helm action is its own process.' },
  {
    flux: 'spec.kubeConfig.secretRef.name, key',
    helmcrew: 'same',
    note: 'Key `value`, else `value.yaml`, as Flux. A kubeconfig that runs an exec plugin or names a file is refused unless the operator sets `HELMCREW_ALLOW_KUBECONFIG_EXEC=true`.',
  },
  {
    flux: 'spec.kubeConfig.configMapRef',
    helmcrew: null,
    note: `${WORKLOAD_IDENTITY}; a HelmRelease that has only it is not carried (it would install into this cluster).`,
  },
  { flux: 'spec.dependsOn[].name, namespace', helmcrew: 'same', note: '' },
  {
    flux: 'spec.dependsOn[].readyExpr',
    helmcrew: 'same',
    note: '`dep` is the helmcrew HelmRelease the import makes of the dependency (the same field names); the expression replaces the built-in Ready check, as in Flux.',
  },
  {
    flux: 'spec.dependsOn[].apiVersion, kind, ready (helm-controller PR #1480)',
    helmcrew: 'same',
    note: 'Any object: a CRD Established, a Deployment Available (kstatus) with ready: true; else it must exist.',
  },
  { flux: 'spec.values', helmcrew: 'same', note: '' },
  { flux: 'spec.valuesFrom[].kind, name, valuesKey, optional', helmcrew: 'same', note: 'optional: helmcrew also ignores a missing key.' },
  { flux: 'spec.valuesFrom[].targetPath', helmcrew: 'same', note: '' },
  ...actionRows(),
  { flux: 'spec.driftDetection.mode, ignore[].paths', helmcrew: 'same', note: '' },
  {
    flux: 'spec.driftDetection.ignore[].target',
    helmcrew: 'same',
    note: 'helmcrew matches kind and name; other selectors are reported (the rule then ignores more).',
  },
  { flux: 'spec.postRenderers[].kustomize.patches', helmcrew: 'same', note: '' },
  { flux: 'spec.postRenderers[].kustomize.images', helmcrew: 'same', note: '' },
  { flux: 'spec.postRenderStrategy', helmcrew: 'same', note: 'nohooks, combined (default, as Flux) or separate.' },
  { flux: 'spec.commonMetadata.labels, annotations', helmcrew: 'same', note: '' },
  { flux: 'spec.waitStrategy', helmcrew: null, note: "handled differently: helmcrew always waits with kstatus (helm --wait=watcher), Flux's default poller." },
  {
    flux: 'spec.healthCheckExprs',
    helmcrew: 'same',
    note: 'Judged whenever the action waits (Flux: only with waitStrategy poller): `failed` while helm waits (helm is stopped), every expression after it; an expression that does not compile is Ready=False InvalidCELExpression before helm runs.',
  },
  { flux: 'metadata.annotations reconcile.fluxcd.io/*', helmcrew: null, note: 'handled differently: helmcrew.dev/requestedAt and the /release bot.' },
];

/** Reasons for Flux fields the schema walk drops, by path with list indexes as `[]`. */
const SPECIFIC_REASONS: Record<string, string> = {
  'spec.install.disableOpenAPIValidation': OPENAPI,
  'spec.upgrade.disableOpenAPIValidation': OPENAPI,
  'spec.rollback.recreate': RECREATE,
  'spec.persistentClient': 'handled differently: every helm action is its own process',
  'spec.kubeConfig.configMapRef': WORKLOAD_IDENTITY,
  'spec.waitStrategy': "handled differently: helmcrew always waits with kstatus (helm --wait=watcher), Flux's default poller",
  'spec.driftDetection.ignore[].target.group': 'helmcrew matches kind and name only, so this rule now ignores more objects',
  'spec.driftDetection.ignore[].target.version': 'helmcrew matches kind and name only, so this rule now ignores more objects',
  'spec.driftDetection.ignore[].target.namespace': 'helmcrew matches kind and name only, so this rule now ignores more objects',
  'spec.driftDetection.ignore[].target.labelSelector': 'helmcrew matches kind and name only, so this rule now ignores more objects',
  'spec.driftDetection.ignore[].target.annotationSelector': 'helmcrew matches kind and name only, so this rule now ignores more objects',
};

/** The reason a Flux field at this path is not carried. */
export function reasonFor(path: string): string {
  const general = path.replace(/\[[0-9]+\]/g, '[]');
  return SPECIFIC_REASONS[general] ?? NO_EQUIVALENT;
}

const SPEC_SCHEMA = toOpenApi(HelmReleaseSpec) as JsonSchema;

/** Pure: whether helmcrew's schema (as built now) has a `same` row's field; for the docs table. */
export function carriedNow(row: FieldRow, schema: JsonSchema = SPEC_SCHEMA): boolean {
  if (row.helmcrew === null) return false;
  if (row.helmcrew !== 'same')
    return schemaKnows(
      schema,
      row.helmcrew
        .split(',')[0]!
        .trim()
        .replace(/^spec\./, ''),
    );
  const first = row.flux
    .split(',')[0]!
    .trim()
    .replace(/\.\*$/, '')
    .replace(/^spec\./, '');
  return schemaKnows(schema, first);
}

/** The Markdown table in docs/flux-import.md, from FLUX_FIELDS and helmcrew's schema. */
export function renderFieldTable(schema: JsonSchema = SPEC_SCHEMA): string {
  const lines = ['| Flux field | helmcrew field | carried now | notes |', '|---|---|---|---|'];
  for (const row of FLUX_FIELDS) {
    const target = row.helmcrew === 'same' ? 'same name' : row.helmcrew === null ? '—' : `\`${row.helmcrew}\``;
    lines.push(`| \`${row.flux}\` | ${target} | ${carriedNow(row, schema) ? 'yes' : 'no'} | ${row.note} |`);
  }
  return `${lines.join('\n')}\n`;
}
