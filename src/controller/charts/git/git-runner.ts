import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import type { Logger } from '../../../core/log.js';
import { CONTROLLER_ENV } from '../../config.js';
import { displayUrl, gitAccessSecrets, type GitAccess } from './git-access.js';
import { classifyGitFailure, GitCommandError } from './git-errors.js';

/** Folders with credentials start like helm's (private-files.ts), so start-up removes a killed controller's leftovers too. */
const PRIVATE_PREFIX = 'auth-git-';

export type GitVerb = 'ls-remote' | 'fetch' | 'local';

/**
 * Runs Debian's git with argument arrays (never a shell) and an environment of its own: no
 * system or user config, no prompts, only http(s) and ssh, credentials only as 0600 files of a
 * 0700 folder (a `store` credential helper file for https, the key and known_hosts for ssh:
 * never argv, never the environment), host keys always checked.
 */
export class GitRunner {
  /** git processes started, by verb: the bench reads these. */
  readonly started: Record<GitVerb, number> = { 'ls-remote': 0, fetch: 0, local: 0 };

  constructor(
    private readonly gitBin: string,
    private readonly workDir: string,
    private readonly log: Logger,
  ) {}

  /** A git command that talks to `url` with `access`. Returns stdout; throws GitCommandError. */
  async remote(verb: Exclude<GitVerb, 'local'>, args: string[], opts: { url: string; access: GitAccess; cwd?: string; timeoutMs: number }): Promise<string> {
    const dir = await mkdtemp(join(this.workDir, PRIVATE_PREFIX));
    try {
      const { config, env } = await credentialSetup(dir, opts.url, opts.access);
      Object.assign(env, await proxySetup(dir, opts.access));
      this.started[verb]++;
      const result = await execa(this.gitBin, [...BASE_CONFIG, ...config, ...args], {
        cwd: opts.cwd,
        env: { ...baseEnv(dir), ...env },
        extendEnv: false,
        reject: false,
        timeout: opts.timeoutMs,
        stdin: 'ignore',
      });
      if (result.exitCode === 0 && !result.timedOut) return result.stdout;
      const kind = classifyGitFailure(result.stderr, !!result.timedOut);
      const stderr = redact(result.stderr, opts.access).slice(-2000);
      this.log.warn({ repository: displayUrl(opts.url), action: `git ${verb}`, kind, exitCode: result.exitCode, error: stderr }, 'git failed');
      throw new GitCommandError(kind, displayUrl(opts.url), opts.access);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /**
   * A signature check on a local folder (verify-commit, verify-tag): its exit status and stderr are
   * the answer, not a failure. `env` adds GNUPGHOME; `config` points git at gpg and the allowed signers.
   */
  async check(args: string[], cwd: string, opts: { config: string[]; env: Record<string, string> }): Promise<{ exitCode: number; stderr: string }> {
    const dir = await mkdtemp(join(this.workDir, PRIVATE_PREFIX));
    try {
      this.started.local++;
      const result = await execa(this.gitBin, [...BASE_CONFIG, ...opts.config, ...args], {
        cwd,
        env: { ...baseEnv(dir), ...opts.env },
        extendEnv: false,
        reject: false,
        timeout: 60_000,
        stdin: 'ignore',
      });
      if (result.timedOut) throw new Error(`git ${args[0] ?? ''} timed out`);
      return { exitCode: result.exitCode ?? 1, stderr: result.stderr };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** A git command on a local folder only (init, checkout, rev-parse). */
  async local(args: string[], cwd: string): Promise<string> {
    const dir = await mkdtemp(join(this.workDir, PRIVATE_PREFIX));
    try {
      this.started.local++;
      const result = await execa(this.gitBin, [...BASE_CONFIG, ...args], { cwd, env: baseEnv(dir), extendEnv: false, timeout: 60_000, stdin: 'ignore' });
      return result.stdout;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}

const BASE_CONFIG = [
  '-c',
  'protocol.version=2',
  // A redirect would take the request (and the password) to a host the policy never checked.
  '-c',
  'http.followRedirects=false',
  '-c',
  'http.lowSpeedLimit=1000',
  '-c',
  'http.lowSpeedTime=30',
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'advice.detachedHead=false',
  '-c',
  'init.defaultBranch=main',
];

/** Nothing of the controller's own environment: git reads no user's config, asks no one, speaks only http(s) and ssh. */
function baseEnv(home: string): Record<string, string> {
  return {
    PATH: CONTROLLER_ENV.in(process.env).raw('PATH') ?? CONTROLLER_ENV.fallback('PATH'),
    HOME: home,
    LANG: 'C',
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: '',
    SSH_ASKPASS: '',
    GIT_ALLOW_PROTOCOL: 'http:https:ssh',
    // ssh without a key file of ours: never an agent or ~/.ssh of the controller's user.
    GIT_SSH_COMMAND: 'ssh -F /dev/null -o BatchMode=yes -o StrictHostKeyChecking=yes -o UserKnownHostsFile=/dev/null -o GlobalKnownHostsFile=/dev/null',
    SSH_AUTH_SOCK: '',
  };
}

/** The credential files in `dir` and the git config and environment that point at them. */
async function credentialSetup(dir: string, url: string, access: GitAccess): Promise<{ config: string[]; env: Record<string, string> }> {
  if (access.basic) {
    const file = join(dir, 'credentials');
    const target = new URL(url);
    const line = `${target.protocol}//${encodeURIComponent(access.basic.username)}:${encodeURIComponent(access.basic.password)}@${target.host}\n`;
    await writeFile(file, line, { mode: 0o600, flag: 'wx' });
    // The empty value drops any helper configured elsewhere; the path holds no secret.
    return { config: ['-c', 'credential.helper=', '-c', `credential.helper=store --file=${file}`], env: {} };
  }
  if (access.ssh) {
    const identity = join(dir, 'identity');
    const knownHosts = join(dir, 'known_hosts');
    await writeFile(identity, access.ssh.identity, { mode: 0o600, flag: 'wx' });
    await writeFile(knownHosts, access.ssh.knownHosts.endsWith('\n') ? access.ssh.knownHosts : `${access.ssh.knownHosts}\n`, { mode: 0o600, flag: 'wx' });
    // git runs this through sh: the paths are mkdtemp's (no spaces or quotes), quoted all the same.
    const command = [
      'ssh -F /dev/null -o BatchMode=yes -o IdentitiesOnly=yes -o StrictHostKeyChecking=yes -o ConnectTimeout=15',
      `-o GlobalKnownHostsFile=/dev/null -o UserKnownHostsFile='${knownHosts}' -i '${identity}'`,
    ].join(' ');
    return { config: ['-c', 'credential.helper='], env: { GIT_SSH_COMMAND: command, GIT_SSH_VARIANT: 'ssh' } };
  }
  return { config: ['-c', 'credential.helper='], env: {} };
}

/**
 * The proxy as git's http.proxy, in a 0600 config file of this run (GIT_CONFIG_GLOBAL, which is
 * /dev/null otherwise): its password never in argv or the environment. curl asks the proxy to
 * CONNECT by name; the controller has checked that name and the proxy's address against the host policy.
 */
export async function proxySetup(dir: string, access: GitAccess): Promise<Record<string, string>> {
  if (!access.proxy) return {};
  const url = new URL(access.proxy.url.href);
  if (access.proxy.basic) [url.username, url.password] = [encodeURIComponent(access.proxy.basic.username), encodeURIComponent(access.proxy.basic.password)];
  const file = join(dir, 'proxy.gitconfig');
  // A quoted value: git config escapes only backslash and double quote.
  await writeFile(file, `[http]\n\tproxy = "${url.href.replace(/\/$/, '').replace(/[\\"]/g, (c) => `\\${c}`)}"\n\tproxyAuthMethod = basic\n`, { mode: 0o600, flag: 'wx' });
  return { GIT_CONFIG_GLOBAL: file };
}

function redact(text: string, access: GitAccess): string {
  let out = text;
  for (const secret of gitAccessSecrets(access)) if (secret.length >= 4) out = out.split(secret).join('[redacted]');
  return out;
}
