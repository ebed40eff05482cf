import { Type, type Static } from '@sinclair/typebox';
import { GitChartSource } from './git-source.js';
import { Decryption } from './decryption.js';
import { BoundedDuration, celRules, type CelRule, DNS_LABEL_PATTERN, FreeFormObject, LocalObjectName, StringEnum } from './schema-helpers.js';
import { DURATION_BOUNDS } from './duration.js';
import { CommonMetadata, PostRenderers, PostRenderStrategy } from './post-render.js';
import { InstallSpec, RollbackSpec, TestSpec, UninstallSpec, UpgradeSpec } from './release-actions.js';
import type { HelmReleaseStatus } from './helmrelease-status.js';
import { API_GROUP, API_VERSION, HELMRELEASE_KIND } from './vocabulary.js';
import { DependencyReference } from './dependency.js';
import { HealthCheckExprs } from './health-checks.js';
import { ApprovalSpec, ImageUpdate } from './image-updates.js';
import { ArtifactVerification } from './verification.js';
import { DriftDetectionSpec } from './drift-detection.js';
import { LayerSelector, ProxySecretRef, SemverFilter } from './chart-fetch.js';

/**
 * The HelmRelease API: one TypeBox source gives the TypeScript types (Static<>) and the CRD's
 * OpenAPI schema (src/api/crd.ts), so the two cannot drift. Field names follow Flux's
 * HelmRelease v2 where the concept is the same.
 */

export const ChartRef = Type.Object(
  {
    git: Type.Optional(GitChartSource),
    repository: Type.Optional(
      Type.String({
        pattern: '^(https?|oci)://[^\\s]+$',
        maxLength: 2048,
        description: 'Chart repository: an http(s) Helm repository or an oci:// registry path.',
        // Early, plain feedback for the obvious cases; the controller's host policy checks every
        // address a name resolves to (and other spellings of these addresses) when it fetches.
        ...celRules({
          rule: "!self.matches('(?i)^[a-z]+://([^/@]*@)?(169[.]254[.]|[[]fe[89ab][0-9a-f]*:|[[]::ffff:169[.]254[.]|metadata[.]google[.]internal([:/]|$))')",
          message: 'must not point at a link-local address or a cloud metadata service',
        }),
      }),
    ),
    name: Type.String({
      pattern: '^[a-z0-9]([-a-z0-9_.]*[a-z0-9])?$',
      maxLength: 250,
      description: 'Chart name in the repository (for git, the name in Chart.yaml: checked).',
    }),
    version: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        pattern: '^[^\\s]+( [^\\s]+)*$',
        description: "An exact chart version (1.2.3) or a semver range (2.x, ^2.1), for oci:// too (resolved from the registry's tags). Default: the newest.",
      }),
    ),
    insecure: Type.Optional(Type.Boolean({ description: 'oci:// only: talk plain HTTP to the registry (as for one on loopback). Default: TLS.' })),
    secretRef: Type.Optional(
      LocalObjectName({
        description:
          "A Secret in this namespace, read as the HelmRelease's identity: `username` + `password` (HTTP basic auth, or registry login) or `.dockerconfigjson` (oci:// only).",
      }),
    ),
    certSecretRef: Type.Optional(
      LocalObjectName({
        description: 'A Secret in this namespace with `ca.crt` (the CA to trust), and optionally `tls.crt` + `tls.key` (a client certificate).',
      }),
    ),
    valuesFiles: Type.Optional(
      Type.Array(
        Type.String({
          maxLength: 250,
          // Every part starts with a letter, digit, _ or - (or one dot then one of those): no /, . or .. parts.
          pattern: '^\\.?[A-Za-z0-9_-][A-Za-z0-9_.-]*(/\\.?[A-Za-z0-9_-][A-Za-z0-9_.-]*)*$',
        }),
        {
          maxItems: 32,
          description:
            "Values files inside the chart (relative to its folder, e.g. values-prod.yaml), merged in order over the chart's values.yaml and under valuesFrom and values. Unlike Flux, the chart's values.yaml stays the defaults even when not listed.",
        },
      ),
    ),
    ignoreMissingValuesFiles: Type.Optional(
      Type.Boolean({ description: 'A valuesFiles entry the chart does not have is skipped instead of an error. Default: false.' }),
    ),
    verify: Type.Optional(ArtifactVerification),
    proxySecretRef: Type.Optional(ProxySecretRef),
    layerSelector: Type.Optional(LayerSelector),
    semverFilter: Type.Optional(SemverFilter),
  },
  {
    description: 'Where the chart comes from.',
    ...celRules(
      {
        rule: "!has(self.insecure) || !self.insecure || (has(self.repository) && self.repository.startsWith('oci://'))",
        message: 'insecure (plain HTTP) is for oci:// registries; an http:// repository URL says so itself',
        fieldPath: '.insecure',
      },
      { rule: 'has(self.repository) != has(self.git)', message: 'give exactly one of repository (with name) or git' },
      {
        rule: "!has(self.verify) || self.verify.provider == 'pgp' || (has(self.repository) && self.repository.startsWith('oci://'))",
        message: 'verify: cosign and notation verify oci:// charts, pgp http(s) repository charts (a git chart: git.verify)',
        fieldPath: '.verify',
      },
      {
        rule: "!has(self.layerSelector) || (has(self.repository) && self.repository.startsWith('oci://'))",
        message: 'layerSelector is for oci:// repositories',
        fieldPath: '.layerSelector',
      },
      {
        rule: '!has(self.git) || (!has(self.version) && !has(self.secretRef) && !has(self.certSecretRef) && !has(self.proxySecretRef) && !has(self.semverFilter))',
        message:
          "a git chart's version is its Chart.yaml's, and its credentials and proxy are in git: version, semverFilter, secretRef, certSecretRef and proxySecretRef are for repositories",
      },
      {
        rule: "!has(self.verify) || self.verify.provider != 'pgp' || (has(self.repository) && self.repository.matches('^https?://'))",
        message: 'pgp (helm provenance) is for http(s) repository charts; a git chart is verified by git.verify',
        fieldPath: '.verify',
      },
    ),
  },
);

export const ValuesReference = Type.Object({
  kind: StringEnum(['ConfigMap', 'Secret'] as const, { description: 'Kind of the object holding the values.' }),
  name: Type.String({ pattern: '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$', maxLength: 253 }),
  valuesKey: Type.Optional(Type.String({ pattern: '^[-._a-zA-Z0-9]+$', maxLength: 253, description: 'Data key holding YAML values. Default: values.yaml.' })),
  optional: Type.Optional(Type.Boolean({ description: 'Missing object or key is not an error.' })),
  targetPath: Type.Optional(
    Type.String({
      pattern: '^([a-zA-Z0-9_\\-.\\\\/]|\\[[0-9]{1,5}\\])+$',
      maxLength: 250,
      description:
        "Put the key's whole content at this helm --set path (a.b[0].c, \\. for a dot in a key) instead of merging it as YAML (spec.values still win on the same path, as in Flux). Typed as --set types it (true, 42, null), unless quoted or literal.",
    }),
  ),
  literal: Type.Optional(Type.Boolean({ description: 'With targetPath: the content is one string, taken verbatim (helm --set-literal).' })),
});

/** Flux's spec.kubeConfig: the cluster helm and the release's records live in, when not this one. */
export const KubeConfigReference = Type.Object(
  {
    secretRef: Type.Object(
      {
        name: Type.String({ pattern: '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$', maxLength: 253 }),
        key: Type.Optional(
          Type.String({
            pattern: '^[-._a-zA-Z0-9]+$',
            maxLength: 253,
            description: 'Data key holding the kubeconfig. Default: `value`, else `value.yaml` (a Cluster API `<cluster>-kubeconfig` Secret as it is).',
          }),
        ),
      },
      { description: "A Secret in this HelmRelease's namespace (of this cluster) holding the target cluster's kubeconfig." },
    ),
  },
  {
    description:
      "Install into another cluster: helm, the release records, drift and CRDs act there (serviceAccountName is impersonated there); status, Events and notifications stay here. A kubeconfig that runs a program or names a file on the controller's disk is refused unless the operator allows it.",
  },
);

export const HelmReleaseSpec = Type.Object(
  {
    chart: ChartRef,
    releaseName: Type.Optional(
      Type.String({
        pattern: DNS_LABEL_PATTERN,
        maxLength: 53,
        description: 'Helm release name. Default: metadata.name. Immutable (enforced on spec, see below).',
      }),
    ),
    targetNamespace: Type.Optional(
      Type.String({
        pattern: DNS_LABEL_PATTERN,
        maxLength: 63,
        description: 'Namespace the release is installed in. Default: metadata.namespace. Immutable (enforced on spec, see below).',
      }),
    ),
    storageNamespace: Type.Optional(
      Type.String({
        pattern: DNS_LABEL_PATTERN,
        maxLength: 63,
        description:
          "Where helm keeps the release's records (Flux's field). helm's CLI keeps them in the namespace it installs into, so only that is accepted: give it with an equal targetNamespace. Flux releases whose records live elsewhere: helmcrew import flux --move-records.",
      }),
    ),
    values: Type.Optional(FreeFormObject({ description: 'Helm values, merged over valuesFrom.' })),
    valuesFrom: Type.Optional(Type.Array(ValuesReference, { maxItems: 32 })),
    decryption: Type.Optional(Decryption),
    interval: Type.Optional(
      BoundedDuration(DURATION_BOUNDS.minInterval, DURATION_BOUNDS.maxInterval, {
        description: `How often the release is checked against the cluster, ${DURATION_BOUNDS.minInterval} to ${DURATION_BOUNDS.maxInterval}. Default: 10m.`,
      }),
    ),
    timeout: Type.Optional(
      BoundedDuration(DURATION_BOUNDS.minTimeout, DURATION_BOUNDS.maxTimeout, {
        description: `Time allowed for one helm operation, ${DURATION_BOUNDS.minTimeout} to ${DURATION_BOUNDS.maxTimeout}. Default: 5m.`,
      }),
    ),
    suspend: Type.Optional(Type.Boolean({ description: 'Stop every action for this release; it stays installed.' })),
    serviceAccountName: Type.Optional(
      Type.String({
        pattern: DNS_LABEL_PATTERN,
        maxLength: 253,
        description: 'Run helm impersonating this ServiceAccount of the HelmRelease namespace.',
      }),
    ),
    kubeConfig: Type.Optional(KubeConfigReference),
    install: Type.Optional(InstallSpec),
    upgrade: Type.Optional(UpgradeSpec),
    test: Type.Optional(TestSpec),
    rollback: Type.Optional(RollbackSpec),
    uninstall: Type.Optional(UninstallSpec),
    dependsOn: Type.Optional(
      Type.Array(DependencyReference, {
        maxItems: 64,
        description:
          'HelmReleases (Ready at their current generation, or readyExpr true) or other objects (existing, or ready) that must be so before this one is installed or upgraded.',
      }),
    ),
    maxHistory: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000, description: 'Revisions helm keeps. Default: 10; 0 = unlimited.' })),
    driftDetection: Type.Optional(DriftDetectionSpec),
    postRenderers: Type.Optional(PostRenderers),
    postRenderStrategy: Type.Optional(PostRenderStrategy),
    commonMetadata: Type.Optional(CommonMetadata),
    healthCheckExprs: Type.Optional(HealthCheckExprs),
    imageUpdates: Type.Optional(
      Type.Array(ImageUpdate, {
        maxItems: 16,
        description: 'Images kept current: a newer wanted tag applies on its own, or is proposed when spec.approval asks for approvals.',
      }),
    ),
    approval: Type.Optional(ApprovalSpec),
  },
  {
    description: 'The desired state of a Helm release.',
    // On the parent, not the fields: a rule on a field does not run when the old object lacked
    // it, so adding (or removing) releaseName or targetNamespace would move the release silently.
    ...celRules(immutableOptional('releaseName'), immutableOptional('targetNamespace'), {
      // A CRD rule cannot see metadata.namespace, so the default target is not comparable here: an equal targetNamespace says it.
      rule: '!has(self.storageNamespace) || (has(self.targetNamespace) && self.storageNamespace == self.targetNamespace)',
      message:
        'storageNamespace must equal targetNamespace (give both): helm keeps release records in the namespace it installs into; move records kept elsewhere with helmcrew import flux --move-records',
    }),
  },
);

function immutableOptional(field: string): CelRule {
  return {
    rule: `has(self.${field}) == has(oldSelf.${field}) && (!has(self.${field}) || self.${field} == oldSelf.${field})`,
    message: `${field} is immutable (it cannot be set, changed or removed after creation); create a new HelmRelease instead`,
    fieldPath: `.${field}`,
  };
}

export type ChartRef = Static<typeof ChartRef>;
export type ValuesReference = Static<typeof ValuesReference>;
export type HelmReleaseSpec = Static<typeof HelmReleaseSpec>;
export type KubeConfigReference = Static<typeof KubeConfigReference>;
export { DriftDetectionSpec, DriftIgnoreRule, DriftIgnoreTarget } from './drift-detection.js';

export interface ObjectMeta {
  name: string;
  namespace: string;
  generation?: number;
  resourceVersion?: string;
  uid?: string;
  deletionTimestamp?: string;
  finalizers?: string[];
  creationTimestamp?: string;
  annotations?: Record<string, string>;
  labels?: Record<string, string>;
}

export interface HelmRelease {
  apiVersion: `${typeof API_GROUP}/${typeof API_VERSION}`;
  kind: typeof HELMRELEASE_KIND;
  metadata: ObjectMeta;
  spec: HelmReleaseSpec;
  status?: HelmReleaseStatus;
}

export { GitChartSource, GitRef } from './git-source.js';
export { DependencyReference } from './dependency.js';
export { HealthCheckExpr, HealthCheckExprs } from './health-checks.js';
export { ApprovalSpec, ImagePolicy, ImageUpdate } from './image-updates.js';
export { InstallRemediation, InstallSpec, RetryStrategy, RollbackSpec, TestSpec, UninstallSpec, UpgradeRemediation, UpgradeSpec } from './release-actions.js';

export const HELMRELEASE_API_VERSION = `${API_GROUP}/${API_VERSION}` as const;
