import type { KustomizePatch, PostRenderer } from '../../api/post-render.js';
import type { PostRender } from '../../core/release/post-render.js';

/**
 * Pure: the kustomizations that post-render one release, as files (path → content; JSON, which
 * kustomize reads as YAML). Flux's semantics: each post-renderer works on the previous one's
 * output, then the common metadata goes on. One folder per step, each taking the one before it
 * as its base:
 *
 *   layers/input/   helm-output.yaml (helm's manifest, written by the plugin) and a kustomization listing it
 *   layers/0 … n-1  one per post-renderer: its patches and images
 *   layers/n        the common metadata (metadata/labels and metadata/annotations only, as Flux)
 *
 * Everything is inline: no kustomization names a file the HelmRelease chose, no generator,
 * no plugin, no remote base.
 */

export const INPUT_LAYER = 'layers/input';
export const HELM_OUTPUT_FILE = 'helm-output.yaml';
const KUSTOMIZATION = 'kustomization.yaml';

export interface KustomizeLayers {
  files: Record<string, string>;
  /** The folder `kustomize build` runs on: the last layer. */
  last: string;
}

export function kustomizeLayers(postRender: PostRender): KustomizeLayers {
  const files: Record<string, string> = { [`${INPUT_LAYER}/${KUSTOMIZATION}`]: kustomization({ resources: [HELM_OUTPUT_FILE] }) };
  let base = 'input';
  postRender.renderers.forEach((renderer, i) => {
    files[`layers/${i}/${KUSTOMIZATION}`] = kustomization({ resources: [`../${base}`], ...rendererFields(renderer) });
    base = String(i);
  });
  const metadata = postRender.commonMetadata;
  const labels = metadata?.labels ?? {};
  const annotations = metadata?.annotations ?? {};
  if (Object.keys(labels).length + Object.keys(annotations).length > 0) {
    const dir = `layers/${postRender.renderers.length}`;
    const transformers: string[] = [];
    if (Object.keys(labels).length > 0) {
      files[`${dir}/common-labels.yaml`] = transformer('LabelTransformer', 'labels', labels, 'metadata/labels');
      transformers.push('common-labels.yaml');
    }
    if (Object.keys(annotations).length > 0) {
      files[`${dir}/common-annotations.yaml`] = transformer('AnnotationsTransformer', 'annotations', annotations, 'metadata/annotations');
      transformers.push('common-annotations.yaml');
    }
    files[`${dir}/${KUSTOMIZATION}`] = kustomization({ resources: [`../${base}`], transformers });
    base = String(postRender.renderers.length);
  }
  return { files, last: base === 'input' ? INPUT_LAYER : `layers/${base}` };
}

/**
 * Pure: a kustomization that applies patches 0…upTo of post-renderer `renderer` on top of the
 * layers before it: run one by one after a failure, the first that fails names the patch.
 */
export function probeLayer(postRender: PostRender, renderer: number, upTo: number): string {
  const patches = postRender.renderers[renderer]?.kustomize?.patches?.slice(0, upTo + 1) ?? [];
  return kustomization({ resources: [renderer === 0 ? '../input' : `../${renderer - 1}`], patches: patches.map(kustomizePatch) });
}

/** Pure: where a patch sits in the spec and what it targets, for messages. */
export function describePatch(postRender: PostRender, renderer: number, patch: number): string {
  const target = postRender.renderers[renderer]?.kustomize?.patches?.[patch]?.target;
  const where = `spec.postRenderers[${renderer}].kustomize.patches[${patch}]`;
  if (!target) return where;
  const parts = Object.entries(target)
    .filter(([, v]) => typeof v === 'string' && v !== '')
    .map(([k, v]) => `${k}=${String(v)}`);
  return parts.length > 0 ? `${where} (target ${parts.join(', ')})` : where;
}

function rendererFields(renderer: PostRenderer): Record<string, unknown> {
  const k = renderer.kustomize ?? {};
  return {
    ...(k.patches?.length ? { patches: k.patches.map(kustomizePatch) } : {}),
    ...(k.images?.length ? { images: k.images.map((image) => withoutEmpty({ ...image })) } : {}),
  };
}

function kustomizePatch(p: KustomizePatch): Record<string, unknown> {
  return { patch: p.patch, ...(p.target ? { target: withoutEmpty({ ...p.target }) } : {}) };
}

function kustomization(fields: Record<string, unknown>): string {
  return JSON.stringify({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', ...fields });
}

/** kustomize's builtin transformers, limited to the object's own metadata (no selectors, no pod templates). */
function transformer(kind: string, field: string, pairs: Record<string, string>, path: string): string {
  return JSON.stringify({ apiVersion: 'builtin', kind, metadata: { name: `helmcrew-common-${field}` }, [field]: pairs, fieldSpecs: [{ path, create: true }] });
}

function withoutEmpty(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== ''));
}
