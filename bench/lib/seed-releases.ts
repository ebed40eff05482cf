// N HelmReleases seeded as objects with a status as a controller would leave them (a tenth failed):
// no controller and no helm, so a surface that reads them (the web pages, the assistants' tools)
// is measured alone. Shared by bench/web.ts and bench/mcp.ts.
import { API_GROUP, API_VERSION, HELMRELEASE_PLURAL } from '../../src/api/vocabulary.js';
import { mergePatch, type ClientNodeKubeClients } from '../../src/core/kube/client.js';
import { helmReleaseObject, mapLimit } from '../../src/dev/harness/index.js';

export const coordinates = (namespace: string) => ({ group: API_GROUP, version: API_VERSION, namespace, plural: HELMRELEASE_PLURAL });

/** `app-0000`…: release i goes to namespaces[i % namespaces.length]. */
export const seededName = (i: number) => `app-${String(i).padStart(4, '0')}`;

export async function seedReleases(kube: ClientNodeKubeClients, namespaces: string[], n: number): Promise<void> {
  await mapLimit(
    Array.from({ length: n }, (_, i) => i),
    16,
    async (i) => {
      const namespace = namespaces[i % namespaces.length]!;
      const name = seededName(i);
      const body = helmReleaseObject(namespace, name, { chart: { repository: 'https://charts.example.org', name: 'app', version: '1.2.3' }, interval: '5m' });
      await kube.custom.createNamespacedCustomObject({ ...coordinates(namespace), body });
      const ok = i % 10 !== 0;
      const status = {
        observedGeneration: 1,
        conditions: [
          {
            type: 'Ready',
            status: ok ? 'True' : 'False',
            reason: ok ? 'UpgradeSucceeded' : 'UpgradeFailed',
            message: ok ? 'Helm upgrade succeeded for release app-v1.2.3' : 'Helm upgrade failed: timed out waiting for the condition',
            lastTransitionTime: new Date().toISOString(),
          },
        ],
        history: [{ revision: 3, chartName: 'app', chartVersion: '1.2.3', valuesDigest: 'sha256:0', status: ok ? 'deployed' : 'failed' }],
      };
      await kube.custom.patchNamespacedCustomObjectStatus({ ...coordinates(namespace), name, body: { status } }, mergePatch);
    },
  );
}
