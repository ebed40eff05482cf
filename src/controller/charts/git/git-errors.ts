import { ChartNotFoundError } from '../repository-errors.js';
import type { GitAccess } from './git-access.js';

/**
 * Why git could not read a repository. Made at the edge (git-runner.ts) from git's exit and its
 * stderr (run with LANG=C), which is the only place git says why; decided on by `kind` after that.
 * Messages name the repository (no credentials) and the Secret, never git's own words, which
 * quote socket errors: those go to the controller's log.
 */
export type GitFailureKind = 'unreachable' | 'refused' | 'host-key' | 'bad-key' | 'timeout';

export class GitSourceError extends ChartNotFoundError {
  override name = 'GitSourceError';
}

export class GitCommandError extends GitSourceError {
  override name = 'GitCommandError';
  constructor(
    readonly kind: GitFailureKind,
    url: string,
    access: GitAccess,
  ) {
    super(gitFailureMessage(kind, url, access));
  }
}

/** Pure: git's complaint (stderr, LANG=C) as a kind. */
export function classifyGitFailure(stderr: string, timedOut: boolean): GitFailureKind {
  if (timedOut) return 'timeout';
  if (/host key verification failed|remote host identification has changed|no \S+ host key is known/i.test(stderr)) return 'host-key';
  if (/load key .*: (invalid format|error in libcrypto)|no such identity|bad permissions/i.test(stderr)) return 'bad-key';
  if (/authentication failed|could not read (username|password)|terminal prompts disabled|permission denied \(publickey|returned error: 40[13]/i.test(stderr))
    return 'refused';
  return 'unreachable';
}

/** Pure. Without a Secret every failure reads the same, so a HelmRelease cannot probe what answers where. */
export function gitFailureMessage(kind: GitFailureKind, url: string, access: GitAccess): string {
  const secret = access.secret ? `Secret ${access.secret} (spec.chart.git.secretRef)` : '';
  switch (kind) {
    case 'refused':
      if (secret) return `Git repository ${url} refused the credentials in ${secret}`;
      return `could not read the Git repository ${url}`;
    case 'host-key':
      return `the SSH host key of ${url} does not match known_hosts in ${secret}: host key verification failed`;
    case 'bad-key':
      return `the identity in ${secret} is not a usable SSH private key (for ${url})`;
    case 'timeout':
      return `could not read the Git repository ${url} (timed out)`;
    case 'unreachable':
      return `could not read the Git repository ${url}`;
  }
}
