import { isNotFound } from './errors.js';
import type { KubeRest } from './rest-client.js';
import { objectPath, ResourceDiscovery, type ResourceInfo } from './resource-discovery.js';

/** Any Kubernetes object, as JSON. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

export interface ApplyOptions {
  /** The field manager the apply is made as (helm's own, so a later helm upgrade owns the same fields). */
  fieldManager: string;
  /** Take fields other managers own (server-side apply's force). */
  force: boolean;
  /** Ask what the object would become, change nothing (dryRun=All). */
  dryRun: boolean;
}

/**
 * Reads and server-side applies objects of any kind, as a release's own objects need: discovery
 * maps each kind to its REST path. Made per identity (`forUser`), like KubeClients, sharing one
 * connection and one discovery cache.
 */
export class ClusterObjects {
  constructor(
    private readonly rest: KubeRest,
    private readonly discovery: ResourceDiscovery = new ResourceDiscovery(rest),
  ) {}

  /** The same objects acting as `user`; discovery stays the controller's. */
  forUser(user: string | undefined): ClusterObjects {
    return user === undefined ? this : new ClusterObjects(this.rest.impersonate(user), this.discovery);
  }

  resolve(apiVersion: string, kind: string): Promise<ResourceInfo | undefined> {
    return this.discovery.resolve(apiVersion, kind);
  }

  /** The live object, or undefined when there is none. */
  async get(info: ResourceInfo, namespace: string | undefined, name: string): Promise<KubeObject | undefined> {
    try {
      return await this.rest.request<KubeObject>({ method: 'GET', path: objectPath(info, namespace, name) });
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** Server-side apply (creates the object when missing); returns the object as the server has it, or would. */
  async apply(info: ResourceInfo, object: KubeObject, options: ApplyOptions): Promise<KubeObject> {
    return this.rest.request<KubeObject>({
      method: 'PATCH',
      path: objectPath(info, object.metadata.namespace, object.metadata.name),
      query: { fieldManager: options.fieldManager, force: options.force, ...(options.dryRun ? { dryRun: 'All' } : {}) },
      // JSON is YAML: the apply content type takes it as it is.
      contentType: 'application/apply-patch+yaml',
      body: object,
    });
  }
}
