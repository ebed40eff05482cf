import { readFile } from 'node:fs/promises';
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { apiStatusCode } from '../../../core/kube/errors.js';
import { FLUX_HELM_GROUP, FLUX_SOURCE_GROUP, record, type FluxObject } from './flux-objects.js';

/** Flux objects from YAML files (`-` is standard input) or from the cluster. */

export async function readFluxFiles(files: readonly string[]): Promise<FluxObject[]> {
  const objects: FluxObject[] = [];
  for (const file of files) {
    const text = file === '-' ? await readStdin() : await readFile(file, 'utf8');
    objects.push(...parseFluxYaml(text, file));
  }
  return objects;
}

/** Pure: the Kubernetes objects in a multi-document YAML text (a `kind: List` is opened). */
export function parseFluxYaml(text: string, origin: string): FluxObject[] {
  const objects: FluxObject[] = [];
  for (const [index, document] of parseAllDocuments(text).entries()) {
    if (document.errors.length > 0) throw new Error(`${origin}: document ${index + 1} is not valid YAML: ${document.errors[0]!.message}`);
    const value = document.toJS() as unknown;
    if (value === null || value === undefined) continue;
    const items = record(value).kind === 'List' && Array.isArray(record(value).items) ? (record(value).items as unknown[]) : [value];
    for (const item of items) {
      const object = record(item) as unknown as FluxObject;
      if (typeof object.kind !== 'string' || typeof object.apiVersion !== 'string' || typeof record(object.metadata).name !== 'string') {
        throw new Error(`${origin}: document ${index + 1} is not a Kubernetes object (apiVersion, kind and metadata.name are needed)`);
      }
      objects.push(object);
    }
  }
  return objects;
}

const KINDS = [
  { group: FLUX_HELM_GROUP, version: 'v2', plural: 'helmreleases' },
  { group: FLUX_SOURCE_GROUP, version: 'v1', plural: 'helmrepositories' },
  { group: FLUX_SOURCE_GROUP, version: 'v1', plural: 'ocirepositories' },
  { group: FLUX_SOURCE_GROUP, version: 'v1', plural: 'gitrepositories' },
  { group: FLUX_SOURCE_GROUP, version: 'v1', plural: 'helmcharts' },
];

/** Flux HelmReleases (of one namespace, or all) and the sources they may name. */
export async function readFluxCluster(kubeConfig: KubeConfig, namespace?: string): Promise<FluxObject[]> {
  const api = kubeConfig.makeApiClient(CustomObjectsApi);
  const objects: FluxObject[] = [];
  for (const kind of KINDS) {
    for (const item of await listKind(api, kind, namespace)) objects.push({ ...item, apiVersion: `${kind.group}/${kind.version}` });
  }
  return objects;
}

type ListResult = { items?: FluxObject[] };

/**
 * Sources may live in another namespace than the HelmReleases naming them (flux-system), so they
 * are read everywhere; a user who may not list them cluster-wide gets those of the namespace asked
 * for (the report names any source it could not see). A kind the cluster does not serve is none.
 */
async function listKind(api: CustomObjectsApi, kind: (typeof KINDS)[number], namespace: string | undefined): Promise<FluxObject[]> {
  const inNamespace = async (ns: string) => ((await api.listNamespacedCustomObject({ ...kind, namespace: ns })) as ListResult).items ?? [];
  try {
    if (namespace && kind.plural === 'helmreleases') return await inNamespace(namespace);
    try {
      return ((await api.listClusterCustomObject(kind)) as ListResult).items ?? [];
    } catch (error) {
      if (apiStatusCode(error) !== 403 || !namespace) throw error;
      return await inNamespace(namespace);
    }
  } catch (error) {
    if (apiStatusCode(error) === 404) return [];
    throw error;
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
