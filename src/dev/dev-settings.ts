/**
 * The local environment's servers (chart repository, OCI registries, git) listen on loopback,
 * which the controller's safe default refuses as a repository host: the environment names them
 * explicitly, as an operator names its own repositories (`helmcrew dev env` exports it).
 */
export const DEV_REPOSITORY_HOSTS = '127.0.0.1,localhost,::1';

/** The settings a controller run against the local environment needs to reach its servers. */
export const DEV_CONTROLLER_SETTINGS = { HELMCREW_ALLOWED_REPOSITORY_HOSTS: DEV_REPOSITORY_HOSTS } as const;

/**
 * What the tests and benchmarks written before the safe defaults rely on, set explicitly: the
 * controller's own rights in every namespace (`HELMCREW_CLUSTER_SCOPE_NAMESPACES=*`) and
 * references across namespaces. A test of the safe defaults leaves them out.
 */
export const CONTROLLER_RIGHTS_SETTINGS = {
  ...DEV_CONTROLLER_SETTINGS,
  HELMCREW_CLUSTER_SCOPE_NAMESPACES: '*',
  HELMCREW_ALLOW_CROSS_NAMESPACE_TARGETS: 'true',
} as const;
