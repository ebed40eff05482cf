import { createHash } from 'node:crypto';
import type { HelmReleaseSpec } from '../../api/helmrelease.js';
import type { CommonMetadata, PostRenderer, PostRenderStrategy } from '../../api/post-render.js';
import { canonicalJson } from './values.js';

/** What helm's output goes through before it is applied: the post-renderers in order, then the common metadata. */
export interface PostRender {
  renderers: PostRenderer[];
  commonMetadata?: CommonMetadata;
  /** spec.postRenderStrategy when not helm 4's combined (absent then, so older records' digests stay). */
  strategy?: Exclude<PostRenderStrategy, 'combined'>;
}

/** Pure: the spec's post-rendering, or undefined when it asks for none (helm then runs without a post-renderer). */
export function postRenderOf(spec: Pick<HelmReleaseSpec, 'postRenderers' | 'commonMetadata' | 'postRenderStrategy'>): PostRender | undefined {
  const renderers = (spec.postRenderers ?? []).filter((r) => hasWork(r));
  const labels = spec.commonMetadata?.labels ?? {};
  const annotations = spec.commonMetadata?.annotations ?? {};
  const hasMetadata = Object.keys(labels).length > 0 || Object.keys(annotations).length > 0;
  if (renderers.length === 0 && !hasMetadata) return undefined;
  const strategy = spec.postRenderStrategy === 'nohooks' || spec.postRenderStrategy === 'separate' ? { strategy: spec.postRenderStrategy } : {};
  return { renderers, ...(hasMetadata ? { commonMetadata: { labels, annotations } } : {}), ...strategy };
}

function hasWork(renderer: PostRenderer): boolean {
  const k = renderer.kustomize;
  return !!k && ((k.patches?.length ?? 0) > 0 || (k.images?.length ?? 0) > 0);
}

/** The digest recorded on a release written without post-rendering. */
export const NO_POST_RENDER = 'none';

/**
 * Pure: a short digest of the post-rendering, kept as a label on the release record (63
 * characters at most), so a change to the post-renderers or the common metadata is an upgrade.
 * Plain sha256: the spec is no secret (it is in the HelmRelease).
 */
export function postRenderDigest(postRender: PostRender | undefined): string {
  if (!postRender) return NO_POST_RENDER;
  return `sha256-${createHash('sha256').update(canonicalJson(postRender)).digest('hex').slice(0, 56)}`;
}
