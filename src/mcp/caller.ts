import type { AssistantPerson } from '../session/flow/assistant-ports.js';
import { tokenPerson, type TokenRecord } from '../session/tokens/token-verdict.js';
import type { McpDeps } from './mcp-deps.js';

/**
 * The token's person for one call. A Slack user's user groups and profile email are Slack's to say
 * and change there, so they are read now (through short caches), as the web's sign-in hook reads them
 * on every request: a Team naming a user group or an email means the same to a person's assistant as
 * to the person. A person of the web's OIDC provider is who their token says (email and groups as
 * the web saw them at sign-in).
 */
export async function callerPerson(deps: Pick<McpDeps, 'slackUserGroups' | 'subjectOf'>, caller: TokenRecord): Promise<AssistantPerson> {
  const person = tokenPerson(caller);
  const user = person.subject.slackUser;
  if (!user) return person;
  if (deps.subjectOf) return { ...person, subject: { ...person.subject, ...(await deps.subjectOf(user)) } };
  if (!deps.slackUserGroups) return person;
  return { ...person, subject: { ...person.subject, slackUserGroups: await deps.slackUserGroups(user) } };
}
