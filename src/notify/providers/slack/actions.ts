/**
 * The buttons on a failure or drift message. The ids are a contract with the Slack bot, which handles
 * the clicks: stable strings, one per verb; each button's value is the HelmRelease's
 * "namespace/name".
 */
export const ReleaseAction = {
  Rollback: 'release_rollback',
  Suspend: 'release_suspend',
  History: 'release_history',
  Status: 'release_status',
  /** On a "Drift detected" message: put the drifted objects back (the bot's `correct` verb). */
  Correct: 'release_correct',
} as const;
export type ReleaseAction = (typeof ReleaseAction)[keyof typeof ReleaseAction];

export const RELEASE_ACTION_IDS: readonly ReleaseAction[] = Object.values(ReleaseAction);

/** The value a button carries: the HelmRelease object, not the Helm release name. */
export function releaseActionValue(release: { namespace: string; name: string }): string {
  return `${release.namespace}/${release.name}`;
}

/** The HelmRelease a button's value names, or undefined when it is not "namespace/name". */
export function parseReleaseActionValue(value: string): { namespace: string; name: string } | undefined {
  const match = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)\/([a-z0-9]([-.a-z0-9]*[a-z0-9])?)$/.exec(value);
  return match ? { namespace: match[1]!, name: match[3]! } : undefined;
}
