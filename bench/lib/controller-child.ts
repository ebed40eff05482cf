// The controller (or another part) as a child process, started as a deployment starts it (configured by
// environment), logging to a file; and the compiled build it can run, as the container image does.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DevEnvironment } from '../../src/dev/env-file.js';
import { REPO_ROOT } from '../../src/dev/paths.js';
import { withTimeout } from './cleanup.js';
import { say } from './say.js';
import { CONTROLLER_RIGHTS_SETTINGS } from '../../src/dev/dev-settings.js';

export interface ControllerChild {
  pid: number;
  logFile: string;
  startupMs: number;
  /** SIGTERM, wait for the graceful stop (in-flight reconciles finish), SIGKILL after `graceMs`. */
  stop: (graceMs?: number) => Promise<void>;
}

/** `node bin/helmcrew.js controller`, configured by environment like a real deployment, logs to a file. */
export async function spawnController(opts: {
  env: DevEnvironment;
  /** Script and arguments after `node`; default `bin/helmcrew.js controller` (tsx when there is no dist/). */
  entry?: string[];
  helmBin: string;
  namespace: string;
  prefix: string;
  concurrency: number;
  workDir: string;
  logFile: string;
  extraEnv?: Record<string, string>;
}): Promise<ControllerChild> {
  return spawnPart({
    what: 'controller',
    entry: opts.entry ?? [join(REPO_ROOT, 'bin', 'helmcrew.js'), 'controller'],
    logFile: opts.logFile,
    env: {
      KUBECONFIG: opts.env.kubeconfig,
      REDIS_URL: opts.env.redisUrl,
      HELM_BIN: opts.helmBin,
      WATCH_NAMESPACES: opts.namespace,
      HELMCREW_QUEUE_PREFIX: opts.prefix,
      HELMCREW_CONCURRENCY: String(opts.concurrency),
      HELMCREW_WORK_DIR: opts.workDir,
      LOG_LEVEL: 'info',
      // The benchmarks measure the controller as it ran before the safe defaults: its own rights, the loopback chart servers.
      ...CONTROLLER_RIGHTS_SETTINGS,
      ...opts.extraEnv,
    },
  });
}

/**
 * One part of helmcrew (`node <entry> controller|bot|…`) as a child process, configured by
 * environment on top of the bench's own, its output in a file; started once it logs "<what> started".
 */
export async function spawnPart(opts: { what: string; entry: string[]; env: Record<string, string>; logFile: string }): Promise<ControllerChild> {
  const started = Date.now();
  const child: ChildProcess = spawn(process.execPath, opts.entry, { cwd: REPO_ROOT, env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const out = createWriteStream(opts.logFile);
  child.stdout!.pipe(out, { end: false });
  let exited = false;
  const exitPromise = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  const startedLine = `"msg":"${opts.what} started"`;
  const startedPromise = new Promise<void>((resolve, reject) => {
    let buffer = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      out.write(chunk);
      buffer += chunk.toString('utf8');
      if (buffer.includes(startedLine)) {
        buffer = '';
        resolve();
      } else if (buffer.length > 1_000_000) buffer = buffer.slice(-10_000);
    });
    child.once('exit', (code) => reject(new Error(`${opts.what} exited with code ${code} before it started; see ${opts.logFile}`)));
  });
  const stop = async (graceMs = 60_000) => {
    if (exited) return;
    child.kill('SIGTERM');
    const killed = await Promise.race([exitPromise.then(() => false), sleep(graceMs).then(() => true)]);
    if (killed && !exited) {
      say(`${opts.what} ${child.pid} did not stop within ${graceMs / 1000}s; SIGKILL`);
      child.kill('SIGKILL');
      await exitPromise;
    }
    out.end();
  };
  try {
    await withTimeout(startedPromise, 60_000, `${opts.what} start`);
  } catch (error) {
    await stop(5_000);
    throw error;
  }
  return { pid: child.pid!, logFile: opts.logFile, startupMs: Date.now() - started, stop };
}

/**
 * Compiles src/ with tsc into `dir`/dist (never into the checkout's dist/, which would change what
 * bin/helmcrew.js runs), so the controller can be measured as the container image runs it.
 * Returns the entry arguments for `spawnController`.
 */
export async function buildCompiled(dir: string): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  execFileSync(
    join(REPO_ROOT, 'node_modules', '.bin', 'tsc'),
    ['-p', join(REPO_ROOT, 'tsconfig.json'), '--outDir', join(dir, 'dist'), '--sourceMap', 'false'],
    { cwd: REPO_ROOT, stdio: 'inherit' },
  );
  await writeFile(join(dir, 'package.json'), '{"type":"module"}\n');
  await symlink(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'));
  return [join(dir, 'dist', 'cli', 'main.js'), 'controller'];
}

/** Compiles `gitRef`'s src/ (git archive into `dir`, never the checkout) for a before/after run; returns the entry arguments. */
export async function buildRef(dir: string, gitRef: string): Promise<string[]> {
  const tree = join(dir, 'tree');
  await mkdir(tree, { recursive: true });
  execFileSync('bash', ['-c', `git -C ${JSON.stringify(REPO_ROOT)} archive ${JSON.stringify(gitRef)} src tsconfig.json | tar -x -C ${JSON.stringify(tree)}`]);
  await symlink(join(REPO_ROOT, 'node_modules'), join(tree, 'node_modules'));
  await writeFile(join(tree, 'package.json'), '{"type":"module"}\n');
  execFileSync(join(REPO_ROOT, 'node_modules', '.bin', 'tsc'), ['-p', join(tree, 'tsconfig.json'), '--outDir', join(dir, 'dist'), '--sourceMap', 'false'], {
    stdio: 'inherit',
  });
  await writeFile(join(dir, 'package.json'), '{"type":"module"}\n');
  await symlink(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'));
  return [join(dir, 'dist', 'cli', 'main.js'), 'controller'];
}
