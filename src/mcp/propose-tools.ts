import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { RELEASE_ACTION_VERBS, type ReleaseActionVerb } from '../api/release-verbs.js';
import type { PlanStore } from '../session/execute/plan-store.js';
import type { TeamPolicy } from '../session/authz/policy-types.js';
import { assistantPorts, type AssistantAnswer } from '../session/flow/assistant-ports.js';
import { commandLine } from '../session/grammar/command-line.js';
import { renderPlan } from '../session/render/text.js';
import type { TokenRecord } from '../session/tokens/token-verdict.js';
import { callerPerson } from './caller.js';
import { announceProposal } from './announce.js';
import { guarded, type ToolAnswer } from './call-guard.js';
import type { McpDeps } from './mcp-deps.js';
import { clusterField, releaseFields } from './read-tools.js';
import { toolAnswerOf } from './session-answer.js';
import { UNTRUSTED_NOTE } from './untrusted.js';

/**
 * plan_diff shows what a verb would change (nothing stored); propose_change stores that plan as
 * awaiting the approval of another person. No tool approves, applies, unfreezes or deletes.
 */

const actionFields = {
  verb: z.enum(RELEASE_ACTION_VERBS as [ReleaseActionVerb, ...ReleaseActionVerb[]]).describe('the /release verb'),
  ...releaseFields,
  version: z.string().max(100).optional().describe('upgrade: the chart version'),
  revision: z.number().int().positive().optional().describe('rollback: the revision to go back to'),
  breakGlass: z.boolean().optional().describe('go through a freeze (a second person must approve anyway)'),
};
type ActionArgs = {
  verb: ReleaseActionVerb;
  namespace: string;
  name: string;
  version?: string;
  revision?: number;
  breakGlass?: boolean;
  reason?: string;
  cluster?: string;
};

export function registerProposeTools(server: McpServer, deps: McpDeps, caller: TokenRecord): void {
  // In a fleet a plan names its cluster (`--cluster`, as the read tools'): the session routes it and the Teams' per-cluster grants decide.
  const fields = deps.ownCluster ? { ...actionFields, cluster: clusterField.optional() } : actionFields;
  // The Teams once per call: the gate and the channels to tell read the same.
  let listed: Promise<TeamPolicy[]> | undefined;
  const teams = () => (listed ??= deps.teams());
  const runPlan = async (args: ActionArgs, mode: { kind: 'plan' } | { kind: 'propose'; plans: Pick<PlanStore, 'put'> }) => {
    listed = undefined;
    const answer: AssistantAnswer = { messages: [] };
    const line = commandLine(args.verb, {
      namespace: args.namespace,
      name: args.name,
      ...(args.version ? { version: args.version } : {}),
      ...(args.revision !== undefined ? { revision: args.revision } : {}),
      ...(args.reason ? { reason: args.reason } : {}),
      ...(args.breakGlass ? { breakGlass: true } : {}),
      ...(args.cluster && deps.ownCluster ? { cluster: args.cluster } : {}),
    });
    if (!line.ok) answer.messages.push({ kind: 'input', text: line.message });
    else await deps.session.run(line.line, assistantPorts(await callerPerson(deps, caller), teams, answer, mode));
    return answer;
  };

  server.registerTool(
    'plan_diff',
    {
      description: `What a verb on a release would change — the session's plan — without storing or changing anything. ${UNTRUSTED_NOTE}`,
      inputSchema: fields,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    guarded(deps, caller, 'plan_diff', 'read', async (args: ActionArgs) => {
      const answer = await runPlan(args, { kind: 'plan' });
      return toolAnswerOf(answer, answer.plan ? renderPlan(answer.plan) : undefined);
    }),
  );

  server.registerTool(
    'propose_change',
    {
      description:
        'Proposes a verb on a release for people to approve: stores its plan as awaiting approval by another authorized person ' +
        `(on the web at /plans/<id>, or in Slack) and changes nothing itself. You act as the token's person; they cannot approve it. ${UNTRUSTED_NOTE}`,
      inputSchema: { ...fields, reason: z.string().trim().min(3).max(500).describe('why, for the people who approve and the audit') },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    guarded(deps, caller, 'propose_change', 'propose', async (args: ActionArgs): Promise<ToolAnswer> => {
      const answer = await runPlan(args, { kind: 'propose', plans: deps.proposals });
      const shown = toolAnswerOf(answer, answer.plan ? renderPlan(answer.plan) : undefined);
      if (!answer.planId || !answer.plan)
        return shown.outcome === 'ok' ? { ...shown, outcome: 'refused', text: `Not proposed: nothing to do.\n${shown.text}` } : shown;
      const link = deps.webUrl ? `${deps.webUrl.replace(/\/$/, '')}/plans/${answer.planId}` : undefined;
      const needed = answer.approvalsNeeded ?? 1;
      const told = answer.action
        ? await announceProposal(
            deps,
            { planId: answer.planId, action: answer.action, requester: caller.user, needed, ...(link ? { link } : {}) },
            await teams(),
          )
        : [];
      return {
        outcome: 'ok',
        text: [
          `Proposed; waiting for ${needed === 1 ? "another person's approval" : `the approval of ${needed} other people`}. Plan id: ${answer.planId}.`,
          ...(link ? [`Approve at ${link}`] : []),
          told.length ? `Asked in Slack: ${told.join(', ')}.` : 'Not posted in Slack (no approving Team has a Slack channel here): share the link.',
          shown.text,
        ].join('\n'),
        structured: { planId: answer.planId, ...(link ? { url: link } : {}), approvalsNeeded: needed, slackChannels: told, lines: answer.plan.lines },
      };
    }),
  );
}
