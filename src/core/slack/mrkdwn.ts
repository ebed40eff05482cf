/**
 * Slack mrkdwn, once for the bot and notify. Slack reads `<…>` as links and mentions
 * (`<!channel>`, `<@U123>`) and `&` as the start of an entity, so every piece of text that comes
 * from a person, a release, a chart or helm is escaped: a message cannot ping a channel or hide a
 * link. Escaping comes first and cutting second, and the cut never splits an entity.
 */

/** The three characters Slack asks apps to escape in all text. */
export function escapeMrkdwn(raw: string): string {
  return raw.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Slack sends typed text with &, < and > as entities; the grammar gets what the person typed. */
export function unescapeSlackText(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

const ELLIPSIS = '…';

/**
 * At most `max` characters of already-escaped text, cut so that no entity (`&amp;`) and no
 * surrogate pair is split; an ellipsis marks the cut.
 */
export function truncateEscaped(escaped: string, max: number): string {
  if (escaped.length <= max) return escaped;
  let cut = escaped.slice(0, Math.max(0, max - ELLIPSIS.length));
  // escapeMrkdwn makes only &amp; &lt; &gt;: an `&` with up to three letters at the end is one cut in half.
  cut = cut.replace(/&[a-z]{0,3}$/, '');
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return cut + ELLIPSIS;
}

/** Escaped and within `max` characters. */
export function safeText(raw: string, max: number): string {
  return truncateEscaped(escapeMrkdwn(raw), max);
}

/** Inline code of a name; a backtick inside would end the code span early, so it is replaced. */
export function inlineCode(raw: string, max = 200): string {
  return `\`${safeText(raw.replace(/`/g, "'"), max - 2)}\``;
}

/** A fenced code block of at most `max` characters in all; a ``` inside cannot close the fence. */
export function codeBlock(raw: string, max: number): string {
  const fence = '```';
  const body = raw.replace(/```/g, "'''").replace(/\s+$/, '');
  return `${fence}${safeText(body, max - 2 * fence.length)}${fence}`;
}

/** Plain text (buttons, dialog titles) is not parsed for mentions, only bounded. */
export function plainText(raw: string, max: number): string {
  if (raw.length <= max) return raw;
  let cut = raw.slice(0, max - ELLIPSIS.length);
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return cut + ELLIPSIS;
}
