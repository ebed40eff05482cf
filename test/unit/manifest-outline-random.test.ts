import { describe, expect, it } from 'vitest';
import { outlineDocument, outlineDocuments, UNSURE } from '../../src/controller/drift/manifest-outline.js';
import { fullRead, postHelmRead } from './support/post-helm-read.js';
import { random, randomManifest } from './support/random-manifest.js';

/**
 * Property: for random small manifests in helm's block style, with the spellings YAML 1.1 reads
 * differently, broken indentation, comments, anchors, flow values and block scalars mixed in, the
 * outline path gives exactly what the full parse gives. Seeded, so a failure can be replayed.
 */
describe('the manifest outline on random manifests', () => {
  const counts = { outlined: 0, refused: 0, shaped: 0, withImages: 0 };

  // About a second a chunk on a quiet machine; many more under a loaded one's full unit run (the full parse is most of it).
  const CHUNK = { seeds: 100, timeoutMs: 60_000 };
  const firsts = Array.from({ length: 8 }, (_, i) => 1 + i * CHUNK.seeds);

  it.each(firsts)('seeds %i to +99: exactly the full parse’s inventory, images and failed documents', { timeout: CHUNK.timeoutMs }, (first) => {
    for (let seed = first; seed < first + CHUNK.seeds; seed++) {
      const text = randomManifest(random(seed));
      const full = fullRead(text);
      expect({ seed, text, result: postHelmRead(outlineDocuments(text)) }).toEqual({ seed, text, result: full });
      const documents = text.split(/^---[^\n]*$/m).filter((document) => document.trim());
      const sure = documents.filter((document) => outlineDocument(document) !== UNSURE).length;
      counts.outlined += sure;
      counts.refused += documents.length - sure;
      if (sure < documents.length) continue;
      // Results the scanner gave alone, with no full parse.
      if (full.status.inventory?.entries.some((entry) => entry.id !== 'shop_old_apps_Deployment')) counts.shaped++;
      if (full.images) counts.withImages++;
    }
  });

  it('exercised both ways, with inventories and images the scanner read alone (or the property says little)', () => {
    expect(counts.outlined).toBeGreaterThan(300);
    expect(counts.refused).toBeGreaterThan(600);
    expect(counts.shaped).toBeGreaterThan(40);
    expect(counts.withImages).toBeGreaterThan(10);
  });
});
