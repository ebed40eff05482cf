// Who holds a heap snapshot's memory: `node bench/tools/heap-owners.mjs A.heapsnapshot [B.heapsnapshot N]`.
// Prints the reachable size, the biggest owners by retained size (dominator tree) with the path
// that owns them; given a second snapshot and the difference in releases N, the bytes per
// release of each owner between the two. Snapshots: `--node-args=--heapsnapshot-signal=SIGUSR2`.
import { readFileSync } from 'node:fs';

const kib = (x) => (x / 1024).toFixed(0).padStart(8);

function analyse(file) {
  const snap = JSON.parse(readFileSync(file, 'utf8'));
  const m = snap.snapshot.meta;
  const NF = m.node_fields.length;
  const EF = m.edge_fields.length;
  const nodeTypes = m.node_types[0];
  const edgeTypes = m.edge_types[0];
  const { nodes, edges, strings } = snap;
  const N = nodes.length / NF;
  const first = new Uint32Array(N + 1);
  for (let i = 0, e = 0; i < N; i++) {
    first[i] = e;
    e += nodes[i * NF + 4] * EF;
    first[i + 1] = e;
  }
  const skip = new Set([edgeTypes.indexOf('weak'), edgeTypes.indexOf('shortcut')]);
  const label = (i) => `${nodeTypes[nodes[i * NF]]}:${strings[nodes[i * NF + 1]].slice(0, 40)}`;
  // Depth-first post-order from the root, then Cooper-Harvey-Kennedy dominators.
  const order = new Int32Array(N).fill(-1);
  const post = [];
  const cursor = new Uint32Array(N);
  const visited = new Uint8Array(N);
  const stack = [0];
  visited[0] = 1;
  cursor[0] = first[0];
  while (stack.length) {
    const v = stack[stack.length - 1];
    let pushed = false;
    while (cursor[v] < first[v + 1]) {
      const e = cursor[v];
      cursor[v] += EF;
      if (skip.has(edges[e])) continue;
      const w = edges[e + 2] / NF;
      if (visited[w]) continue;
      visited[w] = 1;
      cursor[w] = first[w];
      stack.push(w);
      pushed = true;
      break;
    }
    if (!pushed) {
      stack.pop();
      order[v] = post.length;
      post.push(v);
    }
  }
  const predStart = new Uint32Array(N + 1);
  const forEachEdge = (fn) => {
    for (let v = 0; v < N; v++) if (order[v] >= 0) for (let e = first[v]; e < first[v + 1]; e += EF) if (!skip.has(edges[e])) fn(v, edges[e + 2] / NF);
  };
  forEachEdge((_, w) => predStart[w + 1]++);
  for (let v = 0; v < N; v++) predStart[v + 1] += predStart[v];
  const preds = new Uint32Array(predStart[N]);
  const fill = predStart.slice(0, N);
  forEachEdge((v, w) => (preds[fill[w]++] = v));
  const idom = new Int32Array(N).fill(-1);
  idom[0] = 0;
  const intersect = (a, b) => {
    while (a !== b) {
      while (order[a] < order[b]) a = idom[a];
      while (order[b] < order[a]) b = idom[b];
    }
    return a;
  };
  for (let changed = true; changed;) {
    changed = false;
    for (let k = post.length - 2; k >= 0; k--) {
      const v = post[k];
      let d = -1;
      for (let p = predStart[v]; p < predStart[v + 1]; p++) if (idom[preds[p]] !== -1) d = d === -1 ? preds[p] : intersect(preds[p], d);
      if (d !== -1 && idom[v] !== d) {
        idom[v] = d;
        changed = true;
      }
    }
  }
  const retained = new Float64Array(N);
  for (const v of post) {
    retained[v] += nodes[v * NF + 3];
    if (v !== 0) retained[idom[v]] += retained[v];
  }
  const edgeName = (u, v) => {
    for (let e = first[u]; e < first[u + 1]; e += EF)
      if (edges[e + 2] / NF === v) return /element|hidden/.test(edgeTypes[edges[e]]) ? `[${edges[e + 1]}]` : strings[edges[e + 1]];
    return '?';
  };
  // An owner: a class instance (not a plain Object/Array) or a Map/Set, named by the field that holds it.
  const owners = new Map();
  for (let v = 1; v < N; v++) {
    if (order[v] < 0 || retained[v] < 4096) continue;
    const l = label(v);
    if (!/^object:/.test(l) || /^object:(Object|Array|system .*)$/.test(l)) continue;
    const name = /^object:(Map|Set)$/.test(l)
      ? `${label(idom[v]).replace('object:', '')}.${edgeName(idom[v], v)} (${l.replace('object:', '')})`
      : l.replace('object:', '');
    owners.set(name, (owners.get(name) ?? 0) + retained[v]);
    // Instances of one class apart too (the HelmRelease informer's ListWatch and the record watch's).
    if (!/^object:(Map|Set)$/.test(l)) owners.set(`${name} of ${kib(retained[v]).trim()} KiB`, retained[v]);
  }
  return { file, reachable: retained[0], owners };
}

const [a, b, n] = process.argv.slice(2);

const A = analyse(a);
const B = b ? analyse(b) : undefined;
console.log(
  `reachable: ${kib(A.reachable)} KiB${B ? ` → ${kib(B.reachable)} KiB, ${((B.reachable - A.reachable) / Number(n)).toFixed(0)} B per release` : ''}`,
);
const rows = [...(B ?? A).owners].sort((x, y) => y[1] - x[1]).slice(0, 30);
for (const [name, size] of rows) {
  const per = B ? `${((size - (A.owners.get(name) ?? 0)) / Number(n)).toFixed(0).padStart(6)} B/release` : '';
  console.log(`${kib(size)} KiB ${per}  ${name}`);
}
