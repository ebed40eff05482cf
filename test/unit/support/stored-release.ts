import type { StoredRelease } from '../../../src/core/helm-storage/release-storage.js';

/** A helm revision as the storage reads it: revision 1 of `apps/app`, deployed, with a manifest; `over` changes any field. */
export function storedRelease(over: Partial<StoredRelease> = {}): StoredRelease {
  return {
    name: 'app',
    namespace: 'apps',
    revision: 1,
    status: 'deployed',
    chartName: 'unicorn',
    chartVersion: '1.0.0',
    config: { replicas: 1 },
    manifest: 'kind: ConfigMap\n',
    ...over,
  };
}
