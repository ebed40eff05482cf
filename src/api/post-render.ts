import { Type, type Static, type TUnsafe } from '@sinclair/typebox';
import { StringEnum } from './schema-helpers.js';

/**
 * Post-renderers, common metadata and the CRD policy, in Flux's HelmRelease v2 shape
 * (`spec.postRenderers[].kustomize`, `spec.commonMetadata`, `install.crds`/`upgrade.crds`), so a
 * Flux HelmRelease carries over as written. kustomize itself applies them (docs/field-notes.md).
 */

/** A map of strings, as a structural CRD schema spells it (TypeBox's Record uses patternProperties, which CRDs refuse). */
function StringMap(description: string): TUnsafe<Record<string, string>> {
  return Type.Unsafe<Record<string, string>>({ type: 'object', additionalProperties: { type: 'string', maxLength: 4096 }, maxProperties: 64, description });
}

/** kustomize's patch target selector; every field set must match. */
export const KustomizeSelector = Type.Object(
  {
    group: Type.Optional(Type.String({ maxLength: 253, description: 'API group, e.g. apps.' })),
    version: Type.Optional(Type.String({ maxLength: 63, description: 'API version, e.g. v1.' })),
    kind: Type.Optional(Type.String({ maxLength: 63, description: 'Kind, e.g. Deployment.' })),
    name: Type.Optional(Type.String({ maxLength: 253, description: 'Object name (a regular expression, as in kustomize).' })),
    namespace: Type.Optional(Type.String({ maxLength: 253, description: 'Object namespace (a regular expression, as in kustomize).' })),
    annotationSelector: Type.Optional(Type.String({ maxLength: 1024, description: 'Objects whose annotations match this label-selector expression.' })),
    labelSelector: Type.Optional(Type.String({ maxLength: 1024, description: 'Objects whose labels match this label-selector expression.' })),
  },
  { description: 'Which rendered objects the patch applies to.' },
);

export const KustomizePatch = Type.Object({
  patch: Type.String({
    minLength: 1,
    maxLength: 65536,
    description: 'A strategic-merge patch (a partial object) or a JSON 6902 patch (a list of operations), inline YAML.',
  }),
  target: Type.Optional(KustomizeSelector),
});

export const KustomizeImage = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 512, description: 'The image name as the chart renders it, without tag or digest.' }),
  newName: Type.Optional(Type.String({ maxLength: 512, description: 'Replace the name (e.g. a registry mirror).' })),
  newTag: Type.Optional(Type.String({ maxLength: 128, description: 'Replace the tag.' })),
  digest: Type.Optional(Type.String({ maxLength: 128, description: 'Replace the tag with this digest (sha256:…).' })),
});

export const KustomizePostRenderer = Type.Object({
  patches: Type.Optional(Type.Array(KustomizePatch, { maxItems: 64, description: 'Applied in order.' })),
  images: Type.Optional(Type.Array(KustomizeImage, { maxItems: 64 })),
});

export const PostRenderer = Type.Object({
  kustomize: Type.Optional(KustomizePostRenderer),
});

export const PostRenderers = Type.Array(PostRenderer, {
  maxItems: 16,
  description: 'kustomize post-renderers, applied in order to everything helm renders (hooks too) before it is applied; a change upgrades the release.',
});

export const POST_RENDER_STRATEGIES = ['nohooks', 'combined', 'separate'] as const;

/** Flux's spec.postRenderStrategy: which of helm's output the post-renderers see (helm 4's names). */
export const PostRenderStrategy = StringEnum(POST_RENDER_STRATEGIES, {
  description:
    "How hooks meet the post-renderers and commonMetadata. combined (default, helm 4's): hooks and templates go through them together; nohooks (helm 3's): hooks are applied as the chart renders them; separate: hooks and templates go through them one after the other, so a patch applies only where its target is.",
});

export const CommonMetadata = Type.Object(
  {
    labels: Type.Optional(StringMap('Labels set on every rendered object (metadata only: no selectors or pod templates).')),
    annotations: Type.Optional(StringMap('Annotations set on every rendered object (metadata only).')),
  },
  {
    description:
      "Labels and annotations for every rendered object, applied after the post-renderers; a chart's own value for the same key is overridden. A change upgrades the release.",
  },
);

export const CRDS_POLICIES = ['Skip', 'Create', 'CreateReplace'] as const;

/** The CRD policy of one action; `when` says which and its default. */
export function CrdsPolicy(when: string) {
  return StringEnum(CRDS_POLICIES, {
    description: `${when} The chart's crds/ folder. Skip: neither create nor update; Create: create the missing ones, never update; CreateReplace: create the missing ones and update the others (server-side apply, as the HelmRelease's identity). No CRD is ever deleted.`,
  });
}

export type KustomizeSelector = Static<typeof KustomizeSelector>;
export type KustomizePatch = Static<typeof KustomizePatch>;
export type KustomizeImage = Static<typeof KustomizeImage>;
export type PostRenderer = Static<typeof PostRenderer>;
export type CommonMetadata = Static<typeof CommonMetadata>;
export type CrdsPolicy = (typeof CRDS_POLICIES)[number];
export type PostRenderStrategy = (typeof POST_RENDER_STRATEGIES)[number];
