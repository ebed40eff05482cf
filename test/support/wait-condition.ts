import type { KubeConfig } from '@kubernetes/client-node';
import type { Condition, HelmRelease } from '../../src/api/helmrelease.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';

/** Waits until the HelmRelease's Ready condition has `reason`; returns the object. */
export async function waitForReadyReason(
  kc: KubeConfig,
  namespace: string,
  name: string,
  reason: string,
  timeoutMs = 60_000,
): Promise<HelmRelease & { ready: Condition }> {
  const api = new HelmReleaseApi(makeKubeClients(kc));
  const deadline = Date.now() + timeoutMs;
  let last: HelmRelease | undefined;
  while (Date.now() < deadline) {
    last = await api.get(namespace, name);
    const ready = last?.status?.conditions?.find((c) => c.type === 'Ready');
    if (last && ready?.reason === reason) return { ...last, ready };
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${namespace}/${name} never had Ready reason ${reason}; last status: ${JSON.stringify(last?.status)}`);
}

/** Waits until the HelmRelease object is gone (its finalizer removed). */
export async function waitForGone(kc: KubeConfig, namespace: string, name: string, timeoutMs = 60_000): Promise<void> {
  const api = new HelmReleaseApi(makeKubeClients(kc));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!(await api.get(namespace, name))) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${namespace}/${name} still exists after ${timeoutMs / 1000}s`);
}
