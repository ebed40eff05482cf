import { request as httpRequest } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { KubeConfig, ListWatch, Watch, type KubernetesObject, type RequestContext } from '@kubernetes/client-node';

/**
 * Informers that see only object metadata (PartialObjectMetadata): the API server sends names,
 * labels and resourceVersions, never a Secret's data, so nothing secret is held in memory and
 * a namespace full of large Secrets costs little.
 */
const META_LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
const META_OBJECT = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';

export type MetadataInformer = ListWatch<KubernetesObject>;

/** `onListed` runs after each successful list (the informer's start() resolves even when the list fails). */
export function makeMetadataInformer(kc: KubeConfig, path: string, onListed: () => void): MetadataInformer {
  // The watch asks for metadata only: same credentials, one more header.
  const metadataConfig = Object.create(kc) as KubeConfig;
  metadataConfig.applySecurityAuthentication = async (ctx: RequestContext) => {
    await kc.applySecurityAuthentication(ctx);
    ctx.setHeaderParam('Accept', META_OBJECT);
  };
  const list = async () => {
    const result = await listMetadata(kc, path);
    // Deferred: the informer reports the listed objects as added right after this returns.
    setImmediate(onListed);
    return result;
  };
  return new ListWatch<KubernetesObject>(path, new Watch(metadataConfig), list as never, false);
}

async function listMetadata(kc: KubeConfig, path: string): Promise<{ metadata: { resourceVersion?: string }; items: KubernetesObject[] }> {
  const server = kc.getCurrentCluster()?.server;
  if (!server) throw new Error('no current cluster in the kubeconfig');
  const url = new URL(path, server);
  const options: RequestOptions = { method: 'GET', headers: {} };
  await kc.applyToHTTPSOptions(options);
  options.headers = { ...(options.headers as Record<string, string>), Accept: META_LIST };
  const send = url.protocol === 'http:' ? httpRequest : httpsRequest;
  const body = await new Promise<string>((resolve, reject) => {
    const req = send(url, { ...options, timeout: 30_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode === 200) resolve(text);
        else reject(Object.assign(new Error(`list ${path}: HTTP ${res.statusCode}`), { statusCode: res.statusCode }));
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`list ${path}: timed out`)));
    req.on('error', reject);
    req.end();
  });
  const list = JSON.parse(body) as { metadata?: { resourceVersion?: string }; items?: KubernetesObject[] };
  return { metadata: list.metadata ?? {}, items: list.items ?? [] };
}
