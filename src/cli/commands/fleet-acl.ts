import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SHARED_ENV, type Env } from '../../core/config/env.js';
import { fleetAclLines, fleetUserNames } from '../../core/fleet/acl.js';
import { parseClusterName, prefixProblem } from '../../core/fleet/cluster-keys.js';

export const FLEET_ACL_USAGE = 'usage: helmcrew fleet acl --clusters NAME[,NAME…] --passwords DIR   (DIR: one file per user, agent-<cluster> and hub)';

/** A password file is a secret: at least this long, as the command keys are. */
const MIN_PASSWORD = 16;

/**
 * `helmcrew fleet acl`: the Redis ACL lines of a fleet (docs/operations.md#redis-acl-users-for-a-fleet)
 * for HELMCREW_QUEUE_PREFIX, one agent user per cluster and the hub, passwords read from files
 * (never from the command line, where `ps` shows them) and written only as their SHA-256.
 * Prints the lines on stdout, for `redis-server --aclfile` or `ACL SETUSER`.
 */
export async function fleetAclCommand(args: string[], env: Env, out: (text: string) => void, err: (text: string) => void): Promise<number> {
  const options = readOptions(args);
  if ('error' in options) {
    err(`${options.error}\n${FLEET_ACL_USAGE}`);
    return 2;
  }
  const prefix = SHARED_ENV.in(env).text('HELMCREW_QUEUE_PREFIX');
  const problem = prefixProblem(prefix);
  if (problem) {
    err(problem);
    return 2;
  }
  const passwords = new Map<string, string>();
  for (const user of fleetUserNames(options.clusters)) {
    const file = join(options.dir, user);
    let password: string;
    try {
      password = (await readFile(file, 'utf8')).trim();
    } catch (error) {
      err(`cannot read ${user}'s password from ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
      return 1;
    }
    if (password.length < MIN_PASSWORD || /\s/.test(password)) {
      err(`${file} must hold one password of at least ${MIN_PASSWORD} characters and no spaces (openssl rand -hex 32)`);
      return 1;
    }
    passwords.set(user, password);
  }
  out(`${fleetAclLines(prefix, options.clusters, passwords).join('\n')}\n`);
  return 0;
}

function readOptions(args: string[]): { clusters: string[]; dir: string } | { error: string } {
  let clusters: string[] | undefined;
  let dir: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const value = args[i + 1];
    if ((arg === '--clusters' || arg === '--passwords') && (value === undefined || value.startsWith('--'))) return { error: `${arg} needs a value` };
    if (arg === '--clusters') clusters = value!.split(',').map((c) => c.trim());
    else if (arg === '--passwords') dir = value;
    else return { error: `unknown argument "${arg}"` };
    i++;
  }
  if (!clusters || clusters.length === 0) return { error: '--clusters is required' };
  if (!dir) return { error: '--passwords is required' };
  for (const name of clusters) {
    const check = parseClusterName(name);
    if (!check.ok || name === '') return { error: `--clusters: "${name}" is not a cluster name (a DNS label: lower-case letters, digits and '-')` };
  }
  if (new Set(clusters).size !== clusters.length) return { error: '--clusters names a cluster twice' };
  return { clusters, dir };
}
