import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { manifestDocuments, readableValues } from '../../src/controller/drift/manifest-objects.js';
import { withInventory } from '../../src/controller/reconcile/decide/inventory.js';
import { eventImages } from '../../src/core/release/deployed-images.js';

/**
 * Issue 36: after helm, the manifest it wrote is read once (manifestDocuments) for both
 * status.inventory and the Event's images; each was a parse of its own before. The outputs are
 * byte for byte those of the two parses, on the manifests of the charts the tests and benchmarks
 * install (recorded with `helm template`: test/support/manifests/README.md).
 */
const MANIFESTS = join(import.meta.dirname, '../support/manifests');
const release = { name: 'web', namespace: 'shop' };

/** How the Event's images were read before: a YAML 1.2 parse of its own, unreadable documents skipped. */
function imagesReadApart(manifest: string) {
  return eventImages(parseAllDocuments(manifest).flatMap((document) => (document.errors.length ? [] : [document.toJS() as unknown])));
}

describe('the manifest after helm, read once', () => {
  it.each(['unicorn.yaml', 'podinfo.yaml'])('%s: the same inventory and the same images as the two parses', (file) => {
    const manifest = readFileSync(join(MANIFESTS, file), 'utf8');
    const documents = manifestDocuments(manifest);
    const inventory = JSON.stringify(withInventory({}, documents, release));
    const images = JSON.stringify(eventImages(readableValues(documents)));
    // Something to compare: every object listed, the workload's image found.
    expect(withInventory({}, documents, release).inventory?.entries.length).toBe(documents.filter((d) => 'value' in d && d.value).length);
    expect(eventImages(readableValues(documents))?.images.length).toBeGreaterThan(0);
    expect(inventory).toBe(JSON.stringify(withInventory({}, manifest, release)));
    expect(images).toBe(JSON.stringify(imagesReadApart(manifest)));
  });

  it('a document that cannot be read leaves the inventory as it was and the other documents still give their images', () => {
    const manifest = readFileSync(join(MANIFESTS, 'unicorn.yaml'), 'utf8') + '---\nkind: [\n';
    const documents = manifestDocuments(manifest);
    const before = { inventory: { entries: [{ id: 'shop_old_apps_Deployment', v: 'v1' }] } };
    expect(withInventory(before, documents, release)).toBe(before);
    expect(withInventory(before, manifest, release)).toBe(before);
    expect(JSON.stringify(eventImages(readableValues(documents)))).toBe(JSON.stringify(imagesReadApart(manifest)));
  });
});
