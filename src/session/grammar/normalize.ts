/**
 * Text from chat is not what people typed: phones and Slack turn quotes curly and `--` into
 * dashes, paste brings non-breaking and zero-width spaces. Normalized here, once, before the
 * tokenizer, so the grammar only ever sees plain ASCII punctuation and single spaces.
 */

const QUOTES: Record<string, string> = {
  '\u201C': '"',
  '\u201D': '"',
  '\u201E': '"',
  '\u201F': '"',
  '\u00AB': '"',
  '\u00BB': '"',
  '\u2033': '"',
  '\u2018': "'",
  '\u2019': "'",
  '\u201A': "'",
  '\u201B': "'",
  '\u2032': "'",
};

export function normalizeInput(text: string): string {
  return (
    text
      .normalize('NFKC')
      // zero-width space/joiners, word joiner and BOM: invisible, never meaningful
      .replace(/[\u200B-\u200D\u2060\uFEFF]/g, '')
      .replace(/[\u201C\u201D\u201E\u201F\u00AB\u00BB\u2033\u2018\u2019\u201A\u201B\u2032]/g, (q) => QUOTES[q]!)
      // an em or en dash where a flag starts: macOS and Slack "smart dashes" turn -- into —
      .replace(/(^|\s)[\u2014\u2013](?=[a-z])/gi, '$1--')
      // every other kind of space, tab and line break counts as a plain space
      .replace(/[\s\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]+/g, ' ')
      // remaining control characters (Unicode category Cc: U+0000–U+001F, U+007F–U+009F) are dropped
      .replace(/\p{Cc}/gu, '')
      .trim()
  );
}
