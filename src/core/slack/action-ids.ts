/**
 * The button ids Slack sends back on a click: a contract between the messages that carry the
 * buttons (the bot's plans, notify's failure and drift messages, the bot's audit records) and the
 * bot, which handles the clicks. Stable strings; written here only.
 */

/** A plan's buttons: the value is the plan's opaque id. */
export const PlanAction = {
  Confirm: 'release_confirm',
  Cancel: 'release_cancel',
  Approve: 'release_approve',
} as const;
export type PlanAction = (typeof PlanAction)[keyof typeof PlanAction];

/**
 * Buttons that stand for a command typed on one release: the value is the HelmRelease's
 * "namespace/name", and a click is the same as typing `<verb> namespace/name`.
 */
export const ReleaseAction = {
  Rollback: 'release_rollback',
  Suspend: 'release_suspend',
  Resume: 'release_resume',
  History: 'release_history',
  Status: 'release_status',
  /** On a "Drift detected" message: put the drifted objects back (the bot's `correct` verb). */
  Correct: 'release_correct',
} as const;
export type ReleaseAction = (typeof ReleaseAction)[keyof typeof ReleaseAction];

export const RELEASE_ACTION_IDS: readonly ReleaseAction[] = Object.values(ReleaseAction);

/**
 * A proposal's buttons (issue 35): the value names the proposal and the cluster whose keyspace
 * holds it, `<cluster>/<proposal id>` (proposalActionValue), so any bot of a fleet finds it.
 */
export const ProposalAction = {
  Approve: 'release_proposal_approve',
  Reject: 'release_proposal_reject',
} as const;
export type ProposalAction = (typeof ProposalAction)[keyof typeof ProposalAction];

/** The value a proposal's button carries. */
export function proposalActionValue(cluster: string, proposalId: string): string {
  return `${cluster}/${proposalId}`;
}

/** The cluster and proposal a button's value names, or undefined when it is not one of ours. */
export function parseProposalActionValue(value: string): { cluster: string; id: string } | undefined {
  const match = /^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)\/(p-[0-9a-f]{6,64})$/.exec(value);
  return match ? { cluster: match[1]!, id: match[3]! } : undefined;
}

/**
 * A fleet's "which cluster?" buttons: the value is the whole command for that cluster (`suspend
 * unicorn --cluster edge`), the same as typing it. Slack wants the ids in one block distinct, so
 * each carries its cluster: `release_cluster_choice.edge`.
 */
export const CLUSTER_CHOICE_ACTION = 'release_cluster_choice';
export const clusterChoiceActionId = (cluster: string) => `${CLUSTER_CHOICE_ACTION}.${cluster}`;
/** Every id `clusterChoiceActionId` makes (what the bot's listener matches). */
export const CLUSTER_CHOICE_ACTION_PATTERN = /^release_cluster_choice\.[a-z0-9-]{1,63}$/;

const PREFIX = 'release_';

/** The command a release button stands for (`release_resume` → `resume`), or undefined for any other id. */
export function releaseActionVerb(actionId: string): string | undefined {
  return (RELEASE_ACTION_IDS as readonly string[]).includes(actionId) ? actionId.slice(PREFIX.length) : undefined;
}

/** The label of any of our buttons (`confirm`, `rollback`…), for metrics; undefined for an id that is not ours. */
export function actionLabel(actionId: string): string | undefined {
  if (CLUSTER_CHOICE_ACTION_PATTERN.test(actionId)) return CLUSTER_CHOICE_ACTION.slice(PREFIX.length);
  const ours = [...Object.values(PlanAction), ...RELEASE_ACTION_IDS, ...Object.values(ProposalAction)] as readonly string[];
  return ours.includes(actionId) ? actionId.slice(PREFIX.length) : undefined;
}

/** Whether Slack sent back one of our action ids (anything, since a payload may carry any type). */
export function isOurActionId(actionId: unknown): boolean {
  return typeof actionId === 'string' && actionLabel(actionId) !== undefined;
}

/** The value a release button carries: the HelmRelease object, not the Helm release name. */
export function releaseActionValue(release: { namespace: string; name: string }): string {
  return `${release.namespace}/${release.name}`;
}

/** The HelmRelease a button's value names, or undefined when it is not "namespace/name". */
export function parseReleaseActionValue(value: string): { namespace: string; name: string } | undefined {
  const match = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)\/([a-z0-9]([-.a-z0-9]*[a-z0-9])?)$/.exec(value);
  return match ? { namespace: match[1]!, name: match[3]! } : undefined;
}
