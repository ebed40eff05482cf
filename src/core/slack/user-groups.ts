/**
 * Which Slack user groups (S…) a user is in, as Slack says (usergroups.list with its users), kept
 * briefly: the one reading the bot and the web pages' Sign in with Slack share, so a Team's
 * `slackUserGroups` means the same on every surface.
 */

/** The one Web API call it makes (a @slack/web-api WebClient has it). */
export interface UserGroupsClient {
  usergroups: {
    list(args: { include_users: boolean }): Promise<{ usergroups?: Array<{ id?: string; users?: string[] }> }>;
  };
}

export class SlackUserGroups {
  private groups?: { at: number; byUser: Map<string, string[]> };

  constructor(
    private readonly slack: UserGroupsClient,
    private readonly cacheMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  async of(user: string): Promise<string[]> {
    if (!this.groups || this.now() - this.groups.at > this.cacheMs) {
      const response = await this.slack.usergroups.list({ include_users: true });
      const byUser = new Map<string, string[]>();
      for (const group of response.usergroups ?? []) {
        if (!group.id) continue;
        for (const member of group.users ?? []) byUser.set(member, [...(byUser.get(member) ?? []), group.id]);
      }
      this.groups = { at: this.now(), byUser };
    }
    return this.groups.byUser.get(user) ?? [];
  }
}
