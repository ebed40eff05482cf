import Mustache from 'mustache';

/**
 * The pages' escaping: `& < > " '`, what HTML text and a quoted attribute need (OWASP's rule for
 * both). Mustache's default also writes `/`, `=` and backticks as entities, which no quoted
 * attribute needs and which made every link on the fleet page 20 bytes longer (`&#x2F;` four
 * times a row). Safe only because every attribute in these templates is quoted.
 */
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/** Mustache.render with the pages' escaping; `{{{…}}}` stays unescaped as ever (templates never use it on data). */
export function renderHtml(template: string, view: unknown, partials?: Record<string, string>): string {
  return Mustache.render(template, view, partials, { escape: escapeHtml });
}
