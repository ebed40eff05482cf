// The local Helm chart repository of the demo: every unicorn version packaged from the one chart
// source in charts/unicorn/, indexed, and served over HTTP by a detached chart-server process that
// outlives the CLI which started it.
import { spawn } from 'node:child_process';
import { cp, mkdir, open, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { execa } from 'execa';
import type { Logger } from '../core/log.js';
import { freePort } from './free-port.js';
import { REPO_ROOT } from './paths.js';
import { brokenContainerPort, chartName, packagedVersions, type UnicornVersion } from './unicorn-versions.js';
import { pidAlive } from './processes.js';

/** The chart source every version is made from. */
export const chartSourceDir = join(REPO_ROOT, 'charts', chartName);

const READY_TIMEOUT_MS = 15_000;
const START_ATTEMPTS = 3;

/**
 * Replaces the one top-level `key: ...` line of a values.yaml, keeping its comments. Throws when
 * the line is not there exactly once, so a renamed value cannot silently stop being set.
 */
function setTopLevelValue(valuesYaml: string, key: string, value: string, comment?: string): string {
  const line = new RegExp(`^${key}:.*$`, 'gm');
  const found = valuesYaml.match(line)?.length ?? 0;
  if (found !== 1) throw new Error(`charts/${chartName}/values.yaml: expected one top-level "${key}:" line, found ${found}`);
  const replacement = comment ? `# ${comment}\n${key}: ${value}` : `${key}: ${value}`;
  return valuesYaml.replace(line, replacement);
}

/** Copies the chart source and sets this version's defaults in its values.yaml. */
async function stageVersion(v: UnicornVersion, buildDir: string): Promise<string> {
  // Named like the chart, as a chart folder conventionally is; one folder per version.
  const dir = join(buildDir, v.version, chartName);
  await rm(dir, { recursive: true, force: true });
  await mkdir(join(buildDir, v.version), { recursive: true });
  await cp(chartSourceDir, dir, { recursive: true });
  const valuesPath = join(dir, 'values.yaml');
  let values = await readFile(valuesPath, 'utf8');
  values = setTopLevelValue(values, 'color', v.color);
  if (v.broken) {
    values = setTopLevelValue(
      values,
      'containerPort',
      String(brokenContainerPort),
      `${v.version} ships this typo on purpose: out of range, so the API server rejects the Deployment.`,
    );
  }
  await writeFile(valuesPath, values);
  return dir;
}

/** Packages every version into `chartsDir` and writes its index.yaml. */
export async function packageCharts(opts: { buildDir: string; chartsDir: string; helmBin: string; log: Logger }): Promise<string[]> {
  const { buildDir, chartsDir, helmBin, log } = opts;
  await rm(chartsDir, { recursive: true, force: true });
  await mkdir(chartsDir, { recursive: true });
  const archives: string[] = [];
  for (const v of packagedVersions) {
    const dir = await stageVersion(v, buildDir);
    await execa(helmBin, ['package', dir, '--version', v.version, '--app-version', v.version, '--destination', chartsDir]);
    archives.push(join(chartsDir, `${chartName}-${v.version}.tgz`));
    log.debug({ version: v.version, color: v.color, broken: v.broken }, 'packaged chart');
  }
  // Relative URLs in the index: helm resolves them against the repository URL, so the index does
  // not need to know the port.
  await execa(helmBin, ['repo', 'index', chartsDir]);
  return archives;
}

/** tsx's --import entry as a file URL (import.meta.resolve is not available under vitest). */
function tsxLoaderUrl(): string {
  return pathToFileURL(join(REPO_ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
}

/** How to run chart-server: through tsx from src/, plainly from dist/. */
function serverCommand(dir: string, port: number): string[] {
  const self = fileURLToPath(import.meta.url);
  if (self.endsWith('.ts')) {
    const server = fileURLToPath(new URL('./chart-server.ts', import.meta.url));
    // Resolved here rather than left to the child, whose cwd may not see node_modules.
    return ['--import', tsxLoaderUrl(), server, dir, String(port)];
  }
  return [fileURLToPath(new URL('./chart-server.js', import.meta.url)), dir, String(port)];
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/index.yaml`, { signal: AbortSignal.timeout(1_000) });
    await res.body?.cancel();
    return res.status === 200;
  } catch {
    return false;
  }
}

async function tail(path: string, lines = 20): Promise<string> {
  try {
    return (await readFile(path, 'utf8')).trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/** Starts one detached chart-server; resolves with its pid once GET /index.yaml answers 200. */
async function startServer(chartsDir: string, logPath: string, log: Logger): Promise<{ url: string; pid: number }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const logFile = await open(logPath, 'a');
  let exited: string | undefined;
  let pid: number;
  try {
    const child = spawn(process.execPath, serverCommand(chartsDir, port), {
      detached: true, // its own process group: survives the CLI and its Ctrl-C
      stdio: ['ignore', logFile.fd, logFile.fd],
    });
    if (child.pid === undefined) {
      throw await new Promise<Error>((resolve) => child.once('error', resolve));
    }
    pid = child.pid;
    child.once('exit', (code, signal) => {
      exited = signal ? `signal ${signal}` : `exit code ${code}`;
    });
    child.unref();
  } finally {
    await logFile.close(); // the child holds its own copy of the descriptor
  }

  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (await answers(url)) {
      log.info({ url, pid, log: logPath }, 'chart repository ready');
      return { url, pid };
    }
    if (exited !== undefined || !pidAlive(pid)) {
      throw new Error(`chart-server exited (${exited ?? 'gone'}) before serving ${url}; last lines of ${logPath}:\n${await tail(logPath)}`);
    }
    await sleep(100);
  }
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    // already gone
  }
  throw new Error(`chart-server did not answer ${url}/index.yaml within ${READY_TIMEOUT_MS} ms; see ${logPath}:\n${await tail(logPath)}`);
}

/**
 * Packages every unicorn version into `<stateDir>/charts/`, indexes it, and serves it from a
 * detached HTTP server on a free 127.0.0.1 port (log: `<stateDir>/logs/chart-repo.log`). The
 * caller owns the returned pid and stops the server with it.
 */
export async function startChartRepo(opts: { stateDir: string; helmBin: string; log: Logger }): Promise<{ url: string; pid: number }> {
  const { stateDir, helmBin, log } = opts;
  const chartsDir = join(stateDir, 'charts');
  const logsDir = join(stateDir, 'logs');
  await mkdir(logsDir, { recursive: true });
  await packageCharts({ buildDir: join(stateDir, 'chart-build'), chartsDir, helmBin, log });
  log.info({ chartsDir, versions: packagedVersions.map((v) => v.version) }, 'packaged unicorn charts');

  const logPath = join(logsDir, 'chart-repo.log');
  let lastError: unknown;
  // A free port can be taken between choosing it and the child binding it; try another then.
  for (let attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
    try {
      return await startServer(chartsDir, logPath, log);
    } catch (err) {
      lastError = err;
      log.warn({ err, attempt }, 'chart-server did not start');
    }
  }
  throw lastError;
}
