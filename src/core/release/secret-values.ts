import { inspect } from 'node:util';
import { isPlainObject } from './values.js';

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
