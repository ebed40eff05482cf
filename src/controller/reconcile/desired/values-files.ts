import { readFile, realpath, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';
import type { HelmRelease } from '../../../api/helmrelease.js';
import type { TenancyPolicy } from '../../../core/release/tenancy-policy.js';
import type { Logger } from '../../../core/log.js';
import type { DesiredRelease } from '../../../core/release/desired-release.js';
import { releaseTarget } from '../../../core/release/release-target.js';
import { mergeValues } from '../../../core/release/values.js';
import { ChartArchiveError, MAX_CHART_FILE_BYTES, readChartArchiveFile } from '../../charts/archive-file.js';
import { ChartNotFoundError } from '../../charts/repository-errors.js';
import type { RepositoryIndexCache } from '../../charts/repository-index.js';
import type { HelmClient } from '../../helm/helm-client.js';
import { HelmError } from '../../helm/helm-error.js';
import { chartPullRequest } from './helm-requests.js';
import { parseValuesFile, valuesFilePathProblem } from './values-file-parse.js';
import { valuesTooDeep } from './values-depth.js';
import { ValuesError } from './values-from.js';

/** What reading a chart's values files goes through: the chart is pulled as a pass pulls it. */
export interface ValuesFilesPorts {
  helm: Pick<HelmClient, 'pullChart'>;
  charts: Pick<RepositoryIndexCache, 'downloadArchive'>;
  tenancy: TenancyPolicy;
  log: Logger;
}

/** The files' values merged in order; none when the spec names no files. */
export type ValuesFilesOutcome = { ok: true; values?: Record<string, unknown> } | { ok: false; problem: 'values' | 'chart'; message: string };

/**
 * spec.chart.valuesFiles: files inside the chart, merged in order. compose-desired.ts puts them
 * under valuesFrom and spec.values (chart defaults < valuesFiles < valuesFrom < values), in the
 * values document itself, so the values digest (and helm's stored config) covers them: a changed
 * list upgrades. `desired` says where the chart is (a Git folder, or an archive to pull).
 */
export async function readValuesFiles(ports: ValuesFilesPorts, release: HelmRelease, desired: DesiredRelease): Promise<ValuesFilesOutcome> {
  const files = release.spec.chart.valuesFiles ?? [];
  if (files.length === 0) return { ok: true };
  const chart = `chart ${desired.chartName} ${desired.chartVersion}`;
  for (const file of files) {
    const problem = valuesFilePathProblem(file);
    if (problem) return { ok: false, problem: 'values', message: `spec.chart.valuesFiles: ${JSON.stringify(file)} ${problem}` };
  }
  const read = await fileReader(ports, release, desired);
  if (!read.ok) return read;
  let fromFiles: Record<string, unknown> = {};
  try {
    for (const file of files) {
      const text = await read.file(file);
      if (text === undefined) {
        if (release.spec.chart.ignoreMissingValuesFiles) continue;
        return { ok: false, problem: 'values', message: `values file ${file} is not in ${chart} (set spec.chart.ignoreMissingValuesFiles to allow this)` };
      }
      const parsed = parseValuesFile(text, `values file ${file} of ${chart}`);
      const tooDeep = valuesTooDeep(parsed, `values file ${file} of ${chart}`);
      if (tooDeep) return { ok: false, problem: 'values', message: tooDeep };
      fromFiles = mergeValues(fromFiles, parsed);
    }
  } catch (error) {
    if (error instanceof ValuesError) return { ok: false, problem: 'values', message: error.message };
    if (error instanceof ValuesFileError || error instanceof ChartArchiveError) return { ok: false, problem: 'values', message: `${chart}: ${error.message}` };
    throw error;
  }
  return { ok: true, values: fromFiles };
}

export class ValuesFileError extends Error {
  override name = 'ValuesFileError';
}

type Reader = { ok: true; file: (path: string) => Promise<string | undefined> } | { ok: false; problem: 'chart'; message: string };

/** A git chart is a folder of the checkout; any other chart is its (cached) archive, pulled now if need be. */
async function fileReader(ports: ValuesFilesPorts, release: HelmRelease, desired: DesiredRelease): Promise<Reader> {
  const folder = desired.chartSource?.localChart;
  if (folder) return { ok: true, file: (path) => readFolderFile(folder, path) };
  let archivePath: string;
  try {
    archivePath = await ports.helm.pullChart(chartPullRequest(ports, release, releaseTarget(release, ports.tenancy), desired));
  } catch (error) {
    if (error instanceof ChartNotFoundError) return { ok: false, problem: 'chart', message: error.message };
    if (!(error instanceof HelmError)) throw error;
    ports.log.warn({ release: `${release.metadata.namespace}/${release.metadata.name}`, action: 'pull', error: error.stderrExcerpt }, 'helm pull failed');
    const message = `Could not fetch chart ${desired.chartName}@${desired.chartVersion} to read its values files; the controller's log has helm's output`;
    return { ok: false, problem: 'chart', message };
  }
  const archive = await readFile(archivePath);
  return { ok: true, file: async (path) => (await readChartArchiveFile(archive, path))?.toString('utf8') };
}

/** A file of the chart folder; a symlink may not lead outside it. Undefined when there is no such file. */
export async function readFolderFile(folder: string, path: string): Promise<string | undefined> {
  const root = await realpath(folder);
  let real: string;
  try {
    real = await realpath(join(root, path));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw error;
  }
  if (!real.startsWith(root + sep)) throw new ValuesFileError(`values file ${path} leads outside the chart folder`);
  const info = await stat(real);
  if (!info.isFile()) return undefined;
  if (info.size > MAX_CHART_FILE_BYTES) throw new ValuesFileError(`values file ${path} is larger than 5 MiB`);
  return readFile(real, 'utf8');
}
