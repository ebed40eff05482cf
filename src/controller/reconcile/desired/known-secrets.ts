import type { HelmRelease } from '../../../api/helmrelease.js';
import type { SecretValues } from '../../../core/release/secret-values.js';
import { accessSecrets } from '../../charts/chart-access.js';
import { gitAccessSecrets } from '../../charts/git/git-access.js';
import { readChartAccess, readGitAccess } from './chart-access-reader.js';
import { composeValues, type ValuesPorts } from './values-from.js';

/**
 * The Secret values the spec composes now (valuesFrom and the chart's credentials), for redacting
 * helm's words, without resolving the chart: no index fetch, no tag lookup, no values files (those
 * come from the chart, not from Secrets). undefined when they cannot be read: nothing is known to redact.
 */
export async function knownSecrets(ports: ValuesPorts, release: HelmRelease): Promise<SecretValues | undefined> {
  const kube = ports.kube;
  try {
    const { secrets } = await composeValues(ports, release);
    const credentials = release.spec.chart.git ? gitAccessSecrets(await readGitAccess(kube, release)) : accessSecrets(await readChartAccess(kube, release));
    for (const secret of credentials) secrets.add(secret);
    return secrets;
  } catch {
    return undefined;
  }
}
