// What the demo chart (charts/unicorn) shows in the cluster: the colour it serves, whether its
// Deployment is available.
import { AppsV1Api, CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { isNotFound } from '../../core/kube/errors.js';

/** The colour the unicorn page declares (`data-color="…"` in the ConfigMap the Deployment serves). */
export async function servedColor(kc: KubeConfig, namespace: string, releaseName: string): Promise<string | undefined> {
  const core = kc.makeApiClient(CoreV1Api);
  try {
    const page = await core.readNamespacedConfigMap({ namespace, name: `${releaseName}-page` });
    return /data-color="([^"]+)"/.exec(page.data?.['index.html'] ?? '')?.[1];
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

export async function deploymentAvailable(kc: KubeConfig, namespace: string, name: string): Promise<boolean> {
  const apps = kc.makeApiClient(AppsV1Api);
  try {
    const deployment = await apps.readNamespacedDeployment({ namespace, name });
    return deployment.status?.conditions?.some((c) => c.type === 'Available' && c.status === 'True') ?? false;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}
