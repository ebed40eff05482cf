import { chmod, mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiextensionsV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { load } from 'js-yaml';
import { serverSideApply } from '../../src/core/kube/server-side-apply.js';
import { expect } from 'vitest';
import { eventually } from './eventually.js';

interface Crd {
  metadata: { name: string };
  spec: { group: string; names: { plural: string }; versions: Array<{ name: string }> };
}

/** Flux's own CRDs (test/support/flux-crds, vendored) on the test API server, served before it returns. */
export async function applyFluxCrds(kc: KubeConfig): Promise<void> {
  const dir = new URL('./flux-crds/', import.meta.url);
  const api = kc.makeApiClient(ApiextensionsV1Api);
  const custom = kc.makeApiClient(CustomObjectsApi);
  for (const file of (await readdir(dir)).filter((f) => f.endsWith('.yaml'))) {
    const crd = load(await readFile(new URL(file, dir), 'utf8')) as Crd;
    await serverSideApply(kc, `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`, crd);
    await eventually(
      async () => {
        const current = await api.readCustomResourceDefinition({ name: crd.metadata.name });
        expect(
          current.status?.conditions?.find((c) => c.type === 'Established'),
          `Flux CRD ${crd.metadata.name} Established`,
        ).toMatchObject({ status: 'True' });
        // Established is not yet served (docs/field-notes.md): one LIST must answer first (its error is the last value on time-out).
        await custom.listClusterCustomObject({ group: crd.spec.group, version: crd.spec.versions[0]!.name, plural: crd.spec.names.plural });
      },
      { timeoutMs: 60_000, intervalMs: 250 },
    );
  }
}

/**
 * Takes Flux's CRDs off the shared test API server again: while they are there, `helmreleases`
 * names two kinds and kubectl picks Flux's (the clash `hcr` exists for), which would break the
 * other files' `kubectl get helmreleases`.
 */
export async function removeFluxCrds(kc: KubeConfig): Promise<void> {
  const dir = new URL('./flux-crds/', import.meta.url);
  const api = kc.makeApiClient(ApiextensionsV1Api);
  for (const file of (await readdir(dir)).filter((f) => f.endsWith('.yaml'))) {
    const crd = load(await readFile(new URL(file, dir), 'utf8')) as Crd;
    await api.deleteCustomResourceDefinition({ name: crd.metadata.name }).catch(() => undefined);
  }
}

/**
 * A helm 4 post-renderer plugin (type postrenderer/v1: a subprocess given the manifests on stdin)
 * doing what Flux's helm-controller does to every object it renders (v1.6.3
 * internal/postrender/common_renderer.go, OriginLabels): label it with its HelmRelease's name and
 * namespace. `helm install --post-renderer flux-origin-labels --post-renderer-args <name>
 * --post-renderer-args <namespace>` with HELM_PLUGINS set to `pluginsDir` leaves a release as Flux
 * would: the labels on the objects and in the stored manifest.
 */
export async function fluxOriginLabelsPlugin(): Promise<{ pluginsDir: string; name: string }> {
  const pluginsDir = await mkdtemp(join(tmpdir(), 'helmcrew-flux-plugins-'));
  const dir = join(pluginsDir, 'flux-origin-labels');
  await mkdir(dir);
  await writeFile(
    join(dir, 'plugin.yaml'),
    'apiVersion: v1\nname: flux-origin-labels\nversion: 0.1.0\ntype: postrenderer/v1\nruntime: subprocess\nruntimeConfig:\n  platformCommand:\n    - command: "${HELM_PLUGIN_DIR}/render.cjs"\n',
  );
  const yamlModule = createRequire(import.meta.url).resolve('yaml');
  const script = `#!${process.execPath}
const { parseAllDocuments, stringify } = require(${JSON.stringify(yamlModule)});
const [name, namespace] = process.argv.slice(2);
let input = '';
process.stdin.on('data', (chunk) => (input += chunk));
process.stdin.on('end', () => {
  const out = [];
  for (const doc of parseAllDocuments(input)) {
    const object = doc.toJS();
    if (!object) continue;
    object.metadata = object.metadata || {};
    object.metadata.labels = { ...(object.metadata.labels || {}), 'helm.toolkit.fluxcd.io/name': name, 'helm.toolkit.fluxcd.io/namespace': namespace };
    out.push('---\\n' + stringify(object));
  }
  process.stdout.write(out.join(''));
});
`;
  await writeFile(join(dir, 'render.cjs'), script);
  await chmod(join(dir, 'render.cjs'), 0o755);
  return { pluginsDir, name: 'flux-origin-labels' };
}
