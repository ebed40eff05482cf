// Which of a repository's tags an image update wants (Flux's ImagePolicy, in the shape of
// spec.imageUpdates[].policy): the highest tag in a semver range, or the highest value a pattern
// extracts from the tags it matches, ordered as numbers or as text. Pure: the registry's tag list in,
// the choice (or why there is none) out.
import semver from 'semver';

export type TagPolicy = { semver: string } | { pattern: string; extract?: string; order?: 'numerical' | 'alphabetical' };

export type TagChoice = { kind: 'chosen'; tag: string; consideredTags: number } | { kind: 'none'; why: string } | { kind: 'invalid'; why: string };

/** Picks the tag `policy` wants from `tags` (in any order); `invalid` when the policy itself is wrong. */
export function chooseTag(policy: TagPolicy, tags: readonly string[]): TagChoice {
  return 'semver' in policy ? chooseBySemver(policy.semver, tags) : chooseByPattern(policy, tags);
}

function chooseBySemver(range: string, tags: readonly string[]): TagChoice {
  if (semver.validRange(range) === null) return { kind: 'invalid', why: `policy.semver "${range}" is not a semver range` };
  // Tags that are not versions (latest, main-123) are not candidates; a leading v is allowed (v1.2.3).
  const versions = tags.flatMap((tag) => {
    const version = semver.parse(tag, { loose: true });
    return version ? [{ tag, version }] : [];
  });
  const inRange = versions.filter(({ version }) => semver.satisfies(version, range));
  if (inRange.length === 0) return { kind: 'none', why: `no tag in range ${range} among ${tags.length} tags (${versions.length} are versions)` };
  // Equal versions written differently (1.2.3 and v1.2.3): the plain form wins, then text order, so the choice never depends on the registry's order.
  inRange.sort((a, b) => semver.compare(b.version, a.version) || Number(a.tag.startsWith('v')) - Number(b.tag.startsWith('v')) || a.tag.localeCompare(b.tag));
  return { kind: 'chosen', tag: inRange[0]!.tag, consideredTags: inRange.length };
}

function chooseByPattern(policy: { pattern: string; extract?: string; order?: 'numerical' | 'alphabetical' }, tags: readonly string[]): TagChoice {
  const compiled = compilePattern(policy.pattern);
  if (typeof compiled === 'string') return { kind: 'invalid', why: compiled };
  const order = policy.order ?? 'alphabetical';
  const candidates: Array<{ tag: string; key: string }> = [];
  for (const tag of tags) {
    const match = compiled.exec(tag);
    if (!match) continue;
    const key = policy.extract ? expand(policy.extract, match) : tag;
    if (order === 'numerical' && !/^-?\d+(\.\d+)?$/.test(key)) continue;
    candidates.push({ tag, key });
  }
  if (candidates.length === 0)
    return { kind: 'none', why: `no tag matches ${policy.pattern}${order === 'numerical' ? ' with a number to order by' : ''} among ${tags.length} tags` };
  const compare = order === 'numerical' ? (a: string, b: string) => Number(b) - Number(a) : (a: string, b: string) => (a < b ? 1 : a > b ? -1 : 0);
  candidates.sort((a, b) => compare(a.key, b.key) || (a.tag < b.tag ? 1 : a.tag > b.tag ? -1 : 0));
  return { kind: 'chosen', tag: candidates[0]!.tag, consideredTags: candidates.length };
}

/** Flux's patterns are Go regular expressions: `(?P<name>…)` is JavaScript's `(?<name>…)`. The error, when it does not compile. */
export function compilePattern(pattern: string): RegExp | string {
  try {
    return new RegExp(pattern.replace(/\(\?P</g, '(?<'));
  } catch (error) {
    return `policy.pattern ${JSON.stringify(pattern)} is not a regular expression: ${(error as Error).message}`;
  }
}

/** `$ts`, `${ts}` and `$1` in `template` from the match, as Go's Regexp.Expand does. */
function expand(template: string, match: RegExpExecArray): string {
  return template.replace(/\$(?:\{(\w+)\}|(\w+))/g, (_, braced: string | undefined, bare: string | undefined) => {
    const name = (braced ?? bare)!;
    const value = /^\d+$/.test(name) ? match[Number(name)] : match.groups?.[name];
    return value ?? '';
  });
}
