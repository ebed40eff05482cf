import { describe, expect, it } from 'vitest';
import type { HelmReleaseSpec } from '../../src/api/helmrelease.js';
import type { StoredRelease } from '../../src/core/helm-storage/release-storage.js';
import { describePatch, kustomizeLayers, probeLayer } from '../../src/controller/helm/kustomize-layers.js';
import { pluginManifest } from '../../src/controller/helm/post-renderer-plugin.js';
import { isSameRelease } from '../../src/controller/reconcile/decide/release-state.js';
import { POST_RENDER_LABEL } from '../../src/controller/reconcile/decide/ownership.js';
import { NO_POST_RENDER, postRenderDigest, postRenderOf, type PostRender } from '../../src/core/release/post-render.js';
import type { DesiredRelease } from '../../src/core/release/desired-release.js';
import { SecretValues } from '../../src/core/release/secret-values.js';

const patch = { patch: '- op: add\n  path: /data/x\n  value: "1"\n', target: { kind: 'ConfigMap', name: 'settings' } };
const image = { name: 'nginx', newName: 'mirror.local/nginx', newTag: '1.27' };

describe('postRenderOf', () => {
  it.each<{ name: string; given: Pick<HelmReleaseSpec, 'postRenderers' | 'commonMetadata'>; want: PostRender | undefined }>([
    { name: 'nothing declared', given: {}, want: undefined },
    { name: 'empty post-renderers and metadata', given: { postRenderers: [{}, { kustomize: {} }], commonMetadata: { labels: {} } }, want: undefined },
    {
      name: 'labels only',
      given: { commonMetadata: { labels: { a: 'b' } } },
      want: { renderers: [], commonMetadata: { labels: { a: 'b' }, annotations: {} } },
    },
    {
      name: 'empty renderers are dropped, order kept',
      given: { postRenderers: [{}, { kustomize: { images: [image] } }, { kustomize: { patches: [patch] } }] },
      want: { renderers: [{ kustomize: { images: [image] } }, { kustomize: { patches: [patch] } }] },
    },
  ])('$name', ({ given, want }) => {
    expect(postRenderOf(given)).toEqual(want);
  });
});

describe('postRenderDigest', () => {
  const a: PostRender = { renderers: [{ kustomize: { images: [image] } }], commonMetadata: { labels: { x: '1', y: '2' } } };
  it('is "none" without post-rendering, fits a label value, ignores key order and sees every change', () => {
    expect(postRenderDigest(undefined)).toBe(NO_POST_RENDER);
    expect(postRenderDigest(a)).toMatch(/^sha256-[0-9a-f]{56}$/);
    expect(postRenderDigest(a).length).toBeLessThanOrEqual(63);
    expect(postRenderDigest({ commonMetadata: { labels: { y: '2', x: '1' } }, renderers: [{ kustomize: { images: [image] } }] })).toBe(postRenderDigest(a));
    expect(postRenderDigest({ ...a, commonMetadata: { labels: { x: '1', y: '3' } } })).not.toBe(postRenderDigest(a));
    expect(postRenderDigest({ ...a, renderers: [{ kustomize: { images: [{ ...image, newTag: '1.28' }] } }] })).not.toBe(postRenderDigest(a));
  });
});

describe('isSameRelease and the post-render digest on the record', () => {
  const record = (labels: Record<string, string>): StoredRelease => ({
    name: 'u',
    namespace: 'web',
    revision: 1,
    status: 'deployed',
    chartName: 'unicorn',
    chartVersion: '1.0.0',
    config: {},
    labels,
  });
  const desired = (digest?: string): DesiredRelease => ({
    chartName: 'unicorn',
    chartVersion: '1.0.0',
    values: {},
    valuesDigest: 'd',
    secrets: new SecretValues(),
    ...(digest ? { postRenderDigest: digest } : {}),
  });
  it.each<{ name: string; labels: Record<string, string>; digest: string | undefined; want: boolean }>([
    { name: 'a record from before post-rendering, none asked', labels: {}, digest: undefined, want: true },
    { name: 'recorded none, none asked', labels: { [POST_RENDER_LABEL]: NO_POST_RENDER }, digest: undefined, want: true },
    { name: 'the same post-rendering', labels: { [POST_RENDER_LABEL]: 'sha256-a' }, digest: 'sha256-a', want: true },
    { name: 'post-rendering added', labels: {}, digest: 'sha256-a', want: false },
    { name: 'post-rendering changed', labels: { [POST_RENDER_LABEL]: 'sha256-a' }, digest: 'sha256-b', want: false },
    { name: 'post-rendering removed', labels: { [POST_RENDER_LABEL]: 'sha256-a' }, digest: undefined, want: false },
  ])('$name → same: $want', ({ labels, digest, want }) => {
    expect(isSameRelease(record(labels), desired(digest))).toBe(want);
  });
});

describe('kustomizeLayers', () => {
  const postRender: PostRender = {
    renderers: [{ kustomize: { patches: [patch], images: [image] } }, { kustomize: { patches: [{ patch: 'kind: Deployment' }, patch] } }],
    commonMetadata: { labels: { team: 'a' }, annotations: {} },
  };
  const { files, last } = kustomizeLayers(postRender);
  const k = (path: string) => JSON.parse(files[path]!) as Record<string, unknown>;

  it('chains one layer per post-renderer, then the common metadata, on top of helm output', () => {
    expect(Object.keys(files).sort()).toEqual([
      'layers/0/kustomization.yaml',
      'layers/1/kustomization.yaml',
      'layers/2/common-labels.yaml',
      'layers/2/kustomization.yaml',
      'layers/input/kustomization.yaml',
    ]);
    expect(last).toBe('layers/2');
    expect(k('layers/input/kustomization.yaml')).toMatchObject({ resources: ['helm-output.yaml'] });
    expect(k('layers/0/kustomization.yaml')).toMatchObject({ resources: ['../input'], patches: [patch], images: [image] });
    expect(k('layers/1/kustomization.yaml')).toMatchObject({ resources: ['../0'], patches: [{ patch: 'kind: Deployment' }, patch] });
    expect(k('layers/2/kustomization.yaml')).toMatchObject({ resources: ['../1'], transformers: ['common-labels.yaml'] });
    // Flux's common labels: the object's own metadata only, no selectors or pod templates.
    expect(k('layers/2/common-labels.yaml')).toMatchObject({
      kind: 'LabelTransformer',
      labels: { team: 'a' },
      fieldSpecs: [{ path: 'metadata/labels', create: true }],
    });
  });

  it('with only common metadata, one layer over the input', () => {
    const only = kustomizeLayers({ renderers: [], commonMetadata: { annotations: { a: 'b' } } });
    expect(only.last).toBe('layers/0');
    expect(JSON.parse(only.files['layers/0/kustomization.yaml']!)).toMatchObject({ resources: ['../input'], transformers: ['common-annotations.yaml'] });
  });

  it('probes patches one more at a time, and names a patch by its place and target', () => {
    expect(JSON.parse(probeLayer(postRender, 1, 0))).toMatchObject({ resources: ['../0'], patches: [{ patch: 'kind: Deployment' }] });
    expect(JSON.parse(probeLayer(postRender, 0, 0))).toMatchObject({ resources: ['../input'], patches: [patch] });
    expect(describePatch(postRender, 1, 1)).toBe('spec.postRenderers[1].kustomize.patches[1] (target kind=ConfigMap, name=settings)');
    expect(describePatch(postRender, 1, 0)).toBe('spec.postRenderers[1].kustomize.patches[0]');
  });

  it('the plugin is a postrenderer/v1 subprocess plugin whose command is argv', () => {
    expect(JSON.parse(pluginManifest('/opt/kustomize', 'layers/2'))).toEqual({
      apiVersion: 'v1',
      type: 'postrenderer/v1',
      name: 'helmcrew-kustomize',
      version: '1.0.0',
      runtime: 'subprocess',
      runtimeConfig: { platformCommand: [{ command: '/bin/sh', args: ['${HELM_PLUGIN_DIR}/post-render.sh', '/opt/kustomize', 'layers/2'] }] },
    });
  });
});
