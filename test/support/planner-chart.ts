import { execa } from 'execa';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * `planner`, a chart whose two versions differ the way plans must show: 2.0.0 changes the
 * Deployment's image, adds a Service and changes a Secret's password. Nothing runs (0 replicas).
 * Served from a chart repository on a free 127.0.0.1 port.
 */
export const PLANNER = { name: 'planner', from: '1.0.0', to: '2.0.0', passwords: ['planner-pass-one', 'planner-pass-two'] } as const;

const deployment = (image: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
spec:
  replicas: 0
  selector: { matchLabels: { app: {{ .Release.Name }} } }
  template:
    metadata: { labels: { app: {{ .Release.Name }} } }
    spec:
      containers:
        - name: web
          image: ${image}
`;
const secret = (password: string) => `apiVersion: v1
kind: Secret
metadata:
  name: {{ .Release.Name }}-credentials
stringData:
  password: ${password}
`;
const service = `apiVersion: v1
kind: Service
metadata:
  name: {{ .Release.Name }}
spec:
  selector: { app: {{ .Release.Name }} }
  ports: [{ port: 80 }]
`;

export interface PlannerRepo {
  url: string;
  close(): Promise<void>;
}

export async function startPlannerRepo(helmBin: string): Promise<PlannerRepo> {
  const dir = await mkdtemp(join(tmpdir(), 'helmcrew-planner-'));
  const repoDir = join(dir, 'repo');
  await mkdir(repoDir, { recursive: true });
  const versions = [
    { version: PLANNER.from, templates: { 'deployment.yaml': deployment('nginx:1.26'), 'secret.yaml': secret(PLANNER.passwords[0]) } },
    { version: PLANNER.to, templates: { 'deployment.yaml': deployment('nginx:1.27'), 'secret.yaml': secret(PLANNER.passwords[1]), 'service.yaml': service } },
  ];
  for (const { version, templates } of versions) {
    const chartDir = join(dir, `src-${version}`, PLANNER.name);
    await mkdir(join(chartDir, 'templates'), { recursive: true });
    await writeFile(join(chartDir, 'Chart.yaml'), `apiVersion: v2\nname: ${PLANNER.name}\nversion: ${version}\n`);
    for (const [file, text] of Object.entries(templates)) await writeFile(join(chartDir, 'templates', file), text);
    await execa(helmBin, ['package', chartDir, '--destination', repoDir]);
  }
  await execa(helmBin, ['repo', 'index', repoDir]);
  const files = new Map<string, Buffer>();
  for (const file of await readdir(repoDir)) files.set(`/${file}`, await readFile(join(repoDir, file)));
  const server: Server = createServer((req, res) => {
    const body = files.get(req.url ?? '');
    res.writeHead(body ? 200 : 404).end(body ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
