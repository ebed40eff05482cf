import type { Logger } from '../core/log.js';
import type { Subject, TeamPolicy } from '../session/authz/policy-types.js';
import type { PlanStore } from '../session/execute/plan-store.js';
import type { ReleaseSession } from '../session/flow/release-session.js';
import type { TokenStore } from '../session/tokens/token-store.js';
import type { McpAudit } from './audit.js';

/** What the assistants' surface is handed by the CLI (src/cli/compose/mcp-surface.ts). */
export interface McpDeps {
  /** The one release session: every tool goes through it. */
  session: Pick<ReleaseSession, 'run'>;
  /** The Teams, read on every call (a person removed from a Team loses access on the next call). */
  teams(): Promise<TeamPolicy[]>;
  /** A Slack user's user groups, as the bot and the web read them (SLACK_BOT_TOKEN set); absent: none. */
  slackUserGroups?(user: string): Promise<string[]>;
  /** The plan store with the assistants' longer TTL (the keyspace Slack and the web approve from). */
  proposals: Pick<PlanStore, 'put' | 'update'>;
  /** The token's person as the Teams match them (Slack user groups, profile email); absent: their Slack id alone. */
  subjectOf?(slackUser: string): Promise<Subject>;
  /** Slack (the bot's token): a proposal's approval request is posted in the approving Teams' channels; absent: not posted. */
  slack?: { post(channel: string, message: { text: string; blocks: unknown[] }): Promise<{ ts: string }> };
  tokens: Pick<TokenStore, 'verdict' | 'withinRate'>;
  /** HELMCREW_WEB_URL, for the `/plans/<id>` link; without it the id alone. */
  webUrl?: string;
  /** A release's recent Events and last failures, newest first (explain_failure; read only after the person may see the release). */
  failureDetails?(namespace: string, name: string): Promise<string[]>;
  /**
   * Who asked for what on a release and why (the audit Events people's actions leave), newest first; read only after the person may see it.
   * `cluster`: a fleet's other cluster, asked of its agent.
   */
  actions?(namespace: string, name: string, cluster?: string): Promise<string[]>;
  /** In a fleet, the server's own cluster: a tool's `cluster` naming another reads there (the release's NOTES and failure details are the own cluster's only). */
  ownCluster?: string;
  /** The NOTES of a release's newest revision (from helm's record, bounded), and which revision; read only after the person may see the release. */
  releaseNotes?(namespace: string, name: string): Promise<{ revision: number; notes?: string } | undefined>;
  /** stdio: the token is checked again on every call (over HTTP every request carries it); why it no longer holds, or undefined. */
  recheck?(): Promise<string | undefined>;
  /** Calls a token may make a minute. */
  ratePerMinute: number;
  audit: McpAudit;
  log: Logger;
}
