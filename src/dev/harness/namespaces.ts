// Namespaces: create one (optionally with a unique name), delete one, delete one no controller
// watches any more (helmcrew's finalizers stripped first, so it does not stay Terminating), or
// delete one fully (also waited until gone).
import { setTimeout as sleep } from 'node:timers/promises';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { HelmRelease } from '../../api/helmrelease.js';
import { API_GROUP, API_VERSION, HELMRELEASE_PLURAL } from '../../api/vocabulary.js';
import { jsonPatch, makeKubeClients } from '../../core/kube/client.js';
import { isConflict, isNotFound } from '../../core/kube/errors.js';
import { HelmReleaseApi } from '../../core/kube/helmrelease-api.js';
import { mapLimit } from './map-limit.js';
import { uniqueName } from './names.js';

/** The label every namespace this process creates carries while a test file runs (see markNamespacesOf). */
export const CREATED_BY_LABEL = 'helmcrew.dev/created-by';
let createdBy: string | undefined;

/**
 * From now on, namespaces this process creates carry `helmcrew.dev/created-by: <owner>`: the
 * integration guard marks each file's namespaces so it judges its own only while another file
 * runs beside it in another worker. undefined stops marking.
 */
export function markNamespacesOf(owner: string | undefined): void {
  createdBy = owner;
}

/** Creates the namespace; one that exists already is fine. */
export async function ensureNamespace(kc: KubeConfig, name: string): Promise<void> {
  const core = kc.makeApiClient(CoreV1Api);
  try {
    await core.createNamespace({ body: { metadata: { name, ...(createdBy ? { labels: { [CREATED_BY_LABEL]: createdBy } } : {}) } } });
  } catch (error) {
    if (!isConflict(error)) throw error;
  }
}

/** A fresh namespace named `prefix-<6 hex digits>`; returns its name. */
export async function createNamespace(kc: KubeConfig, prefix: string): Promise<string> {
  const name = uniqueName(prefix);
  await ensureNamespace(kc, name);
  return name;
}

/** Asks for the namespace's deletion and does not wait; errors (already gone) are ignored. */
export async function deleteNamespace(kc: KubeConfig, name: string): Promise<void> {
  await kc
    .makeApiClient(CoreV1Api)
    .deleteNamespace({ name })
    .catch(() => undefined);
}

/**
 * Takes the finalizers off every HelmRelease in the namespace that has any. Only for a namespace
 * no controller watches any more: helmcrew's finalizer is removed by the controller once it has
 * uninstalled, so with the controller stopped it would hold the namespace Terminating for good.
 */
export async function stripHelmReleaseFinalizers(kc: KubeConfig, namespace: string): Promise<void> {
  const kube = makeKubeClients(kc);
  const { items } = await new HelmReleaseApi(kube).list(namespace).catch(() => ({ items: [] as HelmRelease[] }));
  await mapLimit(
    items.filter((r) => (r.metadata.finalizers ?? []).length > 0),
    10,
    async (r) => {
      await kube.custom
        .patchNamespacedCustomObject(
          {
            group: API_GROUP,
            version: API_VERSION,
            plural: HELMRELEASE_PLURAL,
            namespace,
            name: r.metadata.name,
            body: [{ op: 'remove', path: '/metadata/finalizers' }],
          },
          jsonPatch,
        )
        .catch(() => undefined);
    },
  );
}

/**
 * Deletes a namespace whose controllers are stopped (a test file's clean-up): its HelmReleases'
 * finalizers are stripped first, so the namespace controller removes it within seconds instead
 * of leaving it Terminating for good. Does not wait: the namespace controller holds every
 * deletion at least 5 s, which the next test file need not spend waiting.
 */
export async function deleteNamespaceWithoutController(kc: KubeConfig, namespace: string): Promise<void> {
  await stripHelmReleaseFinalizers(kc, namespace);
  await deleteNamespace(kc, namespace);
}

/** True once the namespace does not exist any more. */
async function namespaceGone(core: CoreV1Api, namespace: string): Promise<boolean> {
  try {
    await core.readNamespace({ name: namespace });
    return false;
  } catch (error) {
    if (isNotFound(error)) return true;
    throw error;
  }
}

/**
 * Deletes a namespace without the controller: strips helmcrew's finalizer from every HelmRelease
 * (the controller is stopped, nobody would uninstall), deletes the namespace and waits until it is
 * gone, so what runs next does not share the machine with its garbage collection. Returns the ms it took.
 */
export async function deleteNamespaceFully(kc: KubeConfig, namespace: string, timeoutMs = 120_000): Promise<number> {
  const started = Date.now();
  const core = kc.makeApiClient(CoreV1Api);
  await core.deleteNamespace({ name: namespace }).catch((error: unknown) => {
    if (!isNotFound(error)) throw error;
  });
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    await stripHelmReleaseFinalizers(kc, namespace);
    if (await namespaceGone(core, namespace)) return Date.now() - started;
    await sleep(500);
  }
  throw new Error(`namespace ${namespace} still exists after ${timeoutMs / 1000}s`);
}
