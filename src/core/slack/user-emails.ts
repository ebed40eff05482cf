/**
 * A Slack user's profile email (users.info; Slack gives it with the users:read.email scope), kept
 * briefly per user: a Team's `emails` then match the Slack person behind an assistant's token as
 * they match a web sign-in. No answer (no scope, no such user, Slack down) is no email.
 */

/** The one Web API call it makes (a @slack/web-api WebClient has it). */
export interface UsersInfoClient {
  users: { info(args: { user: string }): Promise<{ user?: { profile?: { email?: string } } }> };
}

export class SlackUserEmails {
  private readonly known = new Map<string, { at: number; email: string | undefined }>();

  constructor(
    private readonly slack: UsersInfoClient,
    private readonly cacheMs = 300_000,
    private readonly now: () => number = Date.now,
    /** At most this many people remembered (the oldest forgotten first). */
    private readonly max = 5_000,
  ) {}

  async of(user: string): Promise<string | undefined> {
    const kept = this.known.get(user);
    if (kept && this.now() - kept.at <= this.cacheMs) return kept.email;
    const email = (await this.slack.users.info({ user }).catch(() => undefined))?.user?.profile?.email || undefined;
    this.known.delete(user);
    this.known.set(user, { at: this.now(), email });
    if (this.known.size > this.max) this.known.delete(this.known.keys().next().value!);
    return email;
  }
}
