import { Type, type Static } from '@sinclair/typebox';
import { BoundedDuration, celRules, type CelRule, DNS_LABEL_PATTERN, FreeFormObject, StringEnum } from './schema-helpers.js';
import { DURATION_BOUNDS } from './duration.js';
import { CommonMetadata, CrdsPolicy, PostRenderers } from './post-render.js';
import type { HelmReleaseStatus } from './helmrelease-status.js';
import { API_GROUP, API_VERSION, HELMRELEASE_KIND } from './vocabulary.js';

/**
 * The HelmRelease API: one TypeBox source gives the TypeScript types (Static<>) and the CRD's
 * OpenAPI schema (src/api/crd.ts), so the two cannot drift. Field names follow Flux's
 * HelmRelease v2 where the concept is the same.
 */

/** `{name}` of an object in the HelmRelease's own namespace. */
function LocalObjectName(opts: { description: string }) {
  return Type.Object({ name: Type.String({ pattern: '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$', maxLength: 253 }) }, opts);
}

/** `spec.chart.git.ref`: at most one of these; none follows the repository's default branch (its HEAD). */
export const GitRef = Type.Object(
  {
    branch: Type.Optional(
      Type.String({ pattern: '^[^\\s~^:?*\\[\\\\]+$', maxLength: 250, description: 'Follow this branch: a new commit on it upgrades the release.' }),
    ),
    tag: Type.Optional(
      Type.String({ pattern: '^[^\\s~^:?*\\[\\\\]+$', maxLength: 250, description: 'This tag (annotated tags are followed to their commit).' }),
    ),
    semver: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'The newest tag matching this semver range (v1.2.0 and 1.2.0 both count): a new matching tag upgrades the release.',
      }),
    ),
    commit: Type.Optional(Type.String({ pattern: '^[0-9a-f]{40}$', description: 'This commit (the full 40-character SHA-1).' })),
  },
  {
    description: 'Which commit of the repository: at most one of branch, tag, semver, commit. Default: the remote HEAD (its default branch).',
    ...celRules({
      rule: '[has(self.branch), has(self.tag), has(self.semver), has(self.commit)].filter(x, x).size() <= 1',
      message: 'give at most one of branch, tag, semver, commit',
    }),
  },
);

/** `spec.chart.git`: a chart folder in a Git repository, fetched with Debian's git client. */
export const GitChartSource = Type.Object(
  {
    url: Type.String({
      pattern: '^(https?|ssh)://[^\\s]+$',
      maxLength: 2048,
      description: 'The repository: https://host/path.git (http:// on loopback) or ssh://user@host[:port]/path.git. No password in it: use secretRef.',
      ...celRules(
        { rule: "!self.matches('^[a-z]+://[^/@]*:[^/@]*@')", message: 'must not carry a password: put credentials in the Secret named by secretRef' },
        {
          rule: "!self.matches('(?i)^[a-z]+://([^/@]*@)?(169[.]254[.]|[[]fe[89ab][0-9a-f]*:|[[]::ffff:169[.]254[.]|metadata[.]google[.]internal([:/]|$))')",
          message: 'must not point at a link-local address or a cloud metadata service',
        },
      ),
    }),
    ref: Type.Optional(GitRef),
    path: Type.Optional(
      Type.String({
        pattern: '^[^/\\s][^\\s]*$',
        maxLength: 1024,
        description: 'The chart folder in the repository (it holds Chart.yaml). Default: the repository root.',
        ...celRules({ rule: "!self.split('/').exists(p, p == '..')", message: 'must stay inside the repository (no ..)' }),
      }),
    ),
    secretRef: Type.Optional(
      LocalObjectName({
        description:
          "A Secret in this namespace, read as the HelmRelease's identity: `username` + `password` (https://; a token goes in password), or `identity` (an SSH private key) + `known_hosts` (ssh://, required: host keys are always checked).",
      }),
    ),
    interval: Type.Optional(
      BoundedDuration(DURATION_BOUNDS.minInterval, DURATION_BOUNDS.maxInterval, {
        description: 'How often the repository is asked for its refs (one git ls-remote per repository and credentials). Default: spec.interval.',
      }),
    ),
  },
  { description: "A chart from a Git repository (instead of repository): its version is Chart.yaml's, its revision the version plus the commit." },
);

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
        rule: '!has(self.git) || (!has(self.version) && !has(self.secretRef) && !has(self.certSecretRef))',
        message:
          "a git chart's version is its Chart.yaml's, and its credentials are in git.secretRef: version, secretRef and certSecretRef are for repositories",
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

const Retries = Type.Integer({
  minimum: -1,
  maximum: 100,
  description: 'Attempts after the first failure before giving up; -1 = no limit. Default: 0.',
});

const RemediateLastFailure = Type.Boolean({
  description: 'Remediate the last failure too, once retries are used up. Default: true once a remediation block is declared (Flux: only when retries > 0).',
});

export const InstallRemediation = Type.Object(
  { retries: Type.Optional(Retries), remediateLastFailure: Type.Optional(RemediateLastFailure) },
  { description: 'What to do when an install (or its helm test) fails: the failed release is uninstalled before each retry.' },
);

export const UpgradeRemediation = Type.Object(
  {
    retries: Type.Optional(Retries),
    strategy: Type.Optional(
      StringEnum(['rollback', 'uninstall'] as const, {
        description: 'rollback (default): helm rollback to the last deployed revision; uninstall: remove the release, then install again.',
      }),
    ),
    remediateLastFailure: Type.Optional(RemediateLastFailure),
  },
  { description: 'What to do when an upgrade (or its helm test) fails.' },
);

const DisableWait = Type.Boolean({ description: 'Do not wait for the resources to become ready (no helm --wait).' });

/** A per-action timeout; the default is spec.timeout. */
function ActionTimeout(action: string) {
  return BoundedDuration(DURATION_BOUNDS.minTimeout, DURATION_BOUNDS.maxTimeout, { description: `Time allowed for the ${action}. Default: spec.timeout.` });
}
const DisableHooks = Type.Boolean({ description: "Do not run the chart's hooks for this action (helm --no-hooks)." });
const DisableWaitForJobs = Type.Boolean({
  description: 'Do not wait for Jobs to complete (helm --wait-for-jobs is passed by default, as Flux does, whenever helmcrew waits).',
});
const CleanupOnFail = Type.Boolean({ description: 'Delete the objects this action created when it fails (helm --cleanup-on-fail).' });
const DisableSchemaValidation = Type.Boolean({
  description: "Do not check the values against the chart's values.schema.json (helm --skip-schema-validation).",
});
const DisableTakeOwnership = Type.Boolean({
  description:
    'Do not take over objects that already exist in the cluster (helm --take-ownership is passed by default, as Flux does; helm then adopts them whoever created them).',
});
const ServerSideApplyMode = StringEnum(['enabled', 'disabled', 'auto'] as const, {
  description: "enabled: server-side apply (forcing conflicts, as Flux does); disabled: client-side; auto (default): what the release's last revision used.",
});

export const RetryStrategy = Type.Object(
  {
    name: StringEnum(['RemediateOnFailure', 'RetryOnFailure'] as const, {
      description:
        'RemediateOnFailure (default): the remediation block applies. RetryOnFailure: try again every retryInterval, never rolling back or uninstalling.',
    }),
    retryInterval: Type.Optional(
      BoundedDuration(DURATION_BOUNDS.minTimeout, DURATION_BOUNDS.maxInterval, { description: 'RetryOnFailure: the wait between attempts. Default: 5m.' }),
    ),
  },
  {
    description: 'What happens after a failure (Flux: strategy).',
    ...celRules({
      rule: "!has(self.retryInterval) || self.name == 'RetryOnFailure'",
      message: 'retryInterval is for RetryOnFailure',
      fieldPath: '.retryInterval',
    }),
  },
);

export const InstallSpec = Type.Object({
  createNamespace: Type.Optional(Type.Boolean({ description: 'Create the target namespace when missing.' })),
  remediation: Type.Optional(InstallRemediation),
  disableWait: Type.Optional(DisableWait),
  crds: Type.Optional(CrdsPolicy("On install. Default: Create (helm's own behaviour).")),
  timeout: Type.Optional(ActionTimeout('install')),
  disableHooks: Type.Optional(DisableHooks),
  disableWaitForJobs: Type.Optional(DisableWaitForJobs),
  replace: Type.Optional(Type.Boolean({ description: 'Reuse the name of an uninstalled release whose records were kept (helm install --replace).' })),
  disableSchemaValidation: Type.Optional(DisableSchemaValidation),
  disableTakeOwnership: Type.Optional(DisableTakeOwnership),
  serverSideApply: Type.Optional(Type.Boolean({ description: 'Server-side apply, forcing conflicts (default true, as helm 4 and Flux); false: client-side.' })),
  strategy: Type.Optional(RetryStrategy),
});

export const UpgradeSpec = Type.Object({
  remediation: Type.Optional(UpgradeRemediation),
  force: Type.Optional(Type.Boolean({ description: 'helm upgrade --force: replace objects instead of patching them.' })),
  disableWait: Type.Optional(DisableWait),
  crds: Type.Optional(CrdsPolicy('On upgrade (helm itself never touches CRDs then). Default: Skip.')),
  timeout: Type.Optional(ActionTimeout('upgrade')),
  disableHooks: Type.Optional(DisableHooks),
  disableWaitForJobs: Type.Optional(DisableWaitForJobs),
  cleanupOnFail: Type.Optional(CleanupOnFail),
  disableSchemaValidation: Type.Optional(DisableSchemaValidation),
  disableTakeOwnership: Type.Optional(DisableTakeOwnership),
  serverSideApply: Type.Optional(ServerSideApplyMode),
  strategy: Type.Optional(RetryStrategy),
});

export const TestSpec = Type.Object({
  enable: Type.Optional(Type.Boolean({ description: 'Run `helm test` after every install and upgrade.' })),
  ignoreFailures: Type.Optional(Type.Boolean({ description: 'A failed test is reported (TestSuccess=False) but not remediated; the release stays Ready.' })),
  timeout: Type.Optional(
    BoundedDuration(DURATION_BOUNDS.minTimeout, DURATION_BOUNDS.maxTimeout, { description: 'Time allowed for the test pods. Default: spec.timeout.' }),
  ),
  filters: Type.Optional(
    Type.Array(
      Type.Object({
        name: Type.String({ minLength: 1, maxLength: 253, pattern: '^[^,=!\\s]+$', description: 'The test hook (its object name).' }),
        exclude: Type.Optional(Type.Boolean({ description: 'Skip this test instead of running only the named ones.' })),
      }),
      { maxItems: 64, description: 'Which tests run (helm test --filter): the named ones, or all but the excluded ones.' },
    ),
  ),
});

export const RollbackSpec = Type.Object(
  {
    timeout: Type.Optional(ActionTimeout('rollback')),
    disableHooks: Type.Optional(DisableHooks),
    disableWait: Type.Optional(DisableWait),
    disableWaitForJobs: Type.Optional(DisableWaitForJobs),
    cleanupOnFail: Type.Optional(CleanupOnFail),
    force: Type.Optional(Type.Boolean({ description: 'Replace objects instead of patching them (helm rollback --force-replace, client-side).' })),
    serverSideApply: Type.Optional(ServerSideApplyMode),
  },
  { description: 'Options of every helm rollback: remediation of a failed upgrade, and /release rollback.' },
);

export const UninstallSpec = Type.Object({
  keepHistory: Type.Optional(Type.Boolean({ description: 'helm uninstall --keep-history: keep the release records.' })),
  timeout: Type.Optional(
    BoundedDuration(DURATION_BOUNDS.minTimeout, DURATION_BOUNDS.maxTimeout, { description: 'Time allowed for the uninstall. Default: spec.timeout.' }),
  ),
  disableHooks: Type.Optional(DisableHooks),
  disableWait: Type.Optional(Type.Boolean({ description: 'Do not wait for the objects to be deleted.' })),
  deletionPropagation: Type.Optional(
    StringEnum(['background', 'foreground', 'orphan'] as const, { description: 'How dependents are deleted (helm uninstall --cascade). Default: background.' }),
  ),
});

export const DependencyReference = Type.Object({
  name: Type.String({ pattern: DNS_LABEL_PATTERN, maxLength: 253, description: 'Name of the HelmRelease this one waits for.' }),
  namespace: Type.Optional(Type.String({ pattern: DNS_LABEL_PATTERN, maxLength: 63, description: "Its namespace. Default: this HelmRelease's." })),
});

/** Kinds and names as the API server spells them; a target matches when every field it sets matches. */
export const DriftIgnoreTarget = Type.Object({
  kind: Type.Optional(Type.String({ pattern: '^[A-Za-z][A-Za-z0-9]*$', maxLength: 63, description: 'Object kind, e.g. Deployment.' })),
  name: Type.Optional(Type.String({ pattern: '^[a-z0-9]([-a-z0-9.:]*[a-z0-9])?$', maxLength: 253, description: 'Object name.' })),
});

export const DriftIgnoreRule = Type.Object({
  paths: Type.Array(
    Type.String({
      pattern: '^(/([^/~]|~[01])*)*$',
      maxLength: 512,
      description: 'A JSON pointer (RFC 6901) into the object, e.g. /spec/replicas; "" ignores the whole object.',
    }),
    { minItems: 1, maxItems: 32 },
  ),
  target: Type.Optional(DriftIgnoreTarget),
});

export const DriftDetectionSpec = Type.Object(
  {
    mode: Type.Optional(
      StringEnum(['enabled', 'warn', 'disabled'] as const, {
        description:
          'enabled: correct drift and report it (DriftCorrected); warn: report it only (Drifted=True, DriftDetected); disabled (default): do not look.',
      }),
    ),
    ignore: Type.Optional(
      Type.Array(DriftIgnoreRule, { maxItems: 32, description: 'Fields that other controllers or people own: never drift, never corrected.' }),
    ),
  },
  { description: 'Compare the live objects with what Helm last applied, at every interval.' },
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
    values: Type.Optional(FreeFormObject({ description: 'Helm values, merged over valuesFrom.' })),
    valuesFrom: Type.Optional(Type.Array(ValuesReference, { maxItems: 32 })),
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
    install: Type.Optional(InstallSpec),
    upgrade: Type.Optional(UpgradeSpec),
    test: Type.Optional(TestSpec),
    rollback: Type.Optional(RollbackSpec),
    uninstall: Type.Optional(UninstallSpec),
    dependsOn: Type.Optional(
      Type.Array(DependencyReference, {
        maxItems: 64,
        description: 'HelmReleases that must be Ready (at their current generation) before this one is installed or upgraded.',
      }),
    ),
    maxHistory: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000, description: 'Revisions helm keeps. Default: 10; 0 = unlimited.' })),
    driftDetection: Type.Optional(DriftDetectionSpec),
    postRenderers: Type.Optional(PostRenderers),
    commonMetadata: Type.Optional(CommonMetadata),
  },
  {
    description: 'The desired state of a Helm release.',
    // On the parent, not the fields: a rule on a field does not run when the old object lacked
    // it, so adding (or removing) releaseName or targetNamespace would move the release silently.
    ...celRules(immutableOptional('releaseName'), immutableOptional('targetNamespace')),
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
export type GitChartSource = Static<typeof GitChartSource>;
export type GitRef = Static<typeof GitRef>;
export type ValuesReference = Static<typeof ValuesReference>;
export type HelmReleaseSpec = Static<typeof HelmReleaseSpec>;
export type DependencyReference = Static<typeof DependencyReference>;
export type DriftDetectionSpec = Static<typeof DriftDetectionSpec>;
export type DriftIgnoreRule = Static<typeof DriftIgnoreRule>;
export type RollbackSpec = Static<typeof RollbackSpec>;
export type RetryStrategy = Static<typeof RetryStrategy>;

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

export const HELMRELEASE_API_VERSION = `${API_GROUP}/${API_VERSION}` as const;
