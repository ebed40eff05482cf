import { manifestDocuments, readableValues, type ManifestDocument } from '../../../src/controller/drift/manifest-objects.js';
import { withInventory } from '../../../src/controller/reconcile/decide/inventory.js';
import { eventImages } from '../../../src/core/release/deployed-images.js';

/** What the controller makes of the manifest after helm: the status's inventory, the Event's images, which documents failed. */
export function postHelmRead(documents: ManifestDocument[]) {
  const before = { inventory: { entries: [{ id: 'shop_old_apps_Deployment', v: 'v1' }] } };
  return {
    status: withInventory(before, documents, { name: 'web', namespace: 'shop' }),
    images: eventImages(readableValues(documents)),
    failed: documents.filter((document) => 'error' in document).map((document) => document.index),
  };
}

/** Today's path: every document read in full (manifestDocuments with parseHelmYaml). */
export const fullRead = (manifest: string) => postHelmRead(manifestDocuments(manifest));
