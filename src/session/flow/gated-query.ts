import { readOnce } from '../execute/find-release.js';
import { runQuery, type QueryCommand } from '../execute/queries.js';
import type { Gate } from './ports.js';

/**
 * A query as the session runs it: the gate, then the answer. They read the release once between
 * them (readOnce), so the answer shows the release that was authorized.
 */
export async function gatedQuery(
  command: QueryCommand,
  gate: Gate,
  deps: Parameters<typeof runQuery>[1],
  now: Date,
): Promise<{ refused: string } | { answer: string }> {
  const api = readOnce(deps.api);
  const refused = await gate.query(command, api);
  return refused ? { refused } : { answer: await runQuery(command, { ...deps, api }, now) };
}
