import {
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';

/** The API clients the controller uses, made once from one KubeConfig. */
export interface KubeClients {
  config: KubeConfig;
  core: CoreV1Api;
  custom: CustomObjectsApi;
}

/** KUBECONFIG when set (a path), otherwise in-cluster or ~/.kube/config, as kubectl does. */
export function loadKubeConfig(kubeconfigPath = process.env.KUBECONFIG): KubeConfig {
  const config = new KubeConfig();
  if (kubeconfigPath) config.loadFromFile(kubeconfigPath);
  else config.loadFromDefault();
  return config;
}

export function makeKubeClients(config: KubeConfig): KubeClients {
  return { config, core: config.makeApiClient(CoreV1Api), custom: config.makeApiClient(CustomObjectsApi) };
}

export const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
export const jsonPatch = setHeaderOptions('Content-Type', PatchStrategy.JsonPatch);
