import { createHash } from 'node:crypto';
import type { ConfigurationOptions } from '@kubernetes/client-node';
import { loadConnectionConfig, type ConnectionConfig } from './connection-config.js';
import { headersFrom, type CoreClient, type CustomClient, type KubeClients } from './kube-clients.js';
import { KubeConnection, KubeRest, seg, type Query } from './rest-client.js';

/** Keys of a parameter object that are path parts or the body, not query parameters. */
const NOT_QUERY = new Set(['namespace', 'name', 'group', 'version', 'plural', 'body']);

/** The rest of a client-node parameter object, as query parameters (`_continue` is `continue`). */
function queryOf(param: object): Query {
  const query: Query = {};
  for (const [key, value] of Object.entries(param)) {
    if (NOT_QUERY.has(key) || value === undefined || value === null) continue;
    query[key === '_continue' ? 'continue' : key] = value as string | number | boolean;
  }
  return query;
}

type Coordinates = { group: string; version: string; plural: string; namespace?: string; name?: string };

function customPath({ group, version, plural, namespace, name }: Coordinates, sub = ''): string {
  const scope = namespace === undefined ? '' : `/namespaces/${seg(namespace)}`;
  return `/apis/${seg(group)}/${seg(version)}${scope}/${seg(plural)}${name === undefined ? '' : `/${seg(name)}`}${sub}`;
}

const corePath = (namespace: string, plural: string, name?: string) =>
  `/api/v1/namespaces/${seg(namespace)}/${plural}${name === undefined ? '' : `/${seg(name)}`}`;

/** A patch's Content-Type from the request options (mergePatch, jsonPatch); merge patch when none. */
async function patchType(options: ConfigurationOptions | undefined): Promise<string> {
  const headers = await headersFrom(options);
  return headers['Content-Type'] ?? 'application/merge-patch+json';
}

/** The controller's and notify's KubeClients over the slim REST client. */
export function slimKubeClients(rest: KubeRest): KubeClients {
  // Results are the server's JSON; the declared client-node types differ only in Date fields.
  const get = (path: string, param: object) => rest.request<never>({ method: 'GET', path, query: queryOf(param) });
  const write = (method: 'POST' | 'PUT' | 'DELETE', path: string, param: { body?: unknown }) =>
    rest.request<never>({ method, path, query: queryOf(param), body: param.body });
  const patch = async (path: string, param: { body: unknown }, options?: ConfigurationOptions) =>
    rest.request<never>({ method: 'PATCH', path, query: queryOf(param), body: param.body, contentType: await patchType(options) });

  const core: CoreClient = {
    readNamespacedSecret: (p) => get(corePath(p.namespace, 'secrets', p.name), p),
    listNamespacedSecret: (p) => get(corePath(p.namespace, 'secrets'), p),
    createNamespacedSecret: (p) => write('POST', corePath(p.namespace, 'secrets'), p),
    replaceNamespacedSecret: (p) => write('PUT', corePath(p.namespace, 'secrets', p.name), p),
    readNamespacedConfigMap: (p) => get(corePath(p.namespace, 'configmaps', p.name), p),
    createNamespacedConfigMap: (p) => write('POST', corePath(p.namespace, 'configmaps'), p),
    patchNamespacedConfigMap: (p, options) => patch(corePath(p.namespace, 'configmaps', p.name), p, options),
    createNamespacedEvent: (p) => write('POST', corePath(p.namespace, 'events'), p),
  };
  const custom: CustomClient = {
    getNamespacedCustomObject: (p) => get(customPath(p), p),
    listNamespacedCustomObject: (p) => get(customPath(p), p),
    patchNamespacedCustomObject: (p, options) => patch(customPath(p), p, options),
    patchNamespacedCustomObjectStatus: (p, options) => patch(customPath(p, '/status'), p, options),
    getClusterCustomObject: (p) => get(customPath(p), p),
    listClusterCustomObject: (p) => get(customPath(p), p),
    patchClusterCustomObjectStatus: (p, options) => patch(customPath(p, '/status'), p, options),
    patchClusterCustomObject: (p, options) => patch(customPath(p), p, options),
    createClusterCustomObject: (p) => write('POST', customPath(p), p),
    deleteClusterCustomObject: (p) => write('DELETE', customPath(p), p),
  };
  return { core, custom, impersonate: (user) => slimKubeClients(rest.impersonate(user)) };
}

const connections = new Map<string, KubeConnection>();

/** One pool per server and credentials in a process (`helmcrew run` holds controller and notify). */
function connectionKey(config: ConnectionConfig): string {
  const digest = createHash('sha256');
  for (const part of [config.ca, config.cert, config.key, config.token]) digest.update(part ?? '').update('\0');
  return JSON.stringify([config.server, config.tlsServerName, config.insecureSkipTlsVerify, config.tokenFile, config.impersonate, digest.digest('hex')]);
}

/** The process's connection to the API server, from KUBECONFIG, ~/.kube/config or in-cluster. */
export function connectKube(kubeconfigPath?: string): KubeRest {
  const config = loadConnectionConfig(kubeconfigPath);
  const key = connectionKey(config);
  let connection = connections.get(key);
  if (!connection) {
    connection = new KubeConnection(config);
    connections.set(key, connection);
  }
  return new KubeRest(connection);
}
