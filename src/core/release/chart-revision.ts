/** The chart digest of a git chart: `git:<commit>`, so a new commit is a change, as a moved OCI tag is. */
export const GIT_DIGEST_PREFIX = 'git:';

/** Pure: the revision people read for a git chart, Chart.yaml's version plus the short commit (1.2.0+abc1234). */
export function gitRevision(version: string, digest: string | undefined): string | undefined {
  if (!digest?.startsWith(GIT_DIGEST_PREFIX)) return undefined;
  const short = digest.slice(GIT_DIGEST_PREFIX.length, GIT_DIGEST_PREFIX.length + 7);
  return `${version}${version.includes('+') ? '.' : '+'}${short}`;
}
