// The CPU of reading a release's manifest after helm, in this process, without a cluster. Issue
// 36: two parses of their own (status.inventory through manifestObjects, the Event's images through
// a YAML 1.2 parse) became one (manifestDocuments), whose documents feed both. Issue 50: the one full
// parse became an outline (outlineDocuments: a line scanner for the fields read, the full parse
// only for a document it is not sure of). On the manifests recorded from the unicorn and podinfo
// charts (test/support/manifests/). The ways run in alternating rounds (ABCABC...), so the machine's
// load falls on all alike; the figures are their ratios in one run, not their absolute time.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { manifestDocuments, readableValues } from '../src/controller/drift/manifest-objects.js';
import { outlineDocuments } from '../src/controller/drift/manifest-outline.js';
import { withInventory } from '../src/controller/reconcile/decide/inventory.js';
import { eventImages } from '../src/core/release/deployed-images.js';
import type { Benchmark } from './lib/benchmark.js';
import { say } from './lib/say.js';

const MANIFESTS = join(import.meta.dirname, '../test/support/manifests');
const release = { name: 'web', namespace: 'bench' };

/** Before: the inventory and the images, each from a parse of its own. */
function readTwice(manifest: string): unknown {
  const inventory = withInventory({}, manifest, release);
  const images = eventImages(parseAllDocuments(manifest).flatMap((document) => (document.errors.length ? [] : [document.toJS() as unknown])));
  return [inventory, images];
}

/** Issue 36: one full read, both from it. */
function readOnce(manifest: string): unknown {
  const documents = manifestDocuments(manifest);
  return [withInventory({}, documents, release), eventImages(readableValues(documents))];
}

/** Now (issue 50): one outline, both from it (release-attempt.ts, rollback.ts). */
function readOutline(manifest: string): unknown {
  const documents = outlineDocuments(manifest);
  return [withInventory({}, documents, release), eventImages(readableValues(documents))];
}

/** CPU milliseconds (user + system) of `times` reads. */
function cpuMs(read: (manifest: string) => unknown, manifest: string, times: number): number {
  const start = process.cpuUsage();
  for (let i = 0; i < times; i++) read(manifest);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

export const benchmark: Benchmark = {
  usage: '[--rounds 10] [--reads 200]',
  options: { rounds: { type: 'string' }, reads: { type: 'string' } },
  maxSeconds: 600,
  async run(args) {
    const rounds = args.int('rounds', 10);
    const reads = args.int('reads', 200);
    const rows: Array<Array<string | number>> = [];
    for (const chart of ['unicorn', 'podinfo']) {
      const manifest = readFileSync(join(MANIFESTS, `${chart}.yaml`), 'utf8');
      const expected = JSON.stringify(readTwice(manifest));
      if (JSON.stringify(readOnce(manifest)) !== expected) throw new Error(`${chart}: one read and two disagree`);
      if (JSON.stringify(readOutline(manifest)) !== expected) throw new Error(`${chart}: the outline and the full read disagree`);
      // Warm up all (JIT), then alternate.
      for (const read of [readTwice, readOnce, readOutline]) cpuMs(read, manifest, reads);
      let twice = 0;
      let once = 0;
      let outline = 0;
      for (let round = 0; round < rounds; round++) {
        twice += cpuMs(readTwice, manifest, reads);
        once += cpuMs(readOnce, manifest, reads);
        outline += cpuMs(readOutline, manifest, reads);
      }
      const µs = (ms: number) => Number(((ms / (rounds * reads)) * 1000).toFixed(0));
      say(`manifest-read: ${chart}: ${µs(twice)} µs twice, ${µs(once)} µs once, ${µs(outline)} µs outlined`);
      rows.push([chart, manifest.length, µs(twice), µs(once), µs(outline), Number((once / twice).toFixed(2)), Number((outline / once).toFixed(3))]);
    }
    return {
      tables: [
        {
          title: `CPU of reading the manifest after helm: two parses (issue 36's before), one full parse (issue 50's before), the outline (now); ${rounds} alternating rounds of ${reads} reads`,
          columns: [
            'chart',
            'manifest bytes',
            'two parses, µs CPU per release',
            'one parse, µs CPU per release',
            'outline, µs CPU per release',
            'one / two',
            'outline / one',
          ],
          rows,
          notes: [
            'All ways give byte-identical inventories and images (checked before timing; test/unit/manifest-read-once.test.ts, test/unit/manifest-outline.test.ts).',
          ],
        },
      ],
    };
  },
};
