// The CPU of reading a release's manifest after helm (issue 36), in this process, without a
// cluster: before, two parses of their own (status.inventory through manifestObjects, the Event's
// images through a YAML 1.2 parse); now one (manifestDocuments), whose documents feed both. On the
// manifests recorded from the unicorn and podinfo charts (test/support/manifests/). The two ways
// run in alternating rounds (ABAB...), so the machine's load falls on both alike; the figure is
// their ratio in one run, not their absolute time.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { manifestDocuments, readableValues } from '../src/controller/drift/manifest-objects.js';
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

/** Now: one read, both from it (release-attempt.ts, rollback.ts). */
function readOnce(manifest: string): unknown {
  const documents = manifestDocuments(manifest);
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
      if (JSON.stringify(readOnce(manifest)) !== JSON.stringify(readTwice(manifest))) throw new Error(`${chart}: the two ways disagree`);
      // Warm up both (JIT), then alternate.
      cpuMs(readTwice, manifest, reads);
      cpuMs(readOnce, manifest, reads);
      let twice = 0;
      let once = 0;
      for (let round = 0; round < rounds; round++) {
        twice += cpuMs(readTwice, manifest, reads);
        once += cpuMs(readOnce, manifest, reads);
      }
      const n = rounds * reads;
      say(`manifest-read: ${chart}: ${((twice / n) * 1000).toFixed(0)} µs twice, ${((once / n) * 1000).toFixed(0)} µs once`);
      rows.push([chart, manifest.length, Number(((twice / n) * 1000).toFixed(0)), Number(((once / n) * 1000).toFixed(0)), Number((once / twice).toFixed(2))]);
    }
    return {
      tables: [
        {
          title: `CPU of reading the manifest after helm: two parses (before) against one (now), ${rounds} alternating rounds of ${reads} reads`,
          columns: ['chart', 'manifest bytes', 'two parses, µs CPU per release', 'one parse, µs CPU per release', 'one / two'],
          rows,
          notes: ['Both ways give byte-identical inventories and images (checked before timing; test/unit/manifest-read-once.test.ts).'],
        },
      ],
    };
  },
};
