// For the steady state at large N without N real installs first: copies the release record helm
// wrote for one real install to N-1 more release names (what helm would have written for them:
// same chart, values and manifest, with the name changed), so N HelmReleases find their release
// in sync. Bench-only; RESULTS.md says where it is used. At rest the controller reads only these
// records and the HelmReleases, so what it does there is the same as after N real installs.
import { CoreV1Api, type KubeConfig, type V1Secret } from '@kubernetes/client-node';
import { decodeReleasePayload, encodeReleasePayload, releaseSecretName } from '../../src/core/helm-storage/release-record.js';
import { mapLimit } from '../../src/dev/harness/index.js';

export async function cloneReleaseRecord(kc: KubeConfig, namespace: string, from: string, to: string[]): Promise<void> {
  const core = kc.makeApiClient(CoreV1Api);
  const template = await core.readNamespacedSecret({ namespace, name: releaseSecretName(from, 1) });
  const payload = decodeReleasePayload(template.data!.release!);
  const manifest = typeof payload.manifest === 'string' ? payload.manifest : '';
  await mapLimit(to, 8, async (name) => {
    const copy = { ...payload, name, manifest: manifest.split(from).join(name) };
    const labels = Object.fromEntries(Object.entries(template.metadata?.labels ?? {}).map(([k, v]) => [k, v === from ? name : v]));
    const body: V1Secret = {
      metadata: { name: releaseSecretName(name, 1), namespace, labels },
      type: template.type,
      data: { release: encodeReleasePayload(copy) },
    };
    await core.createNamespacedSecret({ namespace, body });
  });
}
