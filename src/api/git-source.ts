import { Type, type Static } from '@sinclair/typebox';
import { BoundedDuration, celRules, LocalObjectName } from './schema-helpers.js';
import { DURATION_BOUNDS } from './duration.js';
import { GitVerification } from './verification.js';
import { ProxySecretRef } from './chart-fetch.js';

/** spec.chart.git of the HelmRelease API: a chart from a Git repository (docs/git-charts.md). */

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
    name: Type.Optional(
      Type.String({
        pattern: '^refs/[^\\s~^:?*\\[\\\\]+$',
        maxLength: 250,
        description: 'A full reference as the server lists it: refs/heads/main, refs/tags/v1.2.0, refs/pull/42/head. A new commit on it upgrades the release.',
        ...celRules({ rule: "!self.split('/').exists(p, p == '..' || p == '')", message: 'must be a full reference name (refs/…), without empty or .. parts' }),
      }),
    ),
  },
  {
    description: 'Which commit of the repository: at most one of branch, tag, semver, commit, name. Default: the remote HEAD (its default branch).',
    ...celRules({
      rule: '[has(self.branch), has(self.tag), has(self.semver), has(self.commit), has(self.name)].filter(x, x).size() <= 1',
      message: 'give at most one of branch, tag, semver, commit, name',
    }),
  },
);

/**
 * `spec.chart.git.dependencies[]`: how to reach one repository that the chart's Chart.yaml
 * dependencies name (matched by URL), as spec.chart's own repository fields.
 */
export const GitChartDependencyRepository = Type.Object(
  {
    repository: Type.String({
      pattern: '^(https?|oci)://[^\\s]+$',
      maxLength: 2048,
      description: "A repository as Chart.yaml's dependencies write it: an http(s) Helm repository or an oci:// registry path.",
      ...celRules({
        rule: "!self.matches('(?i)^[a-z]+://([^/@]*@)?(169[.]254[.]|[[]fe[89ab][0-9a-f]*:|[[]::ffff:169[.]254[.]|metadata[.]google[.]internal([:/]|$))')",
        message: 'must not point at a link-local address or a cloud metadata service',
      }),
    }),
    secretRef: Type.Optional(
      LocalObjectName({
        description:
          "A Secret in this namespace, read as the HelmRelease's identity: `username` + `password`, or `.dockerconfigjson` (oci:// only), as spec.chart.secretRef.",
      }),
    ),
    certSecretRef: Type.Optional(
      LocalObjectName({
        description: 'http(s) only: a Secret in this namespace with `ca.crt`, and optionally `tls.crt` + `tls.key`, as spec.chart.certSecretRef.',
      }),
    ),
    insecure: Type.Optional(
      Type.Boolean({ description: 'oci:// only: plain HTTP to the registry (helm --plain-http, then for every oci:// dependency). Default: TLS.' }),
    ),
  },
  { description: 'How to reach one repository named by a dependency in Chart.yaml.' },
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
    proxySecretRef: Type.Optional(ProxySecretRef),
    dependencies: Type.Optional(
      Type.Array(GitChartDependencyRepository, {
        maxItems: 20,
        description:
          "Credentials for the repositories Chart.yaml's dependencies name (helm dependency build runs once per commit when a dependency is not in charts/). A repository not listed is read anonymously.",
      }),
    ),
    interval: Type.Optional(
      BoundedDuration(DURATION_BOUNDS.minInterval, DURATION_BOUNDS.maxInterval, {
        description: 'How often the repository is asked for its refs (one git ls-remote per repository and credentials). Default: spec.interval.',
      }),
    ),
    verify: Type.Optional(GitVerification),
    sparseCheckout: Type.Optional(
      Type.Array(
        Type.String({
          pattern: '^[^/\\s][^\\s]*$',
          maxLength: 1024,
          ...celRules({ rule: "!self.split('/').exists(p, p == '..')", message: 'must stay inside the repository (no ..)' }),
        }),
        {
          maxItems: 32,
          description:
            'Only these directories of the repository are checked out (git sparse-checkout, cone mode); the chart folder (path) must be among them. Default: the whole tree.',
        },
      ),
    ),
    recurseSubmodules: Type.Optional(
      Type.Boolean({
        description:
          'Check out the submodules too (recursively, each at the commit the parent records). Their URLs must pass the host policy; the same secretRef is offered to them. Default: false.',
      }),
    ),
  },
  { description: "A chart from a Git repository (instead of repository): its version is Chart.yaml's, its revision the version plus the commit." },
);

export type GitChartSource = Static<typeof GitChartSource>;
export type GitRef = Static<typeof GitRef>;
export type GitChartDependencyRepository = Static<typeof GitChartDependencyRepository>;
