// Long-running processes of the local environment. They are started detached (own session, no
// pipes back to us) so they outlive `helmcrew dev up`, and are later stopped by pid from another
// `helmcrew` process. Each one's output goes to <state>/logs/<name>.log, its pid to
// <state>/pids/<name>.pid (for people; `dev down` reads env.json).
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { statePaths } from './paths.js';

export interface ProcessRecord {
  name: string;
  pid: number;
  /**
   * Kernel start time of the process (Linux /proc), recorded so that a pid re-used by an unrelated
   * process after a reboot or crash is never signalled. Absent where /proc is not available.
   */
  startTime?: string;
}

export interface StartedProcess extends ProcessRecord {
  logFile: string;
}

export interface StartOptions {
  name: string;
  command: string;
  args: string[];
  stateDir: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

/** Field 22 of /proc/<pid>/stat, and the state letter (field 3). */
function procStat(pid: number): { state: string; startTime: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces and parentheses; fields after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '', startTime: fields[19] ?? '' };
  } catch {
    return undefined;
  }
}

/** The identity to store for a pid we just started (or were handed, e.g. the chart repo). */
export function recordProcess(name: string, pid: number): ProcessRecord {
  const startTime = procStat(pid)?.startTime;
  return startTime ? { name, pid, startTime } : { name, pid };
}

/** True while a process with this pid runs (not a zombie). */
export function pidAlive(pid: number): boolean {
  return isAlive({ name: String(pid), pid });
}

/** True while the recorded process runs: same pid, same start time, not a zombie. */
export function isAlive(rec: ProcessRecord): boolean {
  try {
    process.kill(rec.pid, 0);
  } catch (err) {
    // EPERM: a process exists but is not ours to signal, so it cannot be the one we started.
    return false;
  }
  const stat = procStat(rec.pid);
  if (!stat) return process.platform !== 'linux';
  if (stat.state === 'Z' || stat.state === 'X') return false;
  return rec.startTime === undefined || rec.startTime === stat.startTime;
}

export async function startDetached(opts: StartOptions): Promise<StartedProcess> {
  const { logs, pids } = statePaths(opts.stateDir);
  await Promise.all([mkdir(logs, { recursive: true }), mkdir(pids, { recursive: true })]);
  const logFile = join(logs, `${opts.name}.log`);
  // Truncated: every `dev up` is a fresh environment, and a start-up error quotes the log's end.
  const out = openSync(logFile, 'w');
  try {
    const child = spawn(opts.command, opts.args, {
      detached: true, // own session and process group: Ctrl-C on `dev up` does not reach it
      stdio: ['ignore', out, out],
      cwd: opts.cwd ?? opts.stateDir,
      env: opts.env ?? process.env,
    });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (err) => reject(new Error(`cannot start ${opts.name} (${opts.command}): ${err.message}`)));
    });
    child.unref();
    const rec = recordProcess(opts.name, child.pid!);
    await writeFile(join(pids, `${opts.name}.pid`), `${rec.pid}\n`);
    return { ...rec, logFile };
  } finally {
    closeSync(out); // the child holds its own copy
  }
}

async function waitForExit(rec: ProcessRecord, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (isAlive(rec)) {
    if (Date.now() >= deadline) return false;
    await sleep(50);
  }
  return true;
}

function signal(rec: ProcessRecord, sig: NodeJS.Signals): void {
  try {
    // The whole process group, so helpers a process spawned go too; it leads the group when we
    // started it detached. If it does not lead one (ESRCH), signal just the process.
    process.kill(-rec.pid, sig);
  } catch {
    try {
      process.kill(rec.pid, sig);
    } catch {
      /* already gone */
    }
  }
}

/** SIGTERM, then SIGKILL after `graceMs`. Does nothing if the recorded process is not running. */
export async function stopProcess(rec: ProcessRecord, graceMs = 5000): Promise<void> {
  if (!isAlive(rec)) return;
  signal(rec, 'SIGTERM');
  if (await waitForExit(rec, graceMs)) return;
  signal(rec, 'SIGKILL');
  if (!(await waitForExit(rec, 2000))) throw new Error(`${rec.name} (pid ${rec.pid}) did not exit`);
}

/** The last lines of a log, for error messages when a process dies during start-up. */
export async function tailFile(path: string, lines = 15): Promise<string> {
  try {
    const text = await readFile(path, 'utf8');
    return text.trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/** An error naming the process, its log file and the end of that log. */
export async function diedError(proc: StartedProcess, during: string): Promise<Error> {
  const tail = await tailFile(proc.logFile);
  return new Error(`${proc.name} (pid ${proc.pid}) exited ${during}; see ${proc.logFile}` + (tail ? `\n${tail}` : ''));
}
