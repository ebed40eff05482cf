/** Go-style durations ("1h30m", "90s", "1.5h") as the API schema's DURATION_PATTERN admits them. */

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

export function parseDuration(text: string): number {
  const parts = [...text.matchAll(/([0-9]+(?:\.[0-9]+)?)(ms|s|m|h)/g)];
  const consumed = parts.map((p) => p[0]).join('');
  if (parts.length === 0 || consumed !== text) throw new Error(`"${text}" is not a duration like 30s, 5m or 1h30m`);
  return parts.reduce((total, p) => total + Number(p[1]) * (UNIT_MS[p[2]!] ?? 0), 0);
}
