// What the controller logged during a phase: lines by level, reconciled actions, per-reconcile and
// per-helm durations, warnings with one example each, throttling mentions.
import { readFile } from 'node:fs/promises';
import { quantiles, type Quantiles } from './stats.js';

export interface LogSummary {
  lines: number;
  byLevel: Record<string, number>;
  reconciled: Record<string, number>;
  retriedJobs: number;
  reconcileMs: Record<string, Quantiles>;
  helmMs: Record<string, Quantiles>;
  /** Distinct warn/error messages with counts and one example. */
  problems: Array<{ level: string; msg: string; count: number; example: string }>;
  throttleMentions: number;
}

const LEVELS: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };

/** A log field as text: strings as they are, anything else as JSON. */
const asText = (value: unknown): string => (typeof value === 'string' ? value : value === undefined || value === null ? '' : JSON.stringify(value));

/** Reads the controller's JSON log lines from byte `from` on. */
export async function summarizeLog(file: string, from = 0): Promise<LogSummary> {
  const text = (await readFile(file)).subarray(from).toString('utf8');
  const byLevel: Record<string, number> = {};
  const reconciled: Record<string, number> = {};
  const reconcileDurations: Record<string, number[]> = {};
  const helmDurations: Record<string, number[]> = {};
  const problems = new Map<string, { level: string; msg: string; count: number; example: string }>();
  let lines = 0;
  let retriedJobs = 0;
  let throttleMentions = 0;
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    lines++;
    if (/throttl|Too Many Requests|"(code|statusCode)":\s*429|HTTP 429/i.test(line)) throttleMentions++;
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(line) as Record<string, unknown>;
    } catch {
      const key = `raw:${line.slice(0, 80)}`;
      const p = problems.get(key) ?? { level: 'raw', msg: line.slice(0, 120), count: 0, example: line.slice(0, 400) };
      p.count++;
      problems.set(key, p);
      continue;
    }
    const level = LEVELS[entry.level as number] ?? String(entry.level);
    byLevel[level] = (byLevel[level] ?? 0) + 1;
    const msg = asText(entry.msg);
    if (msg === 'reconciled') {
      const action = String(entry.action);
      reconciled[action] = (reconciled[action] ?? 0) + 1;
      (reconcileDurations[action] ??= []).push(Number(entry.durationMs));
      if (Number(entry.attempt) > 1) retriedJobs++;
    }
    if (msg === 'helm finished' || msg === 'helm failed') {
      (helmDurations[String(entry.helm)] ??= []).push(Number(entry.durationMs));
    }
    if (level === 'warn' || level === 'error' || level === 'fatal') {
      const detail = asText(entry.error ?? (entry.err as { message?: string } | undefined)?.message);
      const key = `${level}:${msg}:${detail.slice(0, 60)}`;
      const p = problems.get(key) ?? { level, msg, count: 0, example: line.slice(0, 600) };
      p.count++;
      problems.set(key, p);
    }
  }
  const q = (m: Record<string, number[]>) => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, quantiles(v)]));
  return {
    lines,
    byLevel,
    reconciled,
    retriedJobs,
    reconcileMs: q(reconcileDurations),
    helmMs: q(helmDurations),
    problems: [...problems.values()],
    throttleMentions,
  };
}
