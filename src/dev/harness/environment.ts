// A whole local environment (devUp) with helmcrew's CRDs applied: what the integration tests'
// global set-up and every benchmark start from.
import type { KubeConfig } from '@kubernetes/client-node';
import { loadKubeConfig } from '../../core/kube/client.js';
import { applyCrds } from '../../core/kube/crd-installer.js';
import { devUp, type DevEnvironment, type DevOptions } from '../environment.js';

export async function startEnvironmentWithCrds(opts: DevOptions): Promise<{ env: DevEnvironment; kubeConfig: KubeConfig }> {
  const env = await devUp(opts);
  const kubeConfig = loadKubeConfig(env.kubeconfig);
  await applyCrds(kubeConfig);
  return { env, kubeConfig };
}
