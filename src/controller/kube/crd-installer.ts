import { ApiextensionsV1Api, type KubeConfig, type V1CustomResourceDefinition } from '@kubernetes/client-node';
import { helmReleaseCrd } from '../../api/crd.js';
import { isNotFound } from './errors.js';

/** Creates or updates the HelmRelease CRD and waits until the API server serves it. */
export async function applyHelmReleaseCrd(config: KubeConfig, timeoutMs = 30_000): Promise<void> {
  const api = config.makeApiClient(ApiextensionsV1Api);
  const crd = helmReleaseCrd() as unknown as V1CustomResourceDefinition;
  const name = crd.metadata!.name!;
  try {
    const existing = await api.readCustomResourceDefinition({ name });
    crd.metadata!.resourceVersion = existing.metadata?.resourceVersion;
    await api.replaceCustomResourceDefinition({ name, body: crd });
  } catch (error) {
    if (!isNotFound(error)) throw error;
    await api.createCustomResourceDefinition({ body: crd });
  }
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const current = await api.readCustomResourceDefinition({ name });
    const established = current.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
    if (established) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`CRD ${name} was not established within ${timeoutMs / 1000}s`);
}
