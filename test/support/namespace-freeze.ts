import type { CustomObjectsApi } from '@kubernetes/client-node';
import { API_GROUP, API_VERSION } from '../../src/api/vocabulary.js';
import { uniqueName } from './fixtures.js';

/** A Freeze scoped to one namespace, created on the API server; `lift` deletes it. */
export async function freezeNamespace(
  custom: CustomObjectsApi,
  namespace: string,
  reason = 'release night',
): Promise<{ name: string; lift: () => Promise<void> }> {
  const name = uniqueName('hold');
  await custom.createClusterCustomObject({
    group: API_GROUP,
    version: API_VERSION,
    plural: 'freezes',
    body: { apiVersion: `${API_GROUP}/${API_VERSION}`, kind: 'Freeze', metadata: { name }, spec: { reason, scope: { namespaces: [namespace] } } },
  });
  return { name, lift: async () => void (await custom.deleteClusterCustomObject({ group: API_GROUP, version: API_VERSION, plural: 'freezes', name })) };
}
