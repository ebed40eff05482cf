import { apiErrorMessage, apiStatusCode } from './errors.js';
import type { ClusterObjects, KubeObject } from './cluster-objects.js';

/** One object named by apiVersion, kind, namespace and name (namespace dropped for a cluster-scoped kind). */
export interface ObjectRef {
  apiVersion: string;
  kind: string;
  name: string;
  namespace: string;
}

/** What a read found: the object, none, or why it cannot be read (a kind not served, a refusal), in words. */
export type ObjectFound =
  { kind: 'found'; object: KubeObject; clusterScoped: boolean } | { kind: 'missing'; clusterScoped: boolean } | { kind: 'unreadable'; message: string };

/** Reads any object by kind (dependsOn of any kind, healthCheckExprs), as the identity it was made for. */
export interface ObjectReads {
  read(ref: ObjectRef): Promise<ObjectFound>;
}

/**
 * ObjectReads over ClusterObjects: discovery maps the kind, a namespaced kind is read in the
 * ref's namespace. A kind the API server does not serve (its CRD not installed yet) and a
 * refusal are answers, not errors, so a dependency on them waits and says why.
 */
export class ObjectReader implements ObjectReads {
  constructor(private readonly objects: ClusterObjects) {}

  forUser(user: string | undefined): ObjectReader {
    return new ObjectReader(this.objects.forUser(user));
  }

  async read(ref: ObjectRef): Promise<ObjectFound> {
    const info = await this.objects.resolve(ref.apiVersion, ref.kind);
    if (!info) return { kind: 'unreadable', message: `the API server serves no ${ref.kind} in ${ref.apiVersion} (not installed yet?)` };
    try {
      const object = await this.objects.get(info, info.namespaced ? ref.namespace : undefined, ref.name);
      return object ? { kind: 'found', object, clusterScoped: !info.namespaced } : { kind: 'missing', clusterScoped: !info.namespaced };
    } catch (error) {
      if (apiStatusCode(error) === 403) return { kind: 'unreadable', message: `not allowed to read it: ${apiErrorMessage(error)}` };
      throw error;
    }
  }
}
