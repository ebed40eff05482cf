#!/usr/bin/env node
// Where a V8 CPU profile's time went (a `--cpu-prof` file): the top functions by self time and by
// inclusive time (a function and what it calls, each sample counted once per function), and self
// time by package, as shares of the profile's busy (non-idle) time. Optionally only the samples of a
// time window, so the adoption and the rest of a burst run can be read apart.
//
//   node bench/tools/cpu-profile.mjs FILE.cpuprofile [--top 30] [--from S] [--to S]
import { readFileSync } from 'node:fs';

const [file, ...rest] = process.argv.slice(2);
if (!file) {
  console.error('usage: cpu-profile.mjs FILE.cpuprofile [--top N] [--from S] [--to S]');
  process.exit(2);
}
const option = (name, fallback) => {
  const i = rest.indexOf(`--${name}`);
  return i >= 0 ? Number(rest[i + 1]) : fallback;
};
const top = option('top', 30);
const fromS = option('from', 0);
const toS = option('to', Infinity);

const profile = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const key = (n) => {
  const f = n.callFrame;
  const url = f.url.replace(/^file:\/\//, '').replace(/.*node_modules\//, 'npm:');
  return `${f.functionName || '(anonymous)'} ${url.split('/').slice(-2).join('/')}:${f.lineNumber + 1}`;
};
const packageOf = (n) => {
  const url = n.callFrame.url;
  if (!url) return n.callFrame.functionName.startsWith('(') ? n.callFrame.functionName : '(native)';
  const m = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (m) return `npm:${m[1]}`;
  if (url.startsWith('node:')) return url.split('/')[0];
  const src = url.match(/\/(dist|src)\/(.*)\/[^/]+$/);
  return src ? `helmcrew:${src[2].split('/').slice(0, 2).join('/')}` : url;
};

const self = new Map();
const inclusive = new Map();
const packages = new Map();
let busy = 0;
let idle = 0;
let t = profile.startTime;
for (let i = 0; i < profile.samples.length; i++) {
  t += profile.timeDeltas[i];
  const seconds = (t - profile.startTime) / 1e6;
  if (seconds < fromS || seconds > toS) continue;
  const delta = profile.timeDeltas[i + 1] ?? profile.timeDeltas[i];
  const node = byId.get(profile.samples[i]);
  const name = node.callFrame.functionName;
  if (name === '(idle)' || name === '(program)') {
    idle += delta;
    continue;
  }
  busy += delta;
  self.set(key(node), (self.get(key(node)) ?? 0) + delta);
  packages.set(packageOf(node), (packages.get(packageOf(node)) ?? 0) + delta);
  const seen = new Set();
  for (let id = node.id; id !== undefined; id = parent.get(id)) {
    const k = key(byId.get(id));
    if (seen.has(k)) continue;
    seen.add(k);
    inclusive.set(k, (inclusive.get(k) ?? 0) + delta);
  }
}

const print = (title, map) => {
  console.log(`\n${title}`);
  for (const [k, v] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${((100 * v) / busy).toFixed(1).padStart(5)} %  ${(v / 1e6).toFixed(2).padStart(7)} s  ${k}`);
  }
};
console.log(`busy ${(busy / 1e6).toFixed(2)} s, idle ${(idle / 1e6).toFixed(2)} s (window ${fromS}–${toS} s)`);
print('self time by package', packages);
print('self time by function', self);
print('inclusive time by function', inclusive);
