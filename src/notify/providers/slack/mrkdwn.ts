/**
 * Slack mrkdwn helpers. Slack reads `<…>` as links and mentions (`<!channel>`, `<@U123>`) and
 * `&` as the start of an entity, so every piece of text that comes from a release, a chart or
 * helm is escaped: a release message cannot ping a channel or hide a link.
 */

/** The three characters Slack asks apps to escape in all text. */
export function escapeMrkdwn(raw: string): string {
  return raw.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const ELLIPSIS = '…';

/**
 * At most `max` characters of already-escaped text, cut so that no entity (`&amp;`) and no
 * surrogate pair is split; an ellipsis marks the cut.
 */
export function truncateEscaped(escaped: string, max: number): string {
  if (escaped.length <= max) return escaped;
  let cut = escaped.slice(0, Math.max(0, max - ELLIPSIS.length));
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
