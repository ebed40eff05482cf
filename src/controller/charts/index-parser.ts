import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { ChartNotFoundError } from './repository-errors.js';

/**
 * Chart name → the version strings the index lists for it, and the hosts of its absolute
 * download URLs (helm fetches those, so the host policy must see them): all a pick needs. When
 * asked (a private repository, whose archives the controller downloads itself), also the first
 * download URL of each version (as written, maybe relative; same order as `versions`).
 */
export type ChartVersions = Map<string, ChartEntry>;
export interface ChartEntry {
  versions: string[];
  urls?: string[];
  hosts: string[];
}

// js-yaml, not the `yaml` package used elsewhere: it builds plain objects without a document
// model, so a 20 MB index parses in ~1.3 s within ~200 MiB where `yaml` needs over 256 MiB and
// ~9 s (measured: docs/field-notes.md). Only versions and URL hosts are read from the result.
const jsYamlPath = createRequire(import.meta.url).resolve('js-yaml');

/**
 * Runs in a worker thread, so parsing a multi-megabyte index never stalls the event loop the
 * other releases' reconciles share; the worker's heap is capped, so an index that parses into
 * something huge (aliases) dies there, not in the controller. Plain JS: a worker cannot load
 * TypeScript. Only the versions leave the worker.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { load } = require(workerData.jsYamlPath);
function read() {
  const text = Buffer.from(workerData.body).toString('utf8');
  try {
    return text.trimStart().startsWith('{') ? JSON.parse(text) : load(text, { json: true });
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
    const urls = [];
    const hosts = new Set();
    for (const entry of list) {
      if (!entry || typeof entry !== 'object') continue;
      const v = entry.version;
      const list = Array.isArray(entry.urls) ? entry.urls : [];
      if (typeof v === 'string' || typeof v === 'number') {
        versions.push(String(v));
        if (workerData.keepUrls) urls.push(typeof list[0] === 'string' ? list[0] : '');
      }
      for (const url of list) {
        if (typeof url !== 'string' || !/^[a-z][a-z0-9+.-]*:/i.test(url)) continue;
        try {
          hosts.add(new URL(url).hostname.replace(/^\\[|\\]$/g, ''));
        } catch {}
      }
    }
    out.push([name, workerData.keepUrls ? { versions, urls, hosts: [...hosts] } : { versions, hosts: [...hosts] }]);
  }
}
if (index !== undefined) parentPort.postMessage({ entries: out });
`;

export interface ParseLimits {
  /** Heap of the parsing worker, in MiB. */
  maxHeapMb: number;
  /** A parse still running after this long is stopped (aliases can make the walk long). */
  maxMs: number;
  /** Keep each version's download URL too. */
  keepUrls?: boolean;
}

export const DEFAULT_PARSE_LIMITS: ParseLimits = { maxHeapMb: 384, maxMs: 30_000 };

let queue: Promise<unknown> = Promise.resolve();

/**
 * Parses an index off the event loop, one at a time: parses are rare (cache, one fetch per URL)
 * and running them in series bounds the memory they take together.
 */
export function parseIndex(body: Buffer, repository: string, limits: ParseLimits = DEFAULT_PARSE_LIMITS): Promise<ChartVersions> {
  const run = queue.then(() => parseInWorker(body, repository, limits));
  queue = run.catch(() => undefined);
  return run;
}

function parseInWorker(body: Buffer, repository: string, limits: ParseLimits): Promise<ChartVersions> {
  return new Promise((resolve, reject) => {
    const copy = new Uint8Array(body).buffer;
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { jsYamlPath, body: copy, keepUrls: limits.keepUrls === true },
      transferList: [copy],
      resourceLimits: { maxOldGenerationSizeMb: limits.maxHeapMb, maxYoungGenerationSizeMb: 32 },
    });
    let answered = false;
    const deadline = setTimeout(() => {
      answered = true;
      void worker.terminate();
      reject(new ChartNotFoundError(`the repository index of ${repository} took longer than ${limits.maxMs / 1000}s to parse`));
    }, limits.maxMs);
    worker.once('exit', () => clearTimeout(deadline));
    worker.once('message', (message: { invalid?: true; entries?: Array<[string, ChartEntry]> }) => {
      if (answered) return;
      answered = true;
      if (message.invalid) reject(new ChartNotFoundError(`the repository index of ${repository} is not valid YAML`));
      else resolve(new Map(message.entries));
    });
    worker.once('error', () => {
      if (answered) return;
      answered = true;
      reject(new ChartNotFoundError(`the repository index of ${repository} could not be parsed within ${limits.maxHeapMb} MiB`));
    });
    worker.once('exit', () => {
      if (!answered) reject(new ChartNotFoundError(`the repository index of ${repository} could not be parsed`));
    });
  });
}
