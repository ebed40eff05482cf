import type { HelmRelease } from '../../api/helmrelease.js';
import type { HelmReleaseStatus } from '../../api/helmrelease-status.js';
import { API_GROUP, API_VERSION, FIELD_MANAGER, FINALIZER, HELMRELEASE_PLURAL } from '../../api/vocabulary.js';
import { jsonPatch, mergePatch, type KubeClients } from './kube-clients.js';
import { isNotFound } from './errors.js';

/** A write that only succeeds while the object is still at this version (optimistic concurrency). */
export interface Precondition {
  resourceVersion: string;
}

/**
 * A JSON merge patch of what a person asks of a release: annotations and spec, never status (the
 * controller's). `null` removes a key.
 */
export interface IntentPatch {
  /** With resourceVersion the server refuses the patch (409) unless the object is still at that version. */
  metadata?: { annotations?: Record<string, string | null>; resourceVersion?: string };
  spec?: Record<string, unknown>;
}

/** Reads and writes HelmRelease objects; the only code that knows their REST coordinates. */
export class HelmReleaseApi {
  constructor(private readonly kube: KubeClients) {}

  private coordinates(namespace: string) {
    return { group: API_GROUP, version: API_VERSION, plural: HELMRELEASE_PLURAL, namespace };
  }

  async get(namespace: string, name: string): Promise<HelmRelease | undefined> {
    try {
      return (await this.kube.custom.getNamespacedCustomObject({ ...this.coordinates(namespace), name })) as HelmRelease;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** One page of one namespace's HelmReleases, or every namespace's (limit/continue): see watch/paged-list.ts. */
  async listPage(
    page: { limit: number; _continue?: string },
    namespace?: string,
  ): Promise<{ items: HelmRelease[]; metadata?: { resourceVersion?: string; continue?: string } }> {
    const coords = { group: API_GROUP, version: API_VERSION, plural: HELMRELEASE_PLURAL, ...page };
    const list: unknown = namespace
      ? await this.kube.custom.listNamespacedCustomObject({ ...coords, namespace })
      : await this.kube.custom.listClusterCustomObject(coords);
    return list as { items: HelmRelease[]; metadata?: { resourceVersion?: string; continue?: string } };
  }

  async list(namespace?: string): Promise<{ items: HelmRelease[]; metadata?: { resourceVersion?: string } }> {
    const coords = { group: API_GROUP, version: API_VERSION, plural: HELMRELEASE_PLURAL };
    const list: unknown = namespace
      ? await this.kube.custom.listNamespacedCustomObject({ ...coords, namespace })
      : await this.kube.custom.listClusterCustomObject(coords);
    return list as { items: HelmRelease[]; metadata?: { resourceVersion?: string } };
  }

  /**
   * Merge-patches status; the controller is the only writer of status, one worker per release.
   * Returns the object as the server has it after the write (its generation included). With
   * `precondition` the server refuses the write (409) unless the object is still at that version.
   */
  async patchStatus(release: HelmRelease, status: HelmReleaseStatus, precondition?: Precondition): Promise<HelmRelease> {
    return (await this.kube.custom.patchNamespacedCustomObjectStatus(
      {
        ...this.coordinates(release.metadata.namespace),
        name: release.metadata.name,
        body: precondition ? { metadata: { resourceVersion: precondition.resourceVersion }, status } : { status },
        fieldManager: FIELD_MANAGER,
      },
      mergePatch,
    )) as HelmRelease;
  }

  /**
   * Merge-patches annotations and spec: the intent the bot and the terminal write for the
   * controller to act on, under their own field manager. Returns the object after the write.
   */
  async patchIntent(namespace: string, name: string, patch: IntentPatch, fieldManager: string): Promise<HelmRelease> {
    return (await this.kube.custom.patchNamespacedCustomObject({ ...this.coordinates(namespace), name, body: patch, fieldManager }, mergePatch)) as HelmRelease;
  }

  /**
   * Adds the finalizer with a JSON patch that tests the current list first, so a concurrent
   * writer makes it fail (and the job retry) instead of being overwritten. Returns the object as
   * the server has it after the patch. With `precondition` it is a merge patch conditional on that
   * version (409 otherwise): the list as read is then the server's list.
   */
  async addFinalizer(release: HelmRelease, precondition?: Precondition): Promise<HelmRelease> {
    const current = release.metadata.finalizers;
    if (precondition) {
      const body = { metadata: { resourceVersion: precondition.resourceVersion, finalizers: [...(current ?? []), FINALIZER] } };
      return (await this.kube.custom.patchNamespacedCustomObject(
        { ...this.coordinates(release.metadata.namespace), name: release.metadata.name, body, fieldManager: FIELD_MANAGER },
        mergePatch,
      )) as HelmRelease;
    }
    const ops = current
      ? [
          { op: 'test', path: '/metadata/finalizers', value: current },
          { op: 'add', path: '/metadata/finalizers/-', value: FINALIZER },
        ]
      : [{ op: 'add', path: '/metadata/finalizers', value: [FINALIZER] }];
    return (await this.kube.custom.patchNamespacedCustomObject(
      { ...this.coordinates(release.metadata.namespace), name: release.metadata.name, body: ops, fieldManager: FIELD_MANAGER },
      jsonPatch,
    )) as HelmRelease;
  }

  async removeFinalizer(release: HelmRelease): Promise<void> {
    const current = release.metadata.finalizers ?? [];
    const index = current.indexOf(FINALIZER);
    if (index < 0) return;
    const ops = [
      { op: 'test', path: `/metadata/finalizers/${index}`, value: FINALIZER },
      { op: 'remove', path: `/metadata/finalizers/${index}` },
    ];
    try {
      await this.kube.custom.patchNamespacedCustomObject(
        { ...this.coordinates(release.metadata.namespace), name: release.metadata.name, body: ops, fieldManager: FIELD_MANAGER },
        jsonPatch,
      );
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
}
