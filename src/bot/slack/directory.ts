import type { WebClient } from '@slack/web-api';
import type { TeamApi } from '../../core/kube/team-api.js';
import { teamPolicy, type TeamPolicy } from '../../session/authz/policy-types.js';

/**
 * Who is who, read at the edge: Teams from the API server (on every decision, so a change to a
 * Team applies at once) and a user's Slack user groups (usergroups.list, cached briefly).
 */
export class Directory {
  private groups?: { at: number; byUser: Map<string, string[]> };

  constructor(
    private readonly teamsApi: TeamApi,
    private readonly slack: WebClient,
    private readonly cacheMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  async teams(): Promise<TeamPolicy[]> {
    return (await this.teamsApi.list()).items.map(teamPolicy);
  }

  /** The person's display name (users.info), for messages outside Slack; undefined when Slack does not say. */
  async userName(user: string): Promise<string | undefined> {
    const profile = (await this.slack.users.info({ user }).catch(() => undefined))?.user;
    return profile?.profile?.display_name || profile?.name || undefined;
  }

  async userGroups(user: string): Promise<string[]> {
    if (!this.groups || this.now() - this.groups.at > this.cacheMs) {
      const response = await this.slack.usergroups.list({ include_users: true });
      const byUser = new Map<string, string[]>();
      for (const group of response.usergroups ?? []) {
        for (const member of group.users ?? []) byUser.set(member, [...(byUser.get(member) ?? []), group.id!]);
      }
      this.groups = { at: this.now(), byUser };
    }
    return this.groups.byUser.get(user) ?? [];
  }
}
