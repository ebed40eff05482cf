import { MIN_SECRET_LENGTH, SecretValues } from '../../../core/release/secret-values.js';

/**
 * Redaction of a release's Secret values (core/release/secret-values.ts) from every message
 * helmcrew writes: helm and the API server quote offending values in their errors, so their
 * output is redacted before it is used anywhere.
 */
export const REDACTED = '[redacted]';

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
