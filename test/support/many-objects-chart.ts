import { execa } from 'execa';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestChartServer } from './chart-servers.js';

/**
 * `many` 1.0.0: `count` ConfigMaps (cm-000, cm-001, …), each holding `color` — a chart whose plan
 * diff runs past chat's bounds (100 objects), for the web's paged diff. Served from a chart
 * repository on a free 127.0.0.1 port.
 */
const TEMPLATE = `{{- range $i := until (int .Values.count) }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ printf "cm-%03d" $i }}
data:
  color: {{ $.Values.color | quote }}
{{- end }}
`;

export async function startManyObjectsRepo(helmBin: string): Promise<{ url: string; close(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'helmcrew-many-'));
  const repoDir = join(dir, 'repo');
  const chartDir = join(dir, 'src', 'many');
  await mkdir(repoDir, { recursive: true });
  await mkdir(join(chartDir, 'templates'), { recursive: true });
  await writeFile(join(chartDir, 'Chart.yaml'), 'apiVersion: v2\nname: many\nversion: 1.0.0\n');
  await writeFile(join(chartDir, 'values.yaml'), 'count: 130\ncolor: pink\n');
  await writeFile(join(chartDir, 'templates', 'configmaps.yaml'), TEMPLATE);
  await execa(helmBin, ['package', chartDir, '--destination', repoDir]);
  await execa(helmBin, ['repo', 'index', repoDir]);
  const server = await startTestChartServer(repoDir);
  return {
    url: server.url,
    close: async () => {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
