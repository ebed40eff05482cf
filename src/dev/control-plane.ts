// A real Kubernetes control plane from locally built binaries: etcd, kube-apiserver,
// kube-controller-manager and kube-scheduler, all on 127.0.0.1 and free ports.
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { Logger } from '../core/log.js';
import type { CertPaths } from './certs.js';
import { freePorts } from './free-port.js';
import { statePaths, type ToolchainPaths } from './paths.js';
import { startDetached, type StartedProcess } from './processes.js';
import { httpGet, waitFor, type TlsMaterial } from './wait.js';

// /16, not /24: a benchmark of 1000 releases of a chart with a Service needs 1000 cluster IPs (a
// /24 ran out at 254). The apiserver cert's SAN 10.0.0.1 is still the range's first address.
export const SERVICE_CLUSTER_IP_RANGE = '10.0.0.0/16';

/**
 * Audit only LISTs and GETs of Secrets (Helm's release records are Secrets) and of HelmReleases,
 * at Metadata level: the URL with its label selector or name and the user, never a Secret's data.
 * Nothing else is written (no watch, no write), so the log costs the API server next to nothing
 * when nothing reads them. Tests count who read what (test/support/audit-log.ts).
 */
const AUDIT_POLICY = {
  apiVersion: 'audit.k8s.io/v1',
  kind: 'Policy',
  omitStages: ['RequestReceived'],
  rules: [
    { level: 'Metadata', verbs: ['list', 'get'], resources: [{ group: '', resources: ['secrets'] }] },
    { level: 'Metadata', verbs: ['list', 'get'], resources: [{ group: 'helmcrew.dev', resources: ['helmreleases'] }] },
    { level: 'None' },
  ],
};

export interface ControlPlaneOptions {
  stateDir: string;
  bins: ToolchainPaths;
  certs: CertPaths;
  log: Logger;
  /** Called as soon as each process runs, so the caller can stop it if a later step fails. */
  onStarted: (proc: StartedProcess) => void;
}

export interface ControlPlane {
  kubeconfig: string;
  apiserverUrl: string;
}

/** Admin kubeconfig with everything embedded, so it still works when copied elsewhere. */
async function writeKubeconfig(path: string, server: string, certs: CertPaths): Promise<void> {
  const b64 = async (file: string) => (await readFile(file)).toString('base64');
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'helmcrew-dev', cluster: { server, 'certificate-authority-data': await b64(certs.caCert) } }],
    users: [
      {
        name: 'helmcrew-admin',
        user: {
          'client-certificate-data': await b64(certs.adminCert),
          'client-key-data': await b64(certs.adminKey),
        },
      },
    ],
    contexts: [{ name: 'helmcrew-dev', context: { cluster: 'helmcrew-dev', user: 'helmcrew-admin', namespace: 'default' } }],
    'current-context': 'helmcrew-dev',
    preferences: {},
  };
  await writeFile(path, stringify(config), { mode: 0o600 });
}

async function adminTls(certs: CertPaths): Promise<TlsMaterial> {
  const [ca, cert, key] = await Promise.all([certs.caCert, certs.adminCert, certs.adminKey].map((f) => readFile(f)));
  return { ca, cert, key };
}

/** Starts the four processes and returns once the apiserver is ready and the others healthy. */
export async function startControlPlane(opts: ControlPlaneOptions): Promise<ControlPlane> {
  const { stateDir, bins, certs, log } = opts;
  const paths = statePaths(stateDir);
  const [etcdClient, etcdPeer, apiPort, cmPort, schedPort] = (await freePorts(5)) as [number, number, number, number, number];
  const start = async (name: string, command: string, args: string[]) => {
    const proc = await startDetached({ name, command, args, stateDir });
    opts.onStarted(proc);
    return proc;
  };

  // Fresh data on every start: a few seconds, and no stale nodes, leases or member URLs.
  await rm(paths.etcdData, { recursive: true, force: true });
  const etcdUrl = `http://127.0.0.1:${etcdClient}`;
  const peerUrl = `http://127.0.0.1:${etcdPeer}`;
  log.info({ url: etcdUrl }, 'starting etcd');
  const etcd = await start('etcd', bins.etcd, [
    '--name=helmcrew-dev',
    `--data-dir=${paths.etcdData}`,
    `--listen-client-urls=${etcdUrl}`,
    `--advertise-client-urls=${etcdUrl}`,
    `--listen-peer-urls=${peerUrl}`,
    `--initial-advertise-peer-urls=${peerUrl}`,
    `--initial-cluster=helmcrew-dev=${peerUrl}`,
    '--initial-cluster-state=new',
    '--unsafe-no-fsync', // throwaway dev data; fsync dominates start-up on slow disks
    '--log-level=warn',
  ]);
  await waitFor(
    async () => {
      const r = await httpGet(`${etcdUrl}/health`);
      return r.status === 200 || `HTTP ${r.status}: ${r.body.trim()}`;
    },
    { label: 'etcd /health', log, timeoutMs: 30_000, watch: [etcd] },
  );

  await writeFile(paths.auditPolicy, stringify(AUDIT_POLICY));
  const apiserverUrl = `https://127.0.0.1:${apiPort}`;
  log.info({ url: apiserverUrl }, 'starting kube-apiserver');
  const apiserver = await start('kube-apiserver', bins.kubeApiserver, [
    `--etcd-servers=${etcdUrl}`,
    '--bind-address=127.0.0.1',
    `--secure-port=${apiPort}`,
    // Advertised on loopback: without this the apiserver advertises the host's default-route
    // address (where it does not listen) and fails to start on a host without one. Endpoints may
    // not hold loopback addresses, so no reconciler: the `kubernetes` Service (10.0.0.1) exists
    // without endpoints, which nothing here needs (no pod really runs).
    '--advertise-address=127.0.0.1',
    '--endpoint-reconciler-type=none',
    `--tls-cert-file=${certs.serverCert}`,
    `--tls-private-key-file=${certs.serverKey}`,
    `--client-ca-file=${certs.caCert}`,
    `--cert-dir=${join(certs.dir, 'apiserver-generated')}`,
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    `--service-account-key-file=${certs.serviceAccountPub}`,
    `--service-account-signing-key-file=${certs.serviceAccountKey}`,
    `--service-cluster-ip-range=${SERVICE_CLUSTER_IP_RANGE}`,
    // RBAC only: real authorization (impersonation, service accounts); no kubelets for Node.
    '--authorization-mode=RBAC',
    '--allow-privileged=true',
    // Front-proxy (request-header) authentication, as kubeadm sets it up. Without it the
    // controller-manager and scheduler log errors and start seconds later, waiting for this CA.
    `--requestheader-client-ca-file=${certs.caCert}`,
    '--requestheader-allowed-names=front-proxy-client',
    '--requestheader-username-headers=X-Remote-User',
    '--requestheader-group-headers=X-Remote-Group',
    '--requestheader-extra-headers-prefix=X-Remote-Extra-',
    `--proxy-client-cert-file=${certs.frontProxyCert}`,
    `--proxy-client-key-file=${certs.frontProxyKey}`,
    '--profiling=false',
    // Which client LISTed which release's records: tests count them (test/integration/settled-at-rest.test.ts).
    `--audit-policy-file=${paths.auditPolicy}`,
    `--audit-log-path=${paths.auditLog}`,
    '--audit-log-format=json',
    '--audit-log-maxsize=50',
    '--audit-log-maxbackup=1',
  ]);
  await writeKubeconfig(paths.kubeconfig, apiserverUrl, certs);
  const tls = await adminTls(certs);
  await waitFor(
    async () => {
      const r = await httpGet(`${apiserverUrl}/readyz?verbose`, tls);
      if (r.status === 200) return true;
      const failing = r.body
        .split('\n')
        .filter((l) => l.startsWith('[-]'))
        .map((l) => l.slice(3).split(' ')[0]);
      return `HTTP ${r.status}${failing.length ? `, not ready: ${failing.join(', ')}` : ''}`;
    },
    { label: 'kube-apiserver /readyz', log, timeoutMs: 120_000, watch: [etcd, apiserver], intervalMs: 200 },
  );

  // Both use the admin identity (system:masters) for every kubeconfig they take.
  const kc = paths.kubeconfig;
  const common = [
    `--kubeconfig=${kc}`,
    `--authentication-kubeconfig=${kc}`,
    `--authorization-kubeconfig=${kc}`,
    '--bind-address=127.0.0.1',
    '--leader-elect=false',
    // Client-side rate limits (default 20 qps) stretch start-up by seconds; the apiserver is ours.
    '--kube-api-qps=200',
    '--kube-api-burst=400',
  ];
  log.info('starting kube-controller-manager and kube-scheduler');
  const [cm, scheduler] = await Promise.all([
    start('kube-controller-manager', bins.kubeControllerManager, [
      ...common,
      `--secure-port=${cmPort}`,
      `--service-account-private-key-file=${certs.serviceAccountKey}`,
      `--root-ca-file=${certs.caCert}`,
      '--use-service-account-credentials=true',
      '--controllers=*',
      `--service-cluster-ip-range=${SERVICE_CLUSTER_IP_RANGE}`,
      // Lets CSRs be approved and signed, as in a real cluster.
      `--cluster-signing-cert-file=${certs.caCert}`,
      `--cluster-signing-key-file=${certs.caKey}`,
    ]),
    start('kube-scheduler', bins.kubeScheduler, [...common, `--secure-port=${schedPort}`]),
  ]);
  // Their serving certs are self-signed in memory, so /healthz is probed without verification.
  const healthy = (proc: StartedProcess, port: number) =>
    waitFor(
      async () => {
        const r = await httpGet(`https://127.0.0.1:${port}/healthz`, { insecure: true });
        return r.status === 200 || `HTTP ${r.status}`;
      },
      { label: `${proc.name} /healthz`, log, timeoutMs: 60_000, watch: [etcd, apiserver, proc] },
    );
  await Promise.all([healthy(cm, cmPort), healthy(scheduler, schedPort)]);
  // Pods cannot be created in a namespace before its `default` ServiceAccount exists (admission);
  // the controller-manager makes it within a second or two. Waiting here spares every user a retry.
  await waitFor(
    async () => {
      const r = await httpGet(`${apiserverUrl}/api/v1/namespaces/default/serviceaccounts/default`, tls);
      return r.status === 200 || `HTTP ${r.status}`;
    },
    { label: 'the default ServiceAccount', log, timeoutMs: 60_000, watch: [etcd, apiserver, cm], intervalMs: 200 },
  );
  return { kubeconfig: paths.kubeconfig, apiserverUrl };
}
