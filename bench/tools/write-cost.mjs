// What one write costs the kube-apiserver, by kind: HelmRelease create, finalizer patch and two
// status patches (what a controller does per install) against ConfigMap writes and an Event.
// `eval "$(npx helmcrew dev env)"; node bench/tools/write-cost.mjs [N] [--strip cel|schema]`
// --strip replaces the HelmRelease CRD for the run with one without its CEL rules (cel) or without
// any validation but the types (schema), and puts the original back afterwards. The API server's
// CPU is read from /proc (its utime + stime), so run it on a quiet machine, nothing else talking to it.
import { Buffer } from 'node:buffer';
import https from 'node:https';
import { setTimeout } from 'node:timers';
import { readFileSync, readdirSync } from 'node:fs';
import YAML from 'yaml';

const args = process.argv.slice(2);
const N = Number(args.find((a) => /^\d+$/.test(a)) ?? 300);
const strip = args.includes('--strip') ? args[args.indexOf('--strip') + 1] : undefined;
if (strip !== undefined && strip !== 'cel' && strip !== 'schema') throw new Error('--strip takes cel or schema');
if (!process.env.KUBECONFIG) throw new Error('KUBECONFIG is not set: eval "$(npx helmcrew dev env)" first');

const kc = YAML.parse(readFileSync(process.env.KUBECONFIG, 'utf8'));
const cluster = kc.clusters[0].cluster;
const user = kc.users[0].user;
const server = new URL(cluster.server);
const agent = new https.Agent({
  keepAlive: true,
  maxSockets: 4,
  ca: Buffer.from(cluster['certificate-authority-data'], 'base64'),
  cert: Buffer.from(user['client-certificate-data'], 'base64'),
  key: Buffer.from(user['client-key-data'], 'base64'),
});

function request(method, path, body, contentType = 'application/json') {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const headers = { 'content-type': contentType, accept: 'application/json', ...(data ? { 'content-length': Buffer.byteLength(data) } : {}) };
    const req = https.request({ host: server.hostname, port: server.port, method, path, agent, headers }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () =>
        res.statusCode >= 300 ? reject(new Error(`${method} ${path}: ${res.statusCode} ${text.slice(0, 300)}`)) : resolve(JSON.parse(text || '{}')),
      );
    });
    req.on('error', reject);
    if (data) req.write(data);
    req.end();
  });
}

/** The kube-apiserver serving this kubeconfig's port. */
function apiServerPid() {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (cmdline[0].endsWith('kube-apiserver') && cmdline.includes(`--secure-port=${server.port}`)) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  throw new Error(`no kube-apiserver with --secure-port=${server.port} on this machine`);
}

const pid = apiServerPid();
const cpuSeconds = () => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};

async function phase(name, write) {
  const before = cpuSeconds();
  let next = 0;
  await Promise.all(
    [0, 1, 2, 3].map(async () => {
      while (next < N) await write(next++);
    }),
  );
  const spent = cpuSeconds() - before;
  console.log(`| ${name} | ${((spent * 1000) / N).toFixed(2)} |`);
}

function stripped(crd, keys) {
  const walk = (o) => {
    if (Array.isArray(o)) return o.map(walk);
    if (o === null || typeof o !== 'object') return o;
    return Object.fromEntries(
      Object.entries(o)
        .filter(([k]) => !keys.has(k))
        .map(([k, v]) => [k, walk(v)]),
    );
  };
  return { ...crd, spec: { ...crd.spec, versions: walk(crd.spec.versions) } };
}

const crdPath = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/helmreleases.helmcrew.dev';
const original = await request('GET', crdPath);
const version = original.spec.versions.find((v) => v.served && v.storage).name;
if (strip) {
  const keys = new Set(
    strip === 'cel'
      ? ['x-kubernetes-validations']
      : ['x-kubernetes-validations', 'pattern', 'maxLength', 'minLength', 'maxItems', 'enum', 'format', 'minimum', 'maximum'],
  );
  await request('PUT', crdPath, stripped(original, keys));
  await new Promise((r) => setTimeout(r, 3000)); // the API server reloads the CRD's handler
}

const ns = `write-cost-${process.pid}`;
const now = new Date().toISOString();
const releases = `/apis/helmcrew.dev/${version}/namespaces/${ns}/helmreleases`;
const configMaps = `/api/v1/namespaces/${ns}/configmaps`;
const release = (i) => ({
  apiVersion: `helmcrew.dev/${version}`,
  kind: 'HelmRelease',
  metadata: { name: `r${i}`, namespace: ns },
  spec: { chart: { repository: 'http://127.0.0.1:1', name: 'unicorn', version: '1.0.0' }, interval: '1m', values: { replicaCount: 0 } },
});
const condition = (type, done, i) => ({
  type,
  status: done ? 'True' : 'Unknown',
  reason: done ? 'InstallSucceeded' : 'Progressing',
  message: done ? `Installed unicorn@1.0.0 as ${ns}/r${i} revision 1` : 'Installing unicorn@1.0.0',
  lastTransitionTime: now,
  observedGeneration: 1,
});
const status = (i, done) => ({
  status: { observedGeneration: 1, lastAttemptedRevision: '1.0.0', conditions: [condition('Ready', done, i), condition('Released', done, i)] },
});
const merge = 'application/merge-patch+json';

try {
  await request('POST', '/api/v1/namespaces', { metadata: { name: ns } });
  console.log(
    `kube-apiserver CPU per write, ${N} writes each, 4 at a time, CRD ${strip ? `without ${strip === 'cel' ? 'its CEL rules' : 'validation'}` : 'as shipped'}\n`,
  );
  console.log('| write | ms of CPU |\n|---|---|');
  await phase('HelmRelease create', (i) => request('POST', releases, release(i)));
  await phase('HelmRelease finalizer patch', (i) => request('PATCH', `${releases}/r${i}`, { metadata: { finalizers: ['helmcrew.dev/finalizer'] } }, merge));
  await phase('HelmRelease status patch (started)', (i) => request('PATCH', `${releases}/r${i}/status`, status(i, false), merge));
  await phase('HelmRelease status patch (succeeded)', (i) => request('PATCH', `${releases}/r${i}/status`, status(i, true), merge));
  await phase('ConfigMap create', (i) => request('POST', configMaps, { metadata: { name: `c${i}` }, data: { a: 'x'.repeat(200) } }));
  await phase('ConfigMap annotation patch', (i) => request('PATCH', `${configMaps}/c${i}`, { metadata: { annotations: { a: 'b' } } }, merge));
  await phase('Event create', (i) =>
    request('POST', `/api/v1/namespaces/${ns}/events`, {
      metadata: { generateName: `r${i}.` },
      involvedObject: { kind: 'HelmRelease', name: `r${i}`, namespace: ns, apiVersion: `helmcrew.dev/${version}` },
      reason: 'InstallSucceeded',
      message: 'Installed',
      type: 'Normal',
      source: { component: 'helmcrew' },
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
    }),
  );
} finally {
  // The finalizers would keep the namespace from going.
  await Promise.all([...Array(N).keys()].map((i) => request('PATCH', `${releases}/r${i}`, { metadata: { finalizers: null } }, merge).catch(() => undefined)));
  await request('DELETE', `/api/v1/namespaces/${ns}`).catch(() => undefined);
  if (strip) {
    const current = await request('GET', crdPath);
    await request('PUT', crdPath, { ...original, metadata: { ...original.metadata, resourceVersion: current.metadata.resourceVersion } });
  }
  agent.destroy();
}
