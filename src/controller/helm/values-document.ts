/**
 * The values document helm is given. helm reads values files with a YAML 1.1 parser, so the
 * document is JSON: every string is double-quoted and keeps its type ("on", "n", "1_000", "0b11"
 * stay strings) and every key stays the text it was. A few characters that JSON leaves raw are
 * not printable for YAML and are escaped as \uXXXX (helm 4.2.4 checked):
 * - U+0085 (NEL) raw is folded into a space; U+2028/U+2029 are YAML 1.1 line breaks;
 * - U+007F and the C1 controls U+0080–U+009F, U+FFFE and U+FFFF are refused outright
 *   ("control characters are not allowed");
 * - U+FEFF (byte-order mark) is escaped too, so the document never starts a string with one raw.
 * Escaped, each arrives unchanged. JSON.stringify already escapes U+0000–U+001F.
 */
const NOT_PRINTABLE_FOR_YAML = /[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/g;

export function helmValuesDocument(values: Record<string, unknown>): string {
  return JSON.stringify(values).replace(NOT_PRINTABLE_FOR_YAML, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
