/**
 * The environment every helm process gets (on top of the controller's own, which it inherits):
 * where helm keeps its files, the cluster, and how its Go runtime collects garbage.
 */

export interface HelmProcessSettings {
  workDir: string;
  kubeconfig?: string;
  /**
   * GOGC for helm; undefined leaves Go's default (or the GOGC of the controller's environment).
   * A helm process lives about a second and grows its heap from nothing, collecting several times
   * on the way at Go's 100: 200 measured 3–21 % less CPU per helm (it varied by run) for ~7 MiB more peak RSS each
   * (bench/helm-env.ts). Memory is the default's side of that trade (docs/operations.md, docs/performance.md).
   */
  goGC?: string;
}

/** Pure: the variables the helm runner adds to the controller's environment for each helm. */
export function helmProcessEnv(settings: HelmProcessSettings): Record<string, string> {
  return {
    HELM_CACHE_HOME: `${settings.workDir}/helm/cache`,
    HELM_CONFIG_HOME: `${settings.workDir}/helm/config`,
    HELM_DATA_HOME: `${settings.workDir}/helm/data`,
    // client-go's discovery and OpenAPI cache, shared by every helm process (default ~/.kube/cache,
    // which in the image is not writable, so each helm fetched them again).
    KUBECACHEDIR: `${settings.workDir}/kube/cache`,
    // helm falls back to Docker's credentials (~/.docker/config.json, maybe a credential-helper
    // program) when its registry config has none for a host: point that at a folder that stays empty.
    DOCKER_CONFIG: `${settings.workDir}/helm/no-docker-config`,
    ...(settings.kubeconfig ? { KUBECONFIG: settings.kubeconfig } : {}),
    ...(settings.goGC ? { GOGC: settings.goGC } : {}),
  };
}

/** Pure: a GOGC value Go accepts (a whole number ≥ 1, or "off"), else undefined. */
export function validGoGC(raw: string): string | undefined {
  if (raw === 'off') return raw;
  return /^[1-9][0-9]{0,5}$/.test(raw) ? raw : undefined;
}
