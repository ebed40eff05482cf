import { execa } from 'execa';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { EXIT_CODE_ANNOTATION } from '../../src/dev/kwok-stages.js';

/**
 * Small charts for the action-option tests, served from a chart repository on a free 127.0.0.1
 * port. `jobs` 0.1.0: a ConfigMap, a Job (`job.fails: true`: its pod is never scheduled and
 * `activeDeadlineSeconds: 1` makes the Job controller fail it — kwok completes every pod a Job
 * owns, so an exit code cannot; `job.stuck: true` leaves its pod unschedulable, so it never completes) and a pre-install/pre-upgrade hook pod (`hook.fails: true` fails it).
 */
export interface TestChartRepo {
  url: string;
  close(): Promise<void>;
}

export interface TestChart {
  name: string;
  version: string;
  /** Path inside the chart → content (templates/…, values.yaml, values-prod.yaml…). */
  files: Record<string, string>;
}

export const JOBS_CHART: TestChart = {
  name: 'jobs',
  version: '0.1.0',
  files: {
    'values.yaml': 'job: { fails: false, stuck: false, run: 1 }\nhook: { fails: false }\nmessage: hello\n',
    'templates/configmap.yaml': `apiVersion: v1
kind: ConfigMap
metadata: { name: {{ .Release.Name }}-config }
data: { message: {{ .Values.message | quote }} }
`,
    'templates/job.yaml': `apiVersion: batch/v1
kind: Job
metadata: { name: {{ .Release.Name }}-job-{{ .Values.job.run }} }
spec:
  backoffLimit: 0
  {{- if .Values.job.fails }}
  activeDeadlineSeconds: 1
  {{- end }}
  template:
    spec:
      restartPolicy: Never
      {{- if or .Values.job.stuck .Values.job.fails }}
      nodeSelector: { helmcrew.dev/no-such-node: "true" }
      {{- end }}
      containers: [{ name: run, image: busybox:1.37, command: ["true"] }]
`,
    'templates/hook.yaml': `apiVersion: v1
kind: Pod
metadata:
  name: {{ .Release.Name }}-pre-hook
  annotations:
    "helm.sh/hook": pre-install,pre-upgrade
    "helm.sh/hook-delete-policy": before-hook-creation,hook-succeeded
    {{- if .Values.hook.fails }}
    "${EXIT_CODE_ANNOTATION}": "1"
    {{- end }}
spec:
  restartPolicy: Never
  containers: [{ name: hook, image: busybox:1.37, command: ["true"] }]
`,
  },
};

export async function startTestChartRepo(helmBin: string, charts: TestChart[]): Promise<TestChartRepo> {
  const dir = await mkdtemp(join(tmpdir(), 'helmcrew-test-charts-'));
  const repoDir = join(dir, 'repo');
  await mkdir(repoDir, { recursive: true });
  const served = ['index.yaml'];
  for (const chart of charts) {
    const chartDir = join(dir, 'src', `${chart.name}-${chart.version}`);
    await mkdir(chartDir, { recursive: true });
    await writeFile(join(chartDir, 'Chart.yaml'), `apiVersion: v2\nname: ${chart.name}\nversion: ${chart.version}\n`);
    for (const [path, content] of Object.entries(chart.files)) {
      await mkdir(dirname(join(chartDir, path)), { recursive: true });
      await writeFile(join(chartDir, path), content);
    }
    await execa(helmBin, ['package', chartDir, '--destination', repoDir]);
    served.push(`${chart.name}-${chart.version}.tgz`);
  }
  await execa(helmBin, ['repo', 'index', repoDir]);
  const files = new Map<string, Buffer>();
  for (const file of served) files.set(`/${file}`, await readFile(join(repoDir, file)));
  const server: Server = createServer((req, res) => {
    const body = files.get(req.url ?? '');
    res.writeHead(body ? 200 : 404).end(body ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
