// RSS of a node process after importing one module and collecting garbage: what a process pays
// for its module graph before doing anything. Plain node (tsx would add its own weight):
//   npm run bench -- import-rss dist/cli/commands/controller.js   (or: node --expose-gc bench/lib/import-rss.mjs <module>)
// Prints one JSON line: RSS and heap after three gc passes, and VmHWM.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';

const target = process.argv[2];
if (!target || typeof globalThis.gc !== 'function') {
  console.error('usage: node --expose-gc bench/lib/import-rss.mjs <module path>');
  process.exit(2);
}
await import(pathToFileURL(resolve(target)).href);
for (let i = 0; i < 3; i++) {
  globalThis.gc();
  await sleep(50);
}
const mib = (bytes) => Math.round((bytes / 2 ** 20) * 10) / 10;
const { rss, heapUsed } = process.memoryUsage();
const hwmKiB = Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? NaN);
console.log(JSON.stringify({ module: target, rssMiB: mib(rss), heapUsedMiB: mib(heapUsed), vmHwmMiB: mib(hwmKiB * 1024) }));
