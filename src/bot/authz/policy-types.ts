/**
 * The part of a Team the bot needs to decide who may do what. Mirrors the Team API's
 * `spec.members` and `spec.permissions`; the Team objects are read at the edge and narrowed
 * to this, so the decision stays a pure function.
 */

export const PERMISSION_VERBS = ['list', 'status', 'history', 'diff', 'suspend', 'resume', 'upgrade', 'rollback', 'freeze', 'unfreeze'] as const;
export type PermissionVerb = (typeof PERMISSION_VERBS)[number];

export interface PermissionRule {
  verbs: PermissionVerb[];
  /** Absent: every namespace. "*" also means every namespace. */
  namespaces?: string[];
  /** `name` or `namespace/name`; absent: every release. */
  releases?: string[];
  /** Chart names; absent: every chart. */
  charts?: string[];
  /** A second, different authorized member must approve before the action runs. */
  requireApproval?: boolean;
}

export interface TeamPolicy {
  name: string;
  members: { slackUsers?: string[]; slackUserGroups?: string[] };
  permissions: PermissionRule[];
}

/** Who asks: a Slack user and the user groups Slack says they are in. */
export interface Subject {
  slackUser: string;
  slackUserGroups: string[];
}

/** What the verb acts on. A release, a namespace (list, freeze), or everything (freeze all). */
export type AuthzTarget =
  | { kind: 'release'; namespace: string; name: string; chart: string }
  | { kind: 'namespace'; namespace: string }
  | { kind: 'all' };
