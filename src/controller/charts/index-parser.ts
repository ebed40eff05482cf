import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { ChartNotFoundError } from './repository-errors.js';

/** Chart name → the version strings the index lists for it: all a version pick needs. */
export type ChartVersions = Map<string, string[]>;

const yamlPath = createRequire(import.meta.url).resolve('yaml');

/**
 * Runs in a worker thread, so parsing a multi-megabyte index never stalls the event loop the
 * other releases' reconciles share; the worker's heap is capped, so an index that parses into
 * something huge (aliases) dies there, not in the controller. Plain JS: a worker cannot load
 * TypeScript. Only the versions leave the worker.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { parse } = require(workerData.yamlPath);
function read() {
  const text = Buffer.from(workerData.body).toString('utf8');
  try {
    return text.trimStart().startsWith('{') ? JSON.parse(text) : parse(text, { maxAliasCount: 100 });
  } catch {
    return undefined;
  }
}
const index = read();
if (index === undefined) parentPort.postMessage({ invalid: true });
const entries = index && typeof index === 'object' ? index.entries : undefined;
const out = [];
if (entries && typeof entries === 'object') {
  for (const [name, list] of Object.entries(entries)) {
    if (!Array.isArray(list)) continue;
    const versions = [];
    for (const entry of list) {
      const v = entry && typeof entry === 'object' ? entry.version : undefined;
      if (typeof v === 'string' || typeof v === 'number') versions.push(String(v));
    }
    out.push([name, versions]);
  }
}
if (index !== undefined) parentPort.postMessage({ entries: out });
`;

export interface ParseLimits {
  /** Heap of the parsing worker, in MiB. */
  maxHeapMb: number;
}

let queue: Promise<unknown> = Promise.resolve();

/**
 * Parses an index off the event loop, one at a time: parses are rare (cache, one fetch per URL)
 * and running them in series bounds the memory they take together.
 */
export function parseIndex(body: Buffer, repository: string, limits: ParseLimits = { maxHeapMb: 256 }): Promise<ChartVersions> {
  const run = queue.then(() => parseInWorker(body, repository, limits));
  queue = run.catch(() => undefined);
  return run;
}

function parseInWorker(body: Buffer, repository: string, limits: ParseLimits): Promise<ChartVersions> {
  return new Promise((resolve, reject) => {
    const copy = new Uint8Array(body).buffer;
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { yamlPath, body: copy },
      transferList: [copy],
      resourceLimits: { maxOldGenerationSizeMb: limits.maxHeapMb, maxYoungGenerationSizeMb: 32 },
    });
    let answered = false;
    worker.once('message', (message: { invalid?: true; entries?: Array<[string, string[]]> }) => {
      answered = true;
      if (message.invalid) reject(new ChartNotFoundError(`the repository index of ${repository} is not valid YAML`));
      else resolve(new Map(message.entries));
    });
    worker.once('error', () => {
      answered = true;
      reject(new ChartNotFoundError(`the repository index of ${repository} could not be parsed within ${limits.maxHeapMb} MiB`));
    });
    worker.once('exit', () => {
      if (!answered) reject(new ChartNotFoundError(`the repository index of ${repository} could not be parsed`));
    });
  });
}
