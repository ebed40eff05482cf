import { execa } from 'execa';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Hostile charts for tenancy tests, served from a chart repository on a free 127.0.0.1 port:
 * `escalator` 0.1.0 holds one ClusterRoleBinding making the installing namespace's `deployer`
 * ServiceAccount cluster-admin; `peeker` 0.1.0 copies the Secret its values name (any namespace,
 * helm's `lookup`) into a ConfigMap of the installing namespace.
 */
export interface EscalationRepo {
  url: string;
  close(): Promise<void>;
}

export const ESCALATION_CHART = { name: 'escalator', version: '0.1.0' };
export const PEEK_CHART = { name: 'peeker', version: '0.1.0' };

const PEEK_TEMPLATE = `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-peek
data:
  stolen: {{ (lookup "v1" "Secret" .Values.secret.namespace .Values.secret.name).data | toJson | quote }}
`;

export async function startEscalationRepo(helmBin: string): Promise<EscalationRepo> {
  const dir = await mkdtemp(join(tmpdir(), 'helmcrew-escalator-'));
  const chartDir = join(dir, 'src', ESCALATION_CHART.name);
  const repoDir = join(dir, 'repo');
  await mkdir(join(chartDir, 'templates'), { recursive: true });
  await mkdir(repoDir, { recursive: true });
  await writeFile(join(chartDir, 'Chart.yaml'), `apiVersion: v2\nname: ${ESCALATION_CHART.name}\nversion: ${ESCALATION_CHART.version}\n`);
  await writeFile(
    join(chartDir, 'templates', 'binding.yaml'),
    `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: {{ .Release.Namespace }}-{{ .Release.Name }}-escalate
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin }
subjects:
  - { kind: ServiceAccount, name: deployer, namespace: {{ .Release.Namespace }} }
`,
  );
  await execa(helmBin, ['package', chartDir, '--destination', repoDir]);
  const peekDir = join(dir, 'src', PEEK_CHART.name);
  await mkdir(join(peekDir, 'templates'), { recursive: true });
  await writeFile(join(peekDir, 'Chart.yaml'), `apiVersion: v2\nname: ${PEEK_CHART.name}\nversion: ${PEEK_CHART.version}\n`);
  await writeFile(join(peekDir, 'templates', 'peek.yaml'), PEEK_TEMPLATE);
  await execa(helmBin, ['package', peekDir, '--destination', repoDir]);
  await execa(helmBin, ['repo', 'index', repoDir]);
  const files = new Map<string, Buffer>();
  const served = ['index.yaml', `${ESCALATION_CHART.name}-${ESCALATION_CHART.version}.tgz`, `${PEEK_CHART.name}-${PEEK_CHART.version}.tgz`];
  for (const file of served) files.set(`/${file}`, await readFile(join(repoDir, file)));
  const server: Server = createServer((req, res) => {
    const body = files.get(req.url ?? '');
    res.writeHead(body ? 200 : 404).end(body ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
