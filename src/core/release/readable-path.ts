import { isPlainObject } from './values.js';

/**
 * Pure: field paths as a person writes them — `metadata.labels["app.kubernetes.io/version"]`,
 * `data["index.html"]`, `spec.template.spec.containers[name=web].image` — instead of JSON
 * pointers (`/metadata/labels/app.kubernetes.io~1version`).
 */

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** A list item's name usable in `[name=…]`: nothing that would make the path ambiguous. */
const ITEM_NAME = /^[A-Za-z0-9_.:/-]+$/;

/** `.key` for an identifier-like key, `["key"]` (JSON-quoted) for any other. */
export function keySegment(key: string): string {
  return IDENTIFIER.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

export function indexSegment(index: number): string {
  return `[${index}]`;
}

export function nameSegment(name: string): string {
  return `[name=${name}]`;
}

/** Segments joined into a path (no leading dot); the root is `(whole object)`. */
export function joinPath(segments: readonly string[]): string {
  const path = segments.join('');
  return path.startsWith('.') ? path.slice(1) : path || '(whole object)';
}

/**
 * The names of a list's items when every item is an object with a distinct, plain `name`
 * (containers, ports, env, volumes): such lists are compared item by name, so inserting one
 * container does not show every later one as changed. undefined: compare by index.
 */
export function itemNames(items: readonly unknown[]): string[] | undefined {
  const names = items.map((item) => (isPlainObject(item) && typeof item.name === 'string' && ITEM_NAME.test(item.name) ? item.name : undefined));
  if (names.length === 0 || names.some((name) => name === undefined)) return undefined;
  return new Set(names).size === names.length ? (names as string[]) : undefined;
}
