/**
 * Splits a normalized line into words. A quote opens a quoted word only at the start of a word,
 * so `it's broken` stays two plain words while `"db is down"` is one. No escapes, no expansion:
 * the words are data, never run by a shell.
 */

export interface Token {
  text: string;
  quoted: boolean;
}

export type TokenizeResult = { ok: true; tokens: Token[] } | { ok: false; quote: string };

export function tokenize(line: string): TokenizeResult {
  const tokens: Token[] = [];
  let i = 0;
  while (i < line.length) {
    if (line[i] === ' ') {
      i++;
      continue;
    }
    const quote = line[i];
    if (quote === '"' || quote === "'") {
      const end = line.indexOf(quote, i + 1);
      if (end < 0) return { ok: false, quote };
      tokens.push({ text: line.slice(i + 1, end), quoted: true });
      i = end + 1;
      continue;
    }
    let end = line.indexOf(' ', i);
    if (end < 0) end = line.length;
    tokens.push({ text: line.slice(i, end), quoted: false });
    i = end;
  }
  return { ok: true, tokens };
}
