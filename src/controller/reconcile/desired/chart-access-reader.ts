import type { HelmRelease } from '../../../api/helmrelease.js';
import type { KubeReads } from '../ports/context.js';
import { apiErrorMessage, isForbidden, isNotFound } from '../../../core/kube/errors.js';
import type { DependencyRepositoryAccess } from '../../charts/git/chart-dependencies.js';
import { gitAccessFrom, type GitAccess } from '../../charts/git/git-access.js';
import { ANONYMOUS, ChartAccessError, chartAccessFrom, needsSecrets, type ChartAccess } from '../../charts/chart-access.js';

/**
 * Reads `spec.chart.secretRef` and `certSecretRef` with the clients of the HelmRelease's identity
 * (its ServiceAccount when it acts as one), so a tenant can use only Secrets it could read
 * itself. Messages name the Secret, never its contents.
 */
export async function readChartAccess(kube: KubeReads, release: HelmRelease): Promise<ChartAccess> {
  const { chart } = release.spec;
  if (!needsSecrets(chart)) return chart.insecure ? { ...ANONYMOUS, insecure: true, cacheKey: 'anonymous-plain' } : ANONYMOUS;
  const namespace = release.metadata.namespace;
  const [secretData, certData, proxyData] = await Promise.all([
    chart.secretRef ? readSecretData(kube, namespace, chart.secretRef.name, 'spec.chart.secretRef') : undefined,
    chart.certSecretRef ? readSecretData(kube, namespace, chart.certSecretRef.name, 'spec.chart.certSecretRef') : undefined,
    chart.proxySecretRef ? readSecretData(kube, namespace, chart.proxySecretRef.name, 'spec.chart.proxySecretRef') : undefined,
  ]);
  return chartAccessFrom({ chart, namespace, secretData, certData, proxyData });
}

/** Reads `spec.chart.git.secretRef` the same way: as the HelmRelease's identity. */
export async function readGitAccess(kube: KubeReads, release: HelmRelease): Promise<GitAccess> {
  const git = release.spec.chart.git!;
  const namespace = release.metadata.namespace;
  const secretName = git.secretRef?.name;
  const proxySecretName = git.proxySecretRef?.name;
  const [secretData, proxyData] = await Promise.all([
    secretName ? readSecretData(kube, namespace, secretName, 'spec.chart.git.secretRef') : undefined,
    proxySecretName ? readSecretData(kube, namespace, proxySecretName, 'spec.chart.git.proxySecretRef') : undefined,
  ]);
  return gitAccessFrom({ url: git.url, namespace, secretName, secretData, proxySecretName, proxyData });
}

/** Reads the Secrets of `spec.chart.git.dependencies` the same way: as the HelmRelease's identity. */
export async function readGitDependencyAccess(kube: KubeReads, release: HelmRelease): Promise<DependencyRepositoryAccess[]> {
  const namespace = release.metadata.namespace;
  const entries = release.spec.chart.git?.dependencies ?? [];
  return Promise.all(
    entries.map(async (entry, i) => {
      const field = `spec.chart.git.dependencies[${i}]`;
      const [secretData, certData] = await Promise.all([
        entry.secretRef ? readSecretData(kube, namespace, entry.secretRef.name, `${field}.secretRef`) : undefined,
        entry.certSecretRef ? readSecretData(kube, namespace, entry.certSecretRef.name, `${field}.certSecretRef`) : undefined,
      ]);
      const chart = { name: 'dependency', ...entry };
      return { repository: entry.repository, field, access: chartAccessFrom({ chart, namespace, secretData, certData, field }) };
    }),
  );
}

async function readSecretData(kube: KubeReads, namespace: string, name: string, field: string): Promise<Record<string, string>> {
  try {
    const secret = await kube.core.readNamespacedSecret({ namespace, name });
    return secret.data ?? {};
  } catch (error) {
    if (isNotFound(error)) throw new ChartAccessError(`Secret ${namespace}/${name} (${field}) not found`);
    if (isForbidden(error)) throw new ChartAccessError(`Secret ${namespace}/${name} (${field}) may not be read: ${apiErrorMessage(error)}`);
    throw error;
  }
}
