// Reads what the left-behind rule (left-behind.ts) needs: every namespace, and every HelmRelease
// that carries a finalizer. Two list calls, whatever the number of namespaces.
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { makeKubeClients } from '../../core/kube/client.js';
import { HelmReleaseApi } from '../../core/kube/helmrelease-api.js';
import type { NamespaceSeen, ReleaseSeen } from './left-behind.js';
import { CREATED_BY_LABEL } from './namespaces.js';
import { pollUntil } from './poll.js';

export async function readNamespaces(kc: KubeConfig): Promise<NamespaceSeen[]> {
  const { items } = await kc.makeApiClient(CoreV1Api).listNamespace();
  return items.map((ns) => ({
    name: ns.metadata?.name ?? '',
    terminating: !!ns.metadata?.deletionTimestamp,
    createdBy: ns.metadata?.labels?.[CREATED_BY_LABEL],
  }));
}

export async function readReleasesWithFinalizers(kc: KubeConfig): Promise<ReleaseSeen[]> {
  const { items } = await new HelmReleaseApi(makeKubeClients(kc)).list();
  return items
    .filter((r) => (r.metadata.finalizers ?? []).length > 0)
    .map((r) => ({ namespace: r.metadata.namespace ?? '', name: r.metadata.name, finalizers: r.metadata.finalizers ?? [] }));
}

/**
 * Waits until none of `names` exists any more. On time-out it throws, naming each one still there
 * with the namespace controller's own account of what holds it (its status conditions).
 */
export async function waitNamespacesGone(kc: KubeConfig, names: string[], timeoutMs: number): Promise<void> {
  const core = kc.makeApiClient(CoreV1Api);
  const wanted = new Set(names);
  let remaining: string[] = [];
  await pollUntil(
    async () => {
      remaining = (await readNamespaces(kc)).filter((ns) => wanted.has(ns.name)).map((ns) => ns.name);
      return remaining.length === 0 ? true : undefined;
    },
    { timeoutMs, intervalMs: 500 },
    () => `${remaining.length} namespace(s) still there after ${timeoutMs / 1000}s: ${remaining.join(', ')}`,
  ).catch(async (error: unknown) => {
    const details = await Promise.all(
      remaining.map(async (name) => {
        const ns = await core.readNamespace({ name }).catch(() => undefined);
        const held = (ns?.status?.conditions ?? []).filter((c) => c.status === 'True').map((c) => `${c.type}: ${c.message}`);
        return `  ${name} (${ns?.status?.phase ?? 'gone meanwhile'})${held.length ? ` — ${held.join('; ')}` : ''}`;
      }),
    );
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${details.join('\n')}`);
  });
}
