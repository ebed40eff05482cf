// Fake nodes: standalone kwok plays the kubelet for nodes annotated kwok.x-k8s.io/node=fake, so
// the real scheduler places pods on them and they turn Running/Ready without any container.
import { writeFile } from 'node:fs/promises';
import { CoreV1Api, KubeConfig, type V1Node } from '@kubernetes/client-node';
import type { Logger } from '../core/log.js';
import type { CertPaths } from './certs.js';
import { freePort } from './free-port.js';
import { kwokStagesYaml } from './kwok-stages.js';
import { statePaths, type ToolchainPaths } from './paths.js';
import { startDetached, type StartedProcess } from './processes.js';
import { httpGet, waitFor } from './wait.js';

export const FAKE_NODE_COUNT = 2;
export const FAKE_NODE_ANNOTATION = 'kwok.x-k8s.io/node';
/** Pod IPs handed out by kwok; apart from the service range 10.0.0.0/16. */
const POD_CIDR = '10.244.0.1/16';
/** Lease duration kwok renews for each node, as a kubelet's default. */
const NODE_LEASE_SECONDS = 40;

export interface KwokOptions {
  stateDir: string;
  bins: ToolchainPaths;
  certs: CertPaths;
  kubeconfig: string;
  log: Logger;
  onStarted: (proc: StartedProcess) => void;
}

export async function startKwok(opts: KwokOptions): Promise<StartedProcess> {
  const { kwokConfig } = statePaths(opts.stateDir);
  await writeFile(kwokConfig, await kwokStagesYaml(opts.bins.kwok));
  const port = await freePort();
  opts.log.info({ port }, 'starting kwok');
  const proc = await startDetached({
    name: 'kwok',
    command: opts.bins.kwok,
    stateDir: opts.stateDir,
    args: [
      `--kubeconfig=${opts.kubeconfig}`,
      `--config=${kwokConfig}`,
      '--manage-all-nodes=false',
      `--manage-nodes-with-annotation-selector=${FAKE_NODE_ANNOTATION}=fake`,
      // kwok answers the apiserver's kubelet calls (logs, exec) here: the fake nodes' address.
      `--server-address=127.0.0.1:${port}`,
      '--node-ip=127.0.0.1',
      `--node-port=${port}`,
      `--tls-cert-file=${opts.certs.serverCert}`,
      `--tls-private-key-file=${opts.certs.serverKey}`,
      `--cidr=${POD_CIDR}`,
      `--node-lease-duration-seconds=${NODE_LEASE_SECONDS}`,
    ],
  });
  opts.onStarted(proc);
  await waitFor(
    async () => {
      const r = await httpGet(`https://127.0.0.1:${port}/healthz`, { insecure: true });
      return r.status === 200 || `HTTP ${r.status}`;
    },
    { label: 'kwok /healthz', log: opts.log, timeoutMs: 30_000, watch: [proc] },
  );
  return proc;
}

function fakeNode(name: string): V1Node {
  const resources = { cpu: '32', memory: '256Gi', pods: '110' };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      annotations: { [FAKE_NODE_ANNOTATION]: 'fake', 'node.alpha.kubernetes.io/ttl': '0' },
      labels: {
        type: 'kwok',
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/role': 'agent',
        'node-role.kubernetes.io/agent': '',
      },
    },
    // No taint: in this environment every pod is meant to land on a fake node.
    spec: {},
    // Nodes may carry status on create; node-initialize keeps these and adds the conditions.
    status: { allocatable: resources, capacity: resources },
  };
}

function isReady(node: V1Node): boolean {
  return node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

/** Creates the fake nodes (if missing) and waits until kwok has made them Ready. */
export async function createFakeNodes(opts: { kubeconfig: string; log: Logger; watch: StartedProcess[]; count?: number }): Promise<string[]> {
  const kc = new KubeConfig();
  kc.loadFromFile(opts.kubeconfig);
  const core = kc.makeApiClient(CoreV1Api);
  const names = Array.from({ length: opts.count ?? FAKE_NODE_COUNT }, (_, i) => `kwok-node-${i}`);
  for (const name of names) {
    try {
      await core.createNode({ body: fakeNode(name) });
    } catch (err) {
      if ((err as { code?: number }).code !== 409) throw err; // 409: already there
    }
  }
  await waitFor(
    async () => {
      const list = await core.listNode({ labelSelector: 'type=kwok' });
      const ready = list.items.filter((n) => names.includes(n.metadata?.name ?? '') && isReady(n));
      return ready.length === names.length || `${ready.length}/${names.length} fake nodes Ready`;
    },
    { label: 'fake nodes Ready', log: opts.log, timeoutMs: 60_000, watch: opts.watch, intervalMs: 250 },
  );
  opts.log.info({ nodes: names }, 'fake nodes Ready');
  return names;
}
