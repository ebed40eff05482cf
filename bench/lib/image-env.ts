// The runtime settings the container image gives the controller (the final stage's ENV lines in
// the Dockerfile), so a benchmark's controller child runs as the image runs it and the values
// are written down in one place only.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../src/dev/paths.js';

/** Set by the image but not a runtime setting of the benchmark's controller (it runs the bench's counting helm). */
const NOT_FOR_THE_BENCH = new Set(['HELM_BIN']);

/**
 * Pure: the variables of the last build stage's `ENV` instructions (`ENV A=b C="x y"`, with `\`
 * continuation lines), in order, later ones winning.
 */
export function finalStageEnv(dockerfile: string): Record<string, string> {
  const joined = dockerfile.replace(/\\\r?\n/g, ' ');
  const lines = joined.split(/\r?\n/).map((line) => line.trim());
  const lastFrom = lines.map((line) => /^FROM\s/i.test(line)).lastIndexOf(true);
  const env: Record<string, string> = {};
  for (const line of lines.slice(lastFrom + 1)) {
    const match = /^ENV\s+(.*)$/i.exec(line);
    if (!match) continue;
    for (const pair of match[1]!.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|\S*)/g)) {
      const raw = pair[2]!;
      env[pair[1]!] = raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw;
    }
  }
  return env;
}

/** The image's runtime variables for the controller (NODE_OPTIONS, MALLOC_ARENA_MAX, …), read from the Dockerfile. */
export function imageControllerEnv(): Record<string, string> {
  const env = finalStageEnv(readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8'));
  return Object.fromEntries(Object.entries(env).filter(([name]) => !NOT_FOR_THE_BENCH.has(name)));
}

/**
 * The image's process settings alone (NODE_ENV, NODE_OPTIONS, glibc's MALLOC_*), for a benchmark that
 * runs a web or MCP process as the image would; `nodeOptions` replaces NODE_OPTIONS ("" for V8's defaults).
 */
export function imageProcessEnv(nodeOptions?: string): Record<string, string> {
  const env = { ...imageControllerEnv(), ...(nodeOptions !== undefined ? { NODE_OPTIONS: nodeOptions } : {}) };
  return Object.fromEntries(Object.entries(env).filter(([name]) => ['NODE_ENV', 'NODE_OPTIONS'].includes(name) || name.startsWith('MALLOC_')));
}

/** `A=b C="x y"`, the way the reports print the variables. */
export function formatEnv(env: Record<string, string>): string {
  return Object.entries(env)
    .map(([name, value]) => `${name}=${/\s/.test(value) ? JSON.stringify(value) : value}`)
    .join(' ');
}
