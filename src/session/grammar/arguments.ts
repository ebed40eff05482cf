import { valid, validRange } from 'semver';
import type { ArgumentKind } from '../../api/release-verbs.js';
import type { ParseError, ReleaseRef, Scope } from './command.js';
import { closest } from './suggest.js';

/** Pure: one parser per kind of argument in the verb table, and what a missing one is called. */

export type Failure = { ok: false; error: ParseError };
export type Parsed<T> = { ok: true; value: T } | Failure;

export const fail = (code: ParseError['code'], message: string, suggestion?: string): Failure => ({
  ok: false,
  error: suggestion ? { code, message, suggestion } : { code, message },
});

const NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
const NAMESPACE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const CHART = /^[a-z0-9]([-a-z0-9_.]*[a-z0-9])?$/;
/** A cluster name or a glob of them (`prod-*`, `*-eu`, `*`; core/fleet/cluster-match.ts). */
const CLUSTER_GLOB = /^[a-z0-9*]([-a-z0-9*]*[a-z0-9*])?$/;

/** What "<verb> needs …" says when the argument is missing. */
export const NEEDS: Record<ArgumentKind, string> = {
  release: 'a release (name or namespace/name)',
  namespace: 'a namespace',
  version: 'a chart version',
  revision: 'a revision',
  scope: 'a scope: a namespace, team:<name>, chart:<name>, cluster:<name or glob> (a fleet) or "all"',
  'freeze-name': 'the name of a freeze (see "freezes")',
  verb: 'a verb',
  switch: '"on" or "off"',
};

/** Parses one word as `kind`; `verbs` are the table's verbs (for `help <verb>`). */
export function parseArgument(kind: ArgumentKind, word: string, verbs: readonly string[]): Parsed<unknown> {
  switch (kind) {
    case 'release':
      return parseRelease(word);
    case 'namespace':
      return parseNamespace(word);
    case 'version':
      return parseVersion(word);
    case 'revision':
      return parseRevision(word);
    case 'scope':
      return parseScope(word);
    case 'freeze-name':
      return parseFreezeName(word);
    case 'verb':
      return parseTopic(word, verbs);
    case 'switch':
      return parseSwitch(word);
  }
}

export function parseSwitch(word: string): Parsed<'on' | 'off'> {
  const text = word.toLowerCase();
  return text === 'on' || text === 'off' ? { ok: true, value: text } : fail('unexpected-argument', `"${show(word)}" is not "on" or "off"`);
}

export function parseRelease(word: string): Parsed<ReleaseRef> {
  const text = word.toLowerCase();
  const parts = text.split('/');
  const bad = () => fail('invalid-release', `"${show(word)}" is not a release; write name or namespace/name (lowercase letters, digits, "-" and ".")`);
  if (parts.length === 1) return NAME.test(text) && text.length <= 253 ? { ok: true, value: { name: text } } : bad();
  // cluster/namespace/name: the short form of --cluster.
  const cluster = parts.length === 3 ? parts.shift()! : undefined;
  if (parts.length !== 2) return bad();
  if (cluster !== undefined && !NAMESPACE.test(cluster)) return bad();
  const [namespace, name] = parts as [string, string];
  if (!NAMESPACE.test(namespace) || namespace.length > 63 || !NAME.test(name) || name.length > 253) return bad();
  return { ok: true, value: { namespace, name, ...(cluster !== undefined ? { cluster } : {}) } };
}

function parseNamespace(word: string): Parsed<string> {
  const text = word.toLowerCase();
  return NAMESPACE.test(text) && text.length <= 63
    ? { ok: true, value: text }
    : fail('invalid-namespace', `"${show(word)}" is not a namespace (lowercase letters, digits and "-", at most 63)`);
}

/** `all`, `team:<name>`, `chart:<name>`, `cluster:<name or glob>` (a fleet's clusters), or a namespace. */
export function parseScope(word: string): Parsed<Scope> {
  const text = word.toLowerCase();
  if (text === 'all') return { ok: true, value: { kind: 'all' } };
  const colon = text.indexOf(':');
  if (colon >= 0) {
    const [kind, name] = [text.slice(0, colon), text.slice(colon + 1)];
    if (kind === 'team' && NAME.test(name) && name.length <= 253) return { ok: true, value: { kind: 'team', team: name } };
    if (kind === 'chart' && CHART.test(name) && name.length <= 250) return { ok: true, value: { kind: 'chart', chart: name } };
    if (kind === 'cluster' || kind === 'clusters') {
      if (CLUSTER_GLOB.test(name) && name.length <= 63) return { ok: true, value: { kind: 'clusters', clusters: name } };
      return fail(
        'invalid-scope',
        `"${show(word)}" does not name clusters; write cluster:<name> or a glob like cluster:prod-* (lowercase letters, digits, "-" and "*")`,
      );
    }
    return fail('invalid-scope', `"${show(word)}" is not a scope; write a namespace, team:<name>, chart:<name>, cluster:<glob> or all`);
  }
  const namespace = parseNamespace(word);
  return namespace.ok ? { ok: true, value: { kind: 'namespace', namespace: namespace.value } } : namespace;
}

function parseVersion(word: string): Parsed<string> {
  if (word.length <= 100 && /^[0-9A-Za-z.^~*+<>=|-]+$/.test(word) && (valid(word) || validRange(word))) return { ok: true, value: word };
  return fail('invalid-version', `"${show(word)}" is not a chart version; write one like 2.0.0 or a range like 2.x`);
}

function parseRevision(word: string): Parsed<number> {
  const text = word.replace(/^(#|r|rev)/i, '');
  const revision = Number(text);
  if (/^[0-9]{1,9}$/.test(text) && revision >= 1) return { ok: true, value: revision };
  return fail('invalid-revision', `"${show(word)}" is not a revision; write a number like 3 (see "history")`);
}

function parseFreezeName(word: string): Parsed<string> {
  const name = word.toLowerCase();
  if (NAME.test(name) && name.length <= 253) return { ok: true, value: name };
  return fail('invalid-freeze-name', `"${show(word)}" is not a freeze name; "freezes" lists them (like prod-7f3a)`);
}

function parseTopic(word: string, verbs: readonly string[]): Parsed<string> {
  const topic = word.toLowerCase();
  if (verbs.includes(topic)) return { ok: true, value: topic };
  const suggestion = closest(topic, verbs);
  return fail('unknown-verb', `no help for "${show(word)}"${suggestion ? ` — did you mean "${suggestion}"?` : ''}`, suggestion);
}

/** Bad words are quoted back shortened; the transport escapes them for its medium. */
export function show(word: string): string {
  return word.length > 40 ? `${word.slice(0, 40)}…` : word;
}
