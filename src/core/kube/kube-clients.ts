// Types only: erased at compile time, so no process pays for client-node by importing this.
import type { ConfigurationOptions, CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';

/**
 * Exactly the Kubernetes calls the controller and notify processes make, with client-node's
 * method names and parameter objects. Two implementations: client-node's generated classes
 * (client.ts, for the bot, the CLI, dev tooling and tests) and the slim client
 * (slim-clients.ts, for the controller and notify, which must not load client-node).
 *
 * The slim client returns the API server's JSON as it is: timestamps on core objects are
 * strings there, where client-node would make them Dates. Nothing in these processes reads them.
 */
export type CoreClient = Pick<
  CoreV1Api,
  | 'readNamespacedSecret'
  | 'listNamespacedSecret'
  | 'createNamespacedSecret'
  | 'replaceNamespacedSecret'
  | 'readNamespacedConfigMap'
  | 'createNamespacedConfigMap'
  | 'patchNamespacedConfigMap'
  | 'createNamespacedEvent'
>;

export type CustomClient = Pick<
  CustomObjectsApi,
  | 'getNamespacedCustomObject'
  | 'listNamespacedCustomObject'
  | 'patchNamespacedCustomObject'
  | 'patchNamespacedCustomObjectStatus'
  | 'getClusterCustomObject'
  | 'listClusterCustomObject'
  | 'patchClusterCustomObjectStatus'
  | 'patchClusterCustomObject'
  | 'createClusterCustomObject'
  | 'deleteClusterCustomObject'
>;

/** The API clients a process uses, made once per identity. */
export interface KubeClients {
  core: CoreClient;
  custom: CustomClient;
  /** The same clients acting as `user` (Impersonate-User), sharing this one's connections. */
  impersonate(user: string): KubeClients;
}

/**
 * Patch content types as client-node request options (a header middleware shaped as
 * client-node's own `setHeaderOptions` makes it); the slim client reads the same header.
 */
function contentType(value: string): ConfigurationOptions {
  const middleware = {
    pre: (context: { setHeaderParam(key: string, value: string): void }) => {
      context.setHeaderParam('Content-Type', value);
      return { toPromise: () => Promise.resolve(context) };
    },
    post: (response: unknown) => ({ toPromise: () => Promise.resolve(response) }),
  };
  return { middleware: [middleware], middlewareMergeStrategy: 'append' } as unknown as ConfigurationOptions;
}

export const mergePatch = contentType('application/merge-patch+json');
export const jsonPatch = contentType('application/json-patch+json');

/** The headers request options set (the slim client honours Content-Type from them). */
export async function headersFrom(options: ConfigurationOptions | undefined): Promise<Record<string, string>> {
  const headers: Record<string, string> = {};
  const context = { setHeaderParam: (key: string, value: string) => void (headers[key] = value) };
  for (const middleware of (options?.middleware ?? []) as unknown as Array<{ pre?: (ctx: typeof context) => { toPromise?: () => Promise<unknown> } }>) {
    await middleware.pre?.(context)?.toPromise?.();
  }
  return headers;
}
