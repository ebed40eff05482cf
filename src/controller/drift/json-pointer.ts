/** RFC 6901 JSON pointers over plain JSON values: parse, read, write, remove. Pure. */

export function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new Error(`"${pointer}" is not a JSON pointer (it must start with /)`);
  return pointer
    .slice(1)
    .split('/')
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
}

export function formatPointer(tokens: readonly (string | number)[]): string {
  return tokens.map((token) => `/${String(token).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

function child(value: unknown, token: string): unknown {
  if (Array.isArray(value)) return /^(0|[1-9][0-9]*)$/.test(token) ? value[Number(token)] : undefined;
  if (value && typeof value === 'object' && Object.hasOwn(value, token)) return (value as Record<string, unknown>)[token];
  return undefined;
}

/** The value at `tokens`, or undefined when any step is missing. */
export function getAt(value: unknown, tokens: readonly string[]): unknown {
  let current = value;
  for (const token of tokens) {
    current = child(current, token);
    if (current === undefined) return undefined;
  }
  return current;
}

/** Deletes the value at `tokens` in place (an array element is spliced out); nothing when missing. */
export function removeAt(value: unknown, tokens: readonly string[]): void {
  if (tokens.length === 0) return;
  const parent = getAt(value, tokens.slice(0, -1));
  const last = tokens[tokens.length - 1]!;
  if (Array.isArray(parent)) {
    if (/^(0|[1-9][0-9]*)$/.test(last) && Number(last) < parent.length) parent.splice(Number(last), 1);
  } else if (parent && typeof parent === 'object' && Object.hasOwn(parent, last)) {
    delete (parent as Record<string, unknown>)[last];
  }
}

/** Sets the value at `tokens` in place when its parent exists; says whether it did. */
export function setAt(value: unknown, tokens: readonly string[], replacement: unknown): boolean {
  if (tokens.length === 0) return false;
  const parent = getAt(value, tokens.slice(0, -1));
  const last = tokens[tokens.length - 1]!;
  if (Array.isArray(parent)) {
    if (!/^(0|[1-9][0-9]*)$/.test(last) || Number(last) >= parent.length) return false;
    parent[Number(last)] = replacement;
    return true;
  }
  if (!parent || typeof parent !== 'object') return false;
  (parent as Record<string, unknown>)[last] = replacement;
  return true;
}
