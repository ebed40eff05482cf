/**
 * Why a chart version could not be resolved. Each is its own class so callers decide by class;
 * messages name the repository and never carry a socket error's text.
 */

/** The chart or version is not in the repository, or the repository could not be read: retried. */
export class ChartNotFoundError extends Error {
  override name = 'ChartNotFoundError';
}

/**
 * Any failure to reach the repository or read its index (refused, reset, timed out, DNS). One
 * message for all, so a HelmRelease cannot be used to tell open ports from closed ones.
 */
export class RepositoryUnreachableError extends ChartNotFoundError {
  override name = 'RepositoryUnreachableError';
  constructor(repository: string) {
    super(`could not fetch the repository index of ${repository}`);
  }
}

/** The index is larger than the controller downloads. */
export class IndexTooLargeError extends ChartNotFoundError {
  override name = 'IndexTooLargeError';
  constructor(repository: string, limitBytes: number) {
    super(`the repository index of ${repository} is larger than the ${Math.round(limitBytes / (1024 * 1024))} MiB limit (HELMCREW_MAX_INDEX_BYTES)`);
  }
}

/** The operator's host policy refuses the repository: not retried fast, the spec must change. */
export class RepositoryNotAllowedError extends Error {
  override name = 'RepositoryNotAllowedError';
  constructor(repository: string, why: string) {
    super(`repository ${repository} is not allowed: ${why}`);
  }
}
