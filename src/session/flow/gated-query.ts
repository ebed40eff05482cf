import type { ReleaseRef } from '../../core/links/release-url.js';
import { findRelease, readOnce } from '../execute/find-release.js';
import { runQuery, type QueryCommand } from '../execute/queries.js';
import type { Gate } from './ports.js';

/**
 * A query as the session runs it: the gate, then the answer. They read the release once between
 * them (readOnce), so the answer shows the release that was authorized; an answer about one release
 * says which (`about`, from the same read), so a surface can link to its page.
 */
export async function gatedQuery(
  command: QueryCommand,
  gate: Gate,
  deps: Parameters<typeof runQuery>[1],
  now: Date,
): Promise<{ refused: string } | { answer: string; about?: ReleaseRef }> {
  const api = readOnce(deps.api);
  const refused = await gate.query(command, api);
  if (refused) return { refused };
  const answer = await runQuery(command, { ...deps, api }, now);
  if (!('release' in command)) return { answer };
  const found = await findRelease(api, command.release);
  return found.ok ? { answer, about: { namespace: found.release.metadata.namespace, name: found.release.metadata.name } } : { answer };
}
