import type { WebClient } from '@slack/web-api';
import type { TeamApi } from '../../core/kube/team-api.js';
import { SlackUserGroups } from '../../core/slack/user-groups.js';
import { teamPolicy, type TeamPolicy } from '../../session/authz/policy-types.js';

/**
 * Who is who, read at the edge: Teams from the API server (on every decision, so a change to a
 * Team applies at once) and a user's Slack user groups (usergroups.list, cached briefly).
 */
export class Directory {
  private readonly groups: SlackUserGroups;

  constructor(
    private readonly teamsApi: TeamApi,
    private readonly slack: WebClient,
    cacheMs = 60_000,
    now: () => number = Date.now,
  ) {
    this.groups = new SlackUserGroups(slack, cacheMs, now);
  }

  async teams(): Promise<TeamPolicy[]> {
    return (await this.teamsApi.list()).items.map(teamPolicy);
  }

  /** The person's display name (users.info), for messages outside Slack; undefined when Slack does not say. */
  async userName(user: string): Promise<string | undefined> {
    const profile = (await this.slack.users.info({ user }).catch(() => undefined))?.user;
    return profile?.profile?.display_name || profile?.name || undefined;
  }

  async userGroups(user: string): Promise<string[]> {
    return this.groups.of(user);
  }
}
