import { execa } from 'execa';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestChartServer } from './chart-servers.js';

/**
 * `notes` 1.0.0: one ConfigMap and a templates/NOTES.txt of the test's choosing (a hostile one: the
 * chart's author is not the person reading it), served from a chart repository on 127.0.0.1.
 */
export async function startNotesRepo(helmBin: string, notes: string): Promise<{ url: string; close(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'helmcrew-notes-'));
  const chartDir = join(dir, 'src', 'notes');
  const repoDir = join(dir, 'repo');
  await mkdir(join(chartDir, 'templates'), { recursive: true });
  await mkdir(repoDir, { recursive: true });
  await writeFile(join(chartDir, 'Chart.yaml'), 'apiVersion: v2\nname: notes\nversion: 1.0.0\n');
  await writeFile(
    join(chartDir, 'templates', 'configmap.yaml'),
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-notes\ndata:\n  mode: plain\n',
  );
  await writeFile(join(chartDir, 'templates', 'NOTES.txt'), notes);
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
