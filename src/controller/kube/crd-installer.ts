import { ApiextensionsV1Api, type KubeConfig } from '@kubernetes/client-node';
import { helmReleaseCrd } from '../../api/crd.js';
import { serverSideApply } from './server-side-apply.js';

/** Creates or updates the HelmRelease CRD (server-side apply) and waits until it is served. */
export async function applyHelmReleaseCrd(config: KubeConfig, timeoutMs = 30_000): Promise<void> {
  const crd = helmReleaseCrd() as { metadata: { name: string } };
  const name = crd.metadata.name;
  await serverSideApply(config, `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`, crd);
  const api = config.makeApiClient(ApiextensionsV1Api);
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const current = await api.readCustomResourceDefinition({ name });
    const established = current.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
    if (established) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`CRD ${name} was not established within ${timeoutMs / 1000}s`);
}
