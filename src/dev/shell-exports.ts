// `helmcrew dev env`: the environment as shell exports, for `eval "$(helmcrew dev env)"`.
import { DEV_REPOSITORY_HOSTS } from './dev-settings.js';
import { kubeconfigVariable } from './dev-clusters.js';
import type { DevEnvironment } from './env-file.js';

/** Single quotes for the shell: safe for any path. */
function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** `export NAME=value` lines for `eval "$(helmcrew dev env)"`. */
export function formatShellExports(env: DevEnvironment): string {
  const vars: [string, string][] = [
    ['KUBECONFIG', env.kubeconfig],
    ['REDIS_URL', env.redisUrl],
    ['CHART_REPO_URL', env.chartRepoUrl],
    ['OCI_REGISTRY_URL', env.ociRegistry.url],
    ['OCI_AUTH_REGISTRY_URL', env.ociRegistry.authUrl],
    ['HELM_BIN', env.helmBin],
    ['KUBECTL_BIN', env.kubectlBin],
    ['KUSTOMIZE_BIN', env.kustomizeBin],
    ['SOPS_BIN', env.sopsBin],
    ['COSIGN_BIN', env.cosignBin],
    ['NOTATION_VERIFY_BIN', env.notationVerifyBin],
    // A local fleet: every cluster's name, and each one's kubeconfig in a variable of its own.
    ...(env.clusters
      ? [
          ['HELMCREW_DEV_CLUSTERS', env.clusters.map((c) => c.name).join(' ')] as [string, string],
          ...env.clusters.map((c) => [kubeconfigVariable(c.name), c.kubeconfig] as [string, string]),
        ]
      : []),
    // So a `helmcrew controller` started from this shell may fetch charts from the environment's loopback servers.
    ['HELMCREW_ALLOWED_REPOSITORY_HOSTS', DEV_REPOSITORY_HOSTS],
  ];
  return vars.map(([k, v]) => `export ${k}=${shellQuote(v)}`).join('\n') + '\n';
}
