import { ApiextensionsV1Api, type KubeConfig } from '@kubernetes/client-node';
import { allCrds } from '../../api/crd.js';
import { serverSideApply } from './server-side-apply.js';

/** Creates or updates every helmcrew CRD (HelmRelease, Team) by server-side apply and waits until each is served. */
export async function applyCrds(config: KubeConfig, timeoutMs = 30_000): Promise<void> {
  const api = config.makeApiClient(ApiextensionsV1Api);
  const names: string[] = [];
  for (const { crd } of allCrds()) {
    const name = (crd as { metadata: { name: string } }).metadata.name;
    await serverSideApply(config, `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`, crd);
    names.push(name);
  }
  const deadline = Date.now() + timeoutMs;
  for (const name of names) {
    for (;;) {
      const current = await api.readCustomResourceDefinition({ name });
      if (current.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) break;
      if (Date.now() > deadline) throw new Error(`CRD ${name} was not established within ${timeoutMs / 1000}s`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}
