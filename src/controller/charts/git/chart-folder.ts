import { readFile, realpath } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { valid } from 'semver';
import { parse } from 'yaml';
import { GitSourceError } from './git-errors.js';

export interface ChartFolder {
  dir: string;
  name: string;
  version: string;
}

/**
 * The chart folder `path` of a checkout, from its Chart.yaml. It must stay inside the checkout
 * (a symbolic link in the repository could point anywhere on the controller's disk), hold a
 * Chart.yaml with a semver version, and name the chart the HelmRelease names.
 */
export async function readChartFolder(opts: { checkout: string; path: string; expectedName: string; where: string }): Promise<ChartFolder> {
  const { checkout, path, expectedName, where } = opts;
  const root = await realpath(checkout);
  const dir = await realpath(join(checkout, path)).catch(() => undefined);
  if (!dir) throw new GitSourceError(`${where} has no folder ${path} (spec.chart.git.path)`);
  if (dir !== root && !dir.startsWith(root + sep)) throw new GitSourceError(`${where}: ${path} (spec.chart.git.path) leads outside the repository`);
  const text = await readFile(join(dir, 'Chart.yaml'), 'utf8').catch(() => undefined);
  if (text === undefined) throw new GitSourceError(`${where} has no Chart.yaml in ${path} (spec.chart.git.path)`);
  let chart: { name?: unknown; version?: unknown } | null;
  try {
    chart = parse(text, { maxAliasCount: 10 }) as typeof chart;
  } catch {
    throw new GitSourceError(`${where}: ${path}/Chart.yaml is not valid YAML`);
  }
  const name = typeof chart?.name === 'string' ? chart.name : undefined;
  const version = typeof chart?.version === 'string' ? chart.version : undefined;
  if (!name || !version) throw new GitSourceError(`${where}: ${path}/Chart.yaml has no name or version`);
  if (!valid(version)) throw new GitSourceError(`${where}: ${path}/Chart.yaml's version "${version}" is not semver`);
  if (name !== expectedName) throw new GitSourceError(`${where}: ${path}/Chart.yaml names chart "${name}", not "${expectedName}" (spec.chart.name)`);
  return { dir, name, version };
}
