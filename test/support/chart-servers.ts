import { cp, mkdtemp, readdir } from 'node:fs/promises';
import type { IncomingMessage, Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { createChartServer, type ChartServerOptions } from '../../src/dev/chart-server.js';
import type { DevEnvironment } from '../../src/dev/env-file.js';

/** A chart repository served by this test process (so the test sees every request), on 127.0.0.1. */
export interface TestChartServer {
  url: string;
  dir: string;
  /** Requests for index.yaml: with a validator (If-None-Match) or without, and the Authorization they carried. */
  indexRequests: Array<{ conditional: boolean; at: number; authorization?: string }>;
  stop(): Promise<void>;
}

export async function startTestChartServer(dir: string, options: Omit<ChartServerOptions, 'onRequest' | 'log'> = {}): Promise<TestChartServer> {
  const indexRequests: TestChartServer['indexRequests'] = [];
  const onRequest = (req: IncomingMessage) => {
    if (req.url?.startsWith('/index.yaml'))
      indexRequests.push({ conditional: !!req.headers['if-none-match'], at: Date.now(), authorization: req.headers.authorization });
  };
  const server: Server = createChartServer(dir, { ...options, onRequest, log: () => {} });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    dir,
    indexRequests,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A fresh chart folder holding the given unicorn versions from the environment's packaged charts, indexed. */
export async function chartFolder(env: DevEnvironment, versions: string[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'helmcrew-charts-'));
  await publish(env, dir, versions);
  return dir;
}

/** Adds unicorn versions to a chart folder and indexes it again, as publishing to a repository does. */
export async function publish(env: DevEnvironment, dir: string, versions: string[]): Promise<void> {
  for (const v of versions) await cp(join(env.stateDir, 'charts', `unicorn-${v}.tgz`), join(dir, `unicorn-${v}.tgz`));
  await execa(env.helmBin, ['repo', 'index', dir]);
  if (!(await readdir(dir)).includes('index.yaml')) throw new Error(`helm repo index wrote no index in ${dir}`);
}
