import { isNotFound } from '../kube/errors.js';
import { seg, type KubeRest } from '../kube/rest-client.js';
import { decodeReleasePayload, releaseSecretName } from './release-record.js';
import { revisionSummary } from './revision-summary.js';

/**
 * One revision's NOTES read from its record by name (one GET), bounded as the web's record watch
 * keeps them: for `helmcrew mcp` (no watch), and on the web until its record watch has listed.
 * undefined when the record is gone or the chart has no NOTES.
 */
export function recordNotesReader(rest: KubeRest): (namespace: string, releaseName: string, revision: number) => Promise<string | undefined> {
  return async (namespace, releaseName, revision) => {
    const name = releaseSecretName(releaseName, revision);
    try {
      const secret = await rest.request<{ data?: { release?: string } }>({ method: 'GET', path: `/api/v1/namespaces/${seg(namespace)}/secrets/${seg(name)}` });
      const data = secret.data?.release;
      return data ? revisionSummary(decodeReleasePayload(data, `${namespace}/${name}`)).notes : undefined;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  };
}
