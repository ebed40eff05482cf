import type { Subject } from './policy-types.js';

/** Where a Slack person's user groups and profile email are read (core/slack: SlackUserGroups, SlackUserEmails, both cached). */
export interface SlackDirectory {
  userGroups(user: string): Promise<string[]>;
  email?(user: string): Promise<string | undefined>;
}

/**
 * A Slack user as the Teams match them: their id, the user groups Slack says they are in and their
 * profile email — the same reading as chat's, for a person who acts through an assistant's token.
 * When Slack cannot be asked, the id alone (fewer rights, never more) and the failure is reported.
 */
export async function slackSubject(user: string, directory: SlackDirectory, onError: (error: Error) => void): Promise<Subject> {
  const [groups, email] = await Promise.all([
    directory.userGroups(user).catch((error: Error) => (onError(error), [] as string[])),
    directory.email ? directory.email(user).catch((error: Error) => (onError(error), undefined)) : undefined,
  ]);
  return { slackUser: user, slackUserGroups: groups, ...(email ? { email } : {}) };
}
