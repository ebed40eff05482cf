import type { AssistantPerson } from '../session/flow/assistant-ports.js';
import { tokenPerson, type TokenRecord } from '../session/tokens/token-verdict.js';
import type { McpDeps } from './mcp-deps.js';

/**
 * The token's person for one call. A Slack user's user groups are Slack's to say and change there,
 * so they are read now (through the bot's short cache), as the web's sign-in hook reads them on every
 * request: a Team naming a user group means the same to a person's assistant as to the person.
 */
export async function callerPerson(deps: Pick<McpDeps, 'slackUserGroups'>, caller: TokenRecord): Promise<AssistantPerson> {
  const person = tokenPerson(caller);
  const user = person.subject.slackUser;
  if (!user || !deps.slackUserGroups) return person;
  return { ...person, subject: { ...person.subject, slackUserGroups: await deps.slackUserGroups(user) } };
}
