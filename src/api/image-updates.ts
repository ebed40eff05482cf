import { Type, type Static } from '@sinclair/typebox';
import { BoundedDuration, celRules, LocalObjectName, StringEnum } from './schema-helpers.js';
import { ArtifactVerification } from './verification.js';

/**
 * spec.imageUpdates and spec.approval (issue 35): the images a HelmRelease keeps current, and how
 * many people approve a change before it applies. The shape users' YAML is written against: add
 * fields, do not rename these. What CEL cannot check (a semver range, a regular expression) the
 * controller checks and names (core/proposals/tag-policy.ts).
 */

export const ImagePolicy = Type.Object(
  {
    semver: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'The highest tag in this semver range (1.x, ^1.4, >=2.0.0-0 for pre-releases).' }),
    ),
    pattern: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 500,
        description: "Tags matching this regular expression (Go syntax as Flux's: `(?P<ts>\\d+)`); the highest by what `extract` takes from them.",
      }),
    ),
    extract: Type.Optional(
      Type.String({ maxLength: 200, description: 'With pattern: what to order by, `$name` or `$1` from the match. Default: the whole tag.' }),
    ),
    order: Type.Optional(
      StringEnum(['numerical', 'alphabetical'] as const, { description: 'With pattern: order as numbers or as text. Default: alphabetical.' }),
    ),
  },
  {
    description: 'Which tag is wanted.',
    ...celRules(
      { rule: 'has(self.semver) != has(self.pattern)', message: 'give exactly one of semver or pattern' },
      { rule: '!has(self.extract) && !has(self.order) || has(self.pattern)', message: 'extract and order go with pattern' },
    ),
  },
);

export const ImageUpdate = Type.Object(
  {
    repository: Type.String({
      minLength: 1,
      maxLength: 500,
      pattern: '^[a-z0-9.-]+(:[0-9]{1,5})?(/[a-z0-9._-]+)+$',
      description: 'The image repository to watch: host[:port]/path (registry.example.com/shop/web).',
    }),
    policy: ImagePolicy,
    valuesPath: Type.String({
      pattern: '^([a-zA-Z0-9_\\-.\\\\/]|\\[[0-9]{1,5}\\])+$',
      maxLength: 250,
      description: 'Where the chosen tag goes in the values (image.tag), as a helm --set path.',
    }),
    digestPath: Type.Optional(
      Type.String({
        pattern: '^([a-zA-Z0-9_\\-.\\\\/]|\\[[0-9]{1,5}\\])+$',
        maxLength: 250,
        description: "Where the tag's digest (sha256:…) goes, for mutable tags: a tag moved to a new digest is a change too.",
      }),
    ),
    interval: Type.Optional(BoundedDuration('1s', '168h', { description: 'How often the tags are listed, 1s to 168h. Default: 5m.' })),
    secretRef: Type.Optional(
      LocalObjectName({ description: 'A Secret in this namespace, as spec.chart.secretRef: `username` + `password`, or `.dockerconfigjson`.' }),
    ),
    certSecretRef: Type.Optional(LocalObjectName({ description: 'A Secret in this namespace with `ca.crt`, as spec.chart.certSecretRef.' })),
    insecure: Type.Optional(Type.Boolean({ description: 'Plain HTTP to the registry (one on loopback), as spec.chart.insecure. Default: TLS.' })),
    verify: Type.Optional(ArtifactVerification),
    allowUnsigned: Type.Optional(
      Type.Boolean({
        description: 'With verify: a tag that does not verify is still proposed, marked unsigned, instead of skipped. Default: false.',
      }),
    ),
  },
  {
    description: 'An image whose newest wanted tag is kept in the values.',
    ...celRules(
      {
        rule: "!has(self.verify) || self.verify.provider != 'pgp'",
        message: 'verify: images are verified with cosign (or notation), not pgp',
        fieldPath: '.verify',
      },
      { rule: '!has(self.allowUnsigned) || has(self.verify)', message: 'allowUnsigned goes with verify' },
    ),
  },
);

export const ApprovalSpec = Type.Object(
  {
    required: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 10, description: 'Distinct people who approve a change. 0 or absent: changes apply on their own.' }),
    ),
    teams: Type.Optional(
      Type.Array(Type.String({ pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', maxLength: 63 }), {
        maxItems: 16,
        description: 'Teams whose members may approve. Default: the Teams granted `approve` for this release.',
      }),
    ),
    expireAfter: Type.Optional(BoundedDuration('1m', '720h', { description: 'How long a proposal waits for approvals, 1m to 720h. Default: 24h.' })),
  },
  { description: 'Changes helmcrew proposes (new image tags, newer chart versions) wait for approvals in chat.' },
);

export type ImagePolicy = Static<typeof ImagePolicy>;
export type ImageUpdate = Static<typeof ImageUpdate>;
export type ApprovalSpec = Static<typeof ApprovalSpec>;

export { IMAGE_UPDATE_DEFAULTS } from './image-update-defaults.js';
