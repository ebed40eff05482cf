// Helm's release records and the controller's Events for seeded HelmReleases (seed-releases.ts), as
// helm and the controller would leave them: R revisions each (the last deployed, or failed for a
// tenth, as their status says), every record with values, a manifest and the chart's templates and
// NOTES (gzip of JSON, helm's format: core/helm-storage/release-record.ts), and E Events about each
// release (the newest a person's ActionRequested). No helm runs: the reads of a surface are measured alone.
import { API_GROUP, API_VERSION, HELMRELEASE_KIND, ReleaseEvent } from '../../src/api/vocabulary.js';
import { encodeReleasePayload, releaseSecretName } from '../../src/core/helm-storage/release-record.js';
import type { ClientNodeKubeClients } from '../../src/core/kube/client.js';
import { mapLimit } from '../../src/dev/harness/index.js';
import { seededName } from './seed-releases.js';

/** A template of about 2 KB, as a small chart's Deployment is. */
const template = (name: string, i: number) =>
  `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ${name}-${i}\n  labels: { app: ${name} }\nspec:\n  replicas: 2\n` +
  `  template:\n    spec:\n      containers:\n${Array.from({ length: 12 }, (_, c) => `        - name: c${c}\n          image: registry.example.org/${name}:${i}.${c}\n          env: [{ name: MODE, value: "${'x'.repeat(40)}" }]\n`).join('')}`;

function record(namespace: string, name: string, revision: number, last: number, failed: boolean): object {
  const status = revision < last ? 'superseded' : failed ? 'failed' : 'deployed';
  const templates = [0, 1, 2, 3].map((i) => ({ name: `templates/t${i}.yaml`, data: Buffer.from(template(name, i)).toString('base64') }));
  const payload = {
    name,
    namespace,
    version: revision,
    config: { replicaCount: 2, image: { tag: `1.2.${revision}` }, password: 'bench-not-a-secret' },
    manifest: [0, 1, 2, 3].map((i) => template(name, i)).join('---\n'),
    info: {
      status,
      first_deployed: '2026-11-01T10:00:00Z',
      last_deployed: `2026-11-0${revision}T10:00:00Z`,
      description: revision === 1 ? 'Install complete' : failed && revision === last ? 'Upgrade "app" failed: timed out' : 'Upgrade complete',
      notes: `1. Get the application URL by running these commands:\n  kubectl --namespace ${namespace} port-forward svc/${name} 8080:80\n  echo "Visit http://127.0.0.1:8080 to use your application"\n`,
    },
    chart: { metadata: { name: 'app', version: '1.2.3', appVersion: '1.2' }, templates, values: { replicaCount: 1 } },
  };
  const labels = { owner: 'helm', name, status, version: String(revision), modifiedAt: '1790000000' };
  return {
    metadata: { name: releaseSecretName(name, revision), namespace, labels },
    type: 'helm.sh/release.v1',
    data: { release: encodeReleasePayload(payload) },
  };
}

export async function seedHelmHistory(kube: ClientNodeKubeClients, namespaces: string[], n: number, revisions: number, events: number): Promise<void> {
  await mapLimit(
    Array.from({ length: n }, (_, i) => i),
    16,
    async (i) => {
      const namespace = namespaces[i % namespaces.length]!;
      const name = seededName(i);
      for (let revision = 1; revision <= revisions; revision++)
        await kube.core.createNamespacedSecret({ namespace, body: record(namespace, name, revision, revisions, i % 10 === 0) });
      for (let e = 0; e < events; e++) {
        const action = e === events - 1;
        await kube.core.createNamespacedEvent({
          namespace,
          body: {
            metadata: { name: `${name}.${e}`, namespace },
            involvedObject: { apiVersion: `${API_GROUP}/${API_VERSION}`, kind: HELMRELEASE_KIND, name, namespace },
            reason: action ? ReleaseEvent.ActionRequested : 'UpgradeSucceeded',
            message: action
              ? `slack:UBENCH asked for the upgrade of ${namespace}/${name} to 1.2.3: bench`
              : `Helm upgrade succeeded for release ${name} (revision ${e + 1})`,
            type: 'Normal',
            firstTimestamp: new Date(Date.now() - (events - e) * 60_000),
            lastTimestamp: new Date(Date.now() - (events - e) * 60_000),
            source: { component: 'helmcrew-bench' },
          },
        });
      }
    },
  );
}
