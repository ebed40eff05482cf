import { maxSatisfying, valid, validRange } from 'semver';
import type { GitRef } from '../../../api/helmrelease.js';

/**
 * Pure: `git ls-remote` output as refs, and the commit a `spec.chart.git.ref` picks from them.
 * Annotated tags are followed to their commit (the `^{}` lines).
 */

export type RemoteRefs = ReadonlyMap<string, string>;

export function parseLsRemote(output: string): Map<string, string> {
  const refs = new Map<string, string>();
  const peeled = new Map<string, string>();
  for (const line of output.split('\n')) {
    const match = /^([0-9a-f]{40})\t(\S+)$/.exec(line.trim());
    if (!match) continue;
    const [, sha, name] = match as unknown as [string, string, string];
    if (name.endsWith('^{}')) peeled.set(name.slice(0, -3), sha);
    else refs.set(name, sha);
  }
  for (const [name, sha] of peeled) refs.set(name, sha);
  return refs;
}

/** `tag`: the tag's name when the ref is a tag (ref.tag, ref.semver, ref.name refs/tags/…): what git.verify mode Tag checks. */
export type PickedCommit = { ok: true; commit: string; ref: string; tag?: string } | { ok: false; problem: string };

export function pickCommit(refs: RemoteRefs, ref: GitRef | undefined): PickedCommit {
  if (ref?.commit) return { ok: true, commit: ref.commit, ref: `commit ${ref.commit.slice(0, 7)}` };
  if (ref?.branch) return found(refs.get(`refs/heads/${ref.branch}`), `branch ${ref.branch}`);
  if (ref?.tag) return found(refs.get(`refs/tags/${ref.tag}`), `tag ${ref.tag}`, ref.tag);
  if (ref?.semver) return newestTag(refs, ref.semver);
  if (ref?.name) return found(refs.get(ref.name), ref.name, ref.name.startsWith('refs/tags/') ? ref.name.slice('refs/tags/'.length) : undefined);
  return found(refs.get('HEAD'), 'HEAD (the default branch)');
}

function found(commit: string | undefined, what: string, tag?: string): PickedCommit {
  return commit ? { ok: true, commit, ref: what, ...(tag ? { tag } : {}) } : { ok: false, problem: `has no ${what}` };
}

function newestTag(refs: RemoteRefs, range: string): PickedCommit {
  if (!validRange(range)) return { ok: false, problem: `: "${range}" is not a valid semver range (spec.chart.git.ref.semver)` };
  // v1.2.0 and 1.2.0 both count; a tag that is not a version is ignored.
  const byVersion = new Map<string, string>();
  for (const name of refs.keys()) {
    if (!name.startsWith('refs/tags/')) continue;
    const tag = name.slice('refs/tags/'.length);
    const version = valid(tag);
    if (version && !byVersion.has(version)) byVersion.set(version, tag);
  }
  const newest = maxSatisfying([...byVersion.keys()], range);
  if (!newest) return { ok: false, problem: `has no tag matching ${range}` };
  const tag = byVersion.get(newest)!;
  return { ok: true, commit: refs.get(`refs/tags/${tag}`)!, ref: `tag ${tag}`, tag };
}
