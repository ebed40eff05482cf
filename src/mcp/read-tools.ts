import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { assistantPorts, type AssistantAnswer } from '../session/flow/assistant-ports.js';
import type { TokenRecord } from '../session/tokens/token-verdict.js';
import { callerPerson } from './caller.js';
import { guarded } from './call-guard.js';
import type { McpDeps } from './mcp-deps.js';
import { toolAnswerOf } from './session-answer.js';
import { UNTRUSTED_NOTE, untrusted } from './untrusted.js';

/**
 * The read-only tools: each runs a `/release` query through the one session as the token's
 * person (their Teams decide what they may see) and changes nothing.
 */

const OBJECT_NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;
export const namespaceField = z.string().regex(OBJECT_NAME, 'a Kubernetes namespace name').describe('the namespace');
export const releaseFields = {
  namespace: namespaceField,
  name: z.string().regex(OBJECT_NAME, 'a HelmRelease name').describe("the HelmRelease's name"),
};
/** A fleet's cluster (`all` for a listing of every cluster): offered only when the server drives a fleet. */
export const clusterField = z
  .string()
  .regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, 'a fleet cluster name')
  .describe("the fleet's cluster (default: this server's own)");
const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

/** Pure: list lines kept by a state filter (the list's `ready=` and `suspended` marks). */
export function filterByState(listing: string, state: 'ready' | 'failed' | 'unknown' | 'suspended' | undefined): string {
  if (!state) return listing;
  const keep = (line: string) =>
    state === 'suspended' ? / suspended$/.test(line) : line.includes(`ready=${state === 'ready' ? 'True' : state === 'failed' ? 'False' : 'Unknown'}`);
  const lines = listing.split('\n').filter(keep);
  return lines.length > 0 ? lines.join('\n') : `no ${state} releases`;
}

export function registerReadTools(server: McpServer, deps: McpDeps, caller: TokenRecord): void {
  // In a fleet each tool takes a `cluster`: the session routes it as `--cluster` in Slack, under the same per-cluster Team grants.
  const inFleet: Record<string, z.ZodOptional<z.ZodString>> = deps.ownCluster ? { cluster: clusterField.optional() } : {};
  /** Another cluster of the fleet than this server's: what is read only here (NOTES, failure details) is not read for it. */
  const elsewhere = (cluster: string | undefined) => cluster !== undefined && cluster !== deps.ownCluster;
  const query = async (command: string, cluster?: string): Promise<AssistantAnswer> => {
    const line = cluster ? `${command} --cluster ${cluster}` : command;
    const answer: AssistantAnswer = { messages: [] };
    await deps.session.run(
      line,
      assistantPorts(await callerPerson(deps, caller), () => deps.teams(), answer, { kind: 'read' }),
    );
    return answer;
  };
  server.registerTool(
    'list_releases',
    {
      description: `The HelmReleases you may see, with chart version and readiness. ${UNTRUSTED_NOTE}`,
      inputSchema: {
        namespace: namespaceField.optional(),
        state: z.enum(['ready', 'failed', 'unknown', 'suspended']).optional().describe('only releases in this state'),
        ...inFleet,
      },
      annotations: READ,
    },
    guarded(
      deps,
      caller,
      'list_releases',
      'read',
      async (args: { namespace?: string; state?: 'ready' | 'failed' | 'unknown' | 'suspended'; cluster?: string }) => {
        const answer = await query(args.namespace ? `list ${args.namespace}` : 'list', args.cluster);
        for (const m of answer.messages) if (m.kind === 'answer') m.text = filterByState(m.text, args.state);
        return toolAnswerOf(answer);
      },
    ),
  );
  server.registerTool(
    'release_status',
    {
      description: `A release's declared chart, latest revision, conditions, and the NOTES its chart printed for the newest revision. ${UNTRUSTED_NOTE}`,
      inputSchema: { ...releaseFields, ...inFleet },
      annotations: READ,
    },
    guarded(deps, caller, 'release_status', 'read', async (args: { namespace: string; name: string; cluster?: string }) => {
      const base = toolAnswerOf(await query(`status ${args.namespace}/${args.name}`, args.cluster));
      // Only once the person may see the release (the status query was allowed): the chart's NOTES, which the chart's author wrote.
      if (base.outcome !== 'ok' || !deps.releaseNotes || elsewhere(args.cluster)) return base;
      const held = await deps.releaseNotes(args.namespace, args.name);
      if (!held) return base;
      return { ...base, text: `${base.text}\nNOTES of revision ${held.revision}:\n${untrusted(held.notes ?? 'none')}` };
    }),
  );
  server.registerTool(
    'release_history',
    {
      description: `A release's Helm revisions, newest first (status, chart and app version, when), and who asked for what and why. ${UNTRUSTED_NOTE}`,
      inputSchema: { ...releaseFields, ...inFleet },
      annotations: READ,
    },
    guarded(deps, caller, 'release_history', 'read', async (args: { namespace: string; name: string; cluster?: string }) => {
      const base = toolAnswerOf(await query(`history ${args.namespace}/${args.name}`, args.cluster));
      // Only once the person may see the release (the history query was allowed): the people's actions on it (another cluster's from its agent).
      if (base.outcome !== 'ok' || !deps.actions) return base;
      const actions = (await deps.actions(args.namespace, args.name, elsewhere(args.cluster) ? args.cluster : undefined)).slice(0, 20);
      return {
        ...base,
        text: `${base.text}
who asked for what, newest first:
${untrusted(actions.join('\n') || 'none')}`,
      };
    }),
  );
  server.registerTool(
    'list_freezes',
    { description: `Active and coming Freezes: scope, who set them, why, until when. ${UNTRUSTED_NOTE}`, inputSchema: { ...inFleet }, annotations: READ },
    guarded(deps, caller, 'list_freezes', 'read', async (args: { cluster?: string }) => toolAnswerOf(await query('freezes', args.cluster))),
  );
  server.registerTool(
    'list_proposals',
    {
      description: `Open proposals (new images, chart versions, promotions) waiting for approval. ${UNTRUSTED_NOTE}`,
      inputSchema: { namespace: namespaceField.optional(), ...inFleet },
      annotations: READ,
    },
    guarded(deps, caller, 'list_proposals', 'read', async (args: { namespace?: string; cluster?: string }) =>
      toolAnswerOf(await query(args.namespace ? `proposals ${args.namespace}` : 'proposals', args.cluster)),
    ),
  );
  server.registerTool(
    'explain_failure',
    {
      description: `Why a release is failing: its conditions, recent Events and the last helm errors (bounded). ${UNTRUSTED_NOTE}`,
      inputSchema: { ...releaseFields, ...inFleet },
      annotations: READ,
    },
    guarded(deps, caller, 'explain_failure', 'read', async (args: { namespace: string; name: string; cluster?: string }) => {
      const answer = await query(`status ${args.namespace}/${args.name}`, args.cluster);
      const base = toolAnswerOf(answer);
      if (base.outcome === 'ok' && elsewhere(args.cluster))
        return {
          ...base,
          text: `${base.text}\n(cluster ${args.cluster ?? ''}'s Events and helm errors are not served through the fleet: its conditions above say why)`,
        };
      // Only once the person may see the release (the status query was allowed): its Events and helm errors.
      if (base.outcome !== 'ok' || !deps.failureDetails) return base;
      const details = (await deps.failureDetails(args.namespace, args.name)).slice(0, 20);
      return { ...base, text: `${base.text}\nrecent Events and helm errors, newest first:\n${untrusted(details.join('\n') || 'none')}` };
    }),
  );
}
