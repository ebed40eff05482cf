import { inspect } from 'node:util';
import { isPlainObject } from '../../core/release/values.js';

/**
 * Values that came from Secrets, to be kept out of every message helmcrew writes (status,
 * Events, logs, notifications). helm and the API server quote offending values in their errors,
 * so their output is redacted before it is used anywhere.
 *
 * Only strings of at least MIN_SECRET_LENGTH characters are redacted: shorter ones ("1", "on",
 * "80", "true") occur all over helm's messages and redacting them would garble every message,
 * while a secret that short is no secret (a few thousand guesses). Numbers count by their text.
 */
export const MIN_SECRET_LENGTH = 4;
export const REDACTED = '[redacted]';

/** The secret strings of one resolved release. Never serialized: JSON and inspect show no content. */
export class SecretValues {
  private readonly strings = new Set<string>();

  /** Adds the raw text of a Secret key and every leaf of its parsed values. */
  addSource(rawText: string, parsed: unknown): void {
    this.add(rawText);
    for (const leaf of leaves(parsed)) this.add(leaf);
  }

  add(text: string): void {
    // helm's stderr excerpt is trimmed and joined line by line, so each line is a secret too.
    for (const piece of [text, ...text.split(/\r?\n/)].map((s) => s.trim())) {
      if (piece.length >= MIN_SECRET_LENGTH) this.strings.add(piece);
    }
  }

  get size(): number {
    return this.strings.size;
  }

  list(): string[] {
    return [...this.strings];
  }

  toJSON(): string {
    return `[${this.strings.size} secret values]`;
  }

  [inspect.custom](): string {
    return this.toJSON();
  }
}

function leaves(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (typeof value === 'number' || typeof value === 'bigint') return [String(value)];
  if (Array.isArray(value)) return value.flatMap(leaves);
  if (isPlainObject(value)) return Object.values(value).flatMap(leaves);
  return [];
}

/**
 * The spellings a value can take in helm's and the API server's output: as is, JSON- or
 * Go-quoted (escaped quotes, backslashes, \n), Go's HTML-safe JSON (\u003c for <), and quoted
 * twice (a JSON document inside an error string).
 */
export function secretSpellings(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  const htmlSafe = json.replace(/[<>&\u2028\u2029]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const twice = JSON.stringify(json).slice(1, -1);
  const twiceHtmlSafe = JSON.stringify(htmlSafe).slice(1, -1);
  return [...new Set([secret, json, htmlSafe, twice, twiceHtmlSafe])];
}

/**
 * Replaces every spelling of every secret in `text` with [redacted], in one pass (so the marker
 * itself is never rescanned) preferring the longest match (so no part of a longer secret is left).
 */
export function redactSecrets(text: string, secrets: SecretValues | readonly string[] | undefined): string {
  const list = secrets instanceof SecretValues ? secrets.list() : (secrets ?? []);
  if (list.length === 0 || text.length === 0) return text;
  // helm's stderr excerpt trims lines and joins them with spaces, so each line counts alone too.
  const pieces = list.flatMap((s) => [s, ...s.split(/\r?\n/).map((line) => line.trim())]);
  const spellings = [...new Set(pieces.filter((s) => s.length >= MIN_SECRET_LENGTH).flatMap(secretSpellings))].sort((a, b) => b.length - a.length);
  if (spellings.length === 0) return text;
  const pattern = new RegExp(spellings.map(escapeRegExp).join('|'), 'g');
  return text.replace(pattern, REDACTED);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
