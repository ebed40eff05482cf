import { RELEASE_VERBS, type ReleaseActionVerb, type VerbRow } from '../../api/release-verbs.js';

/**
 * Pure: the `/release` line for a verb on one release, from a form's fields (the web's forms, an
 * assistant's tool call), so every surface goes through the one parser and session. Only what the
 * verb's row takes is written; the parser then checks it as it checks what a person types.
 */

export interface ActionFields {
  namespace: string;
  name: string;
  version?: string;
  revision?: number;
  reason?: string;
  /** A fleet's cluster other than the session's own. */
  cluster?: string;
  breakGlass?: boolean;
}

export type CommandLine = { ok: true; line: string } | { ok: false; message: string };

/** A word as the tokenizer reads it back: quoted when it has spaces, with the quote it does not contain. */
function word(text: string): string | undefined {
  if (!/[\s"']/.test(text)) return text;
  if (!text.includes('"')) return `"${text}"`;
  if (!text.includes("'")) return `'${text}'`;
  return undefined;
}

/** Kubernetes object names (and fleet cluster names): nothing that could read as another word or flag. */
const OBJECT_NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

export function commandLine(verb: ReleaseActionVerb, fields: ActionFields): CommandLine {
  for (const [what, value] of [['namespace', fields.namespace], ['name', fields.name], ...(fields.cluster ? [['cluster', fields.cluster]] : [])] as const)
    if (!OBJECT_NAME.test(value)) return { ok: false, message: `"${value.slice(0, 80)}" is not a ${what}` };
  const row = RELEASE_VERBS[verb] as VerbRow;
  const flags = row.flags as readonly string[];
  const parts: string[] = [verb, `${fields.namespace}/${fields.name}`];
  for (const arg of row.args.slice(1)) {
    const value = arg.kind === 'version' ? fields.version : arg.kind === 'revision' ? fields.revision : undefined;
    if (value === undefined || value === '') continue;
    const text = word(String(value));
    if (text === undefined) return { ok: false, message: `${arg.field} may not hold both kinds of quote` };
    parts.push(...(arg.after ? [arg.after, text] : [text]));
  }
  if (fields.reason?.trim()) {
    if (row.reason === 'none') return { ok: false, message: `${verb} takes no reason` };
    const text = word(fields.reason.trim());
    if (text === undefined) return { ok: false, message: 'a reason may not hold both kinds of quote (" and \')' };
    parts.push('--reason', text);
  }
  if (fields.breakGlass) {
    if (!flags.includes('--break-glass')) return { ok: false, message: `${verb} takes no --break-glass` };
    parts.push('--break-glass');
  }
  if (fields.cluster) {
    if (!flags.includes('--cluster')) return { ok: false, message: `${verb} takes no --cluster` };
    parts.push('--cluster', fields.cluster);
  }
  return { ok: true, line: parts.join(' ') };
}

/** A freeze's scope as /release writes it: a namespace, team:<name>, chart:<name>, cluster:<glob> or all. */
const SCOPE = /^(all|[a-z0-9]([-a-z0-9]*[a-z0-9])?|(team|chart):[a-z0-9]([-a-z0-9._]*[a-z0-9])?|cluster:[a-z0-9*?]([-a-z0-9*?]*[a-z0-9*?])?)$/;

/** Pure: the `freeze` line from a form (scope, reason, and --for or --until), for the one parser to read back. */
export function freezeLine(fields: { scope: string; reason: string; for?: string; until?: string }): CommandLine {
  if (!SCOPE.test(fields.scope))
    return { ok: false, message: `"${fields.scope.slice(0, 80)}" is not a scope (a namespace, team:<name>, chart:<name>, cluster:<glob> or all)` };
  const reason = word(fields.reason.trim());
  if (!fields.reason.trim()) return { ok: false, message: 'a freeze says why: give a reason' };
  if (reason === undefined) return { ok: false, message: 'a reason may not hold both kinds of quote (" and \')' };
  const end = fields.for?.trim() ? ['--for', word(fields.for.trim())] : fields.until?.trim() ? ['--until', word(fields.until.trim())] : [];
  if (end.includes(undefined)) return { ok: false, message: 'an end may not hold both kinds of quote' };
  return { ok: true, line: ['freeze', fields.scope, '--reason', reason, ...end].join(' ') };
}

/** Pure: the `unfreeze` line for a Freeze by name. */
export function unfreezeLine(name: string, reason?: string): CommandLine {
  if (!OBJECT_NAME.test(name)) return { ok: false, message: `"${name.slice(0, 80)}" is not a freeze name` };
  const why = reason?.trim() ? word(reason.trim()) : undefined;
  if (reason?.trim() && why === undefined) return { ok: false, message: 'a reason may not hold both kinds of quote (" and \')' };
  return { ok: true, line: ['unfreeze', name, ...(why ? ['--reason', why] : [])].join(' ') };
}
