/** Slack user ids: U… or W… (Enterprise Grid), upper-case letters and digits. */
const USER_ID = /^[UW][A-Z0-9]{2,20}$/;

export function isSlackUserId(id: string): boolean {
  return USER_ID.test(id);
}

/** Pure: `<@U0123>`, which Slack shows as the person's name; undefined for anything that is not a user id. */
export function userMention(id: string): string | undefined {
  return isSlackUserId(id) ? `<@${id}>` : undefined;
}

/** Pure: the Slack user id in an actor id (`slack:U0123`), or undefined. */
export function slackUserOf(actorId: string): string | undefined {
  const id = actorId.startsWith('slack:') ? actorId.slice('slack:'.length) : '';
  return isSlackUserId(id) ? id : undefined;
}
