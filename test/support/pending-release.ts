import type { KubeConfig } from '@kubernetes/client-node';
import { CoreV1Api } from '@kubernetes/client-node';
import { decodeReleasePayload, encodeReleasePayload, releaseSecretName } from '../../src/core/helm-storage/release-record.js';

/**
 * Leaves a release the way a helm process killed mid-upgrade does: a new revision record in
 * status pending-upgrade, started at `startedAt`. Built from the deployed record, in Helm's
 * own storage format, so helm itself then refuses to act ("another operation is in progress").
 */
export async function leavePendingUpgrade(
  kc: KubeConfig,
  namespace: string,
  releaseName: string,
  fromRevision: number,
  startedAt: Date,
  /** Labels to set on the record, over those copied from `fromRevision` (e.g. the holder's timeout). */
  labels: Record<string, string> = {},
): Promise<number> {
  const core = kc.makeApiClient(CoreV1Api);
  const source = await core.readNamespacedSecret({ namespace, name: releaseSecretName(releaseName, fromRevision) });
  const payload = decodeReleasePayload(source.data!.release!);
  const revision = fromRevision + 1;
  payload.version = revision;
  payload.info = { ...payload.info, status: 'pending-upgrade', last_deployed: startedAt.toISOString(), description: 'Preparing upgrade' };
  await core.createNamespacedSecret({
    namespace,
    body: {
      metadata: {
        name: releaseSecretName(releaseName, revision),
        namespace,
        labels: { ...source.metadata?.labels, ...labels, status: 'pending-upgrade', version: String(revision) },
      },
      type: 'helm.sh/release.v1',
      data: { release: encodeReleasePayload(payload) },
    },
  });
  return revision;
}
