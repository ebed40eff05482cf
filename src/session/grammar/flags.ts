import { parseDuration } from '../../api/duration.js';
import type { FreezeEnd, ParseError, Place, WindowRequest } from './command.js';
import { closest } from './suggest.js';
import type { Token } from './tokenize.js';

/**
 * Pure: the options of a `/release` line. `--reason` takes the words up to the next option (or
 * the end); `--for` and `--until` take one word; `--break-glass` none. Which verb may use which
 * option is checked by the parser.
 */

export const MAX_REASON_LENGTH = 500;
export const FLAGS = ['--reason', '--for', '--until', '--break-glass', '--window', '--warn', '--cluster', '--from', '--to'] as const;
type Flag = (typeof FLAGS)[number];

/** A freeze lasts at least a second and at most 31 days from chat (longer: a Freeze object with windows). */
export const MAX_FREEZE_MS = 744 * 3_600_000;
/** A window lasts at least this long (the Freeze API's own minimum). */
export const MIN_WINDOW_MS = 10_000;
const CLUSTER = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
/** A namespace or a cluster name: both DNS labels. */
const LABEL = CLUSTER;
const CLOCK_TIME = /^([01]?[0-9]|2[0-3]):([0-5][0-9])$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i;

export interface Flags {
  args: Token[];
  reason?: string;
  end?: FreezeEnd;
  breakGlass?: boolean;
  /** `--window` with its `--for` (then no `end`) and `--warn`. */
  window?: WindowRequest;
  /** `--cluster NAME` (a fleet's cluster), or `all` (list). */
  cluster?: string;
  /** `--from` and `--to`: a promotion's places. */
  from?: Place;
  to?: Place;
  /** The options given, to refuse those a verb does not take. */
  given: Flag[];
}

type Failure = { ok: false; error: ParseError };
const fail = (code: ParseError['code'], message: string, suggestion?: string): Failure => ({
  ok: false,
  error: suggestion ? { code, message, suggestion } : { code, message },
});

const isFlag = (word: string): word is Flag => (FLAGS as readonly string[]).includes(word);
const flagOf = (token: Token) => (token.quoted || !token.text.startsWith('--') ? undefined : splitOnce(token.text)[0].toLowerCase());

export function splitFlags(verb: string, tokens: Token[]): ({ ok: true } & Flags) | Failure {
  const out: Flags = { args: [], given: [] };
  let windowWord: string | undefined;
  let warnWord: { text: string; ms: number } | undefined;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const flag = flagOf(token);
    if (flag === undefined) {
      out.args.push(token);
      continue;
    }
    if (!isFlag(flag)) {
      const suggestion = closest(flag, FLAGS);
      return fail(
        'unknown-flag',
        `unknown option "${show(flag)}"${suggestion ? ` — did you mean "${suggestion}"?` : ''}; usage: see "help ${verb}"`,
        suggestion,
      );
    }
    if (out.given.includes(flag)) return fail('unexpected-argument', `${flag} is given twice`);
    out.given.push(flag);
    const inline = splitOnce(token.text)[1];
    if (flag === '--break-glass') {
      if (inline !== undefined) return fail('unexpected-argument', '--break-glass takes no value');
      out.breakGlass = true;
      continue;
    }
    if (flag === '--reason') {
      // The reason runs to the next option: `--reason "INC-4242" --for 2h`, or `--reason db is down`.
      let j = i + 1;
      while (j < tokens.length && !isFlag(flagOf(tokens[j]!) ?? '')) j++;
      const reason = [...(inline ? [inline] : []), ...tokens.slice(i + 1, j).map((t) => t.text)].join(' ').trim();
      if (!reason) return fail('invalid-reason', `--reason needs some words after it`);
      if (reason.length > MAX_REASON_LENGTH) return fail('invalid-reason', `the reason is ${reason.length} characters; at most ${MAX_REASON_LENGTH}`);
      out.reason = reason;
      i = j - 1;
      continue;
    }
    const word = inline ?? tokens[i + 1]?.text;
    if (word === undefined || word === '') return fail('invalid-freeze-end', `${flag} needs a value, like ${EXAMPLES[flag]}`);
    if (inline === undefined) i++;
    if (flag === '--window') {
      windowWord = word;
      continue;
    }
    if (flag === '--cluster') {
      const cluster = word.toLowerCase();
      if (cluster !== 'all' && !CLUSTER.test(cluster))
        return fail('invalid-cluster', `"${show(word)}" is not a cluster name (a DNS label: lowercase letters, digits and "-"); "helmcrew fleet" lists them`);
      out.cluster = cluster;
      continue;
    }
    if (flag === '--from' || flag === '--to') {
      const place = parsePlace(flag, word);
      if (!place.ok) return place;
      out[flag === '--from' ? 'from' : 'to'] = place.place;
      continue;
    }
    if (flag === '--warn') {
      const warn = parseWarn(word);
      if (!warn.ok) return warn;
      warnWord = warn.warn;
      continue;
    }
    if (out.end) return fail('invalid-freeze-end', 'give either --for or --until, not both');
    const end = flag === '--for' ? parseFor(word) : parseUntil(word);
    if (!end.ok) return end;
    out.end = end.end;
  }
  if (windowWord === undefined) {
    if (warnWord) return fail('invalid-window', '--warn says how long before a window opens to tell the channel: give it with --window');
    return { ok: true, ...out };
  }
  const window = windowOf(windowWord, out.end, warnWord);
  if (!window.ok) return window;
  const { end: _lengthOfEachWindow, ...rest } = out;
  return { ok: true, ...rest, window: window.window };
}

const EXAMPLES: Record<string, string> = {
  '--cluster': '--cluster prod-eu',
  '--for': '--for 2h',
  '--until': '--until 18:00',
  '--window': '--window "0 18 * * FRI"',
  '--warn': '--warn 30m',
  '--from': '--from staging',
  '--to': '--to prod',
};

/** `staging` (a fleet's cluster or a namespace, decided later) or `prod-eu/shop` (cluster/namespace). */
export function parsePlace(flag: '--from' | '--to', word: string): { ok: true; place: Place } | Failure {
  const parts = word.toLowerCase().split('/');
  if (parts.length <= 2 && parts.every((part) => LABEL.test(part))) {
    const [first, second] = parts as [string, string | undefined];
    return { ok: true, place: second === undefined ? { kind: 'word', word: first } : { kind: 'pair', cluster: first, namespace: second } };
  }
  return fail(
    'invalid-place',
    `${flag} "${show(word)}" is not a place; write a namespace or a cluster of the fleet (staging), or cluster/namespace (prod-eu/shop): lowercase letters, digits and "-"`,
  );
}

/** `--window "<cron>"` takes its length from `--for` (each window's, not the freeze's); the plan checks the schedule (plan/freeze.ts). */
function windowOf(schedule: string, end: FreezeEnd | undefined, warn: { text: string; ms: number } | undefined): { ok: true; window: WindowRequest } | Failure {
  if (!end || end.kind !== 'for') return fail('invalid-window', 'a --window needs --for, how long each window lasts: --window "0 18 * * FRI" --for 64h');
  if (end.ms < MIN_WINDOW_MS) return fail('invalid-window', `each window lasts at least 10s; "${show(end.text)}" is shorter`);
  if (schedule.trim().split(/\s+/).length < 5)
    return fail('invalid-window', `--window "${show(schedule)}" is not a cron schedule; write one like "0 18 * * FRI" (minute hour day month weekday), quoted`);
  return { ok: true, window: { schedule, duration: end.text, ...(warn ? { warn } : {}) } };
}

function parseWarn(word: string): { ok: true; warn: { text: string; ms: number } } | Failure {
  try {
    const ms = parseDuration(word.toLowerCase());
    if (ms >= 1000 && ms <= MAX_FREEZE_MS) return { ok: true, warn: { text: word.toLowerCase(), ms } };
  } catch {
    // said below
  }
  return fail('invalid-window', `--warn takes a duration between 1s and 744h, like 30m; "${show(word)}" is not`);
}

function parseFor(word: string): { ok: true; end: FreezeEnd } | Failure {
  let ms: number;
  try {
    ms = parseDuration(word.toLowerCase());
  } catch {
    return fail('invalid-freeze-end', `"${show(word)}" is not a duration; write one like 30m, 2h or 1h30m`);
  }
  if (ms < 1000 || ms > MAX_FREEZE_MS) return fail('invalid-freeze-end', `--for must be between 1s and 744h (31 days); "${show(word)}" is not`);
  return { ok: true, end: { kind: 'for', text: word.toLowerCase(), ms } };
}

function parseUntil(word: string): { ok: true; end: FreezeEnd } | Failure {
  if (CLOCK_TIME.test(word) || (RFC3339.test(word) && !Number.isNaN(Date.parse(word)))) return { ok: true, end: { kind: 'until', text: word } };
  return fail('invalid-freeze-end', `"${show(word)}" is not a time; write --until 18:00 (the next 18:00) or a full time like 2026-11-27T18:00:00Z`);
}

/** Pure: when a freeze asked for with `end` ends, given the time now and the zone `HH:MM` is read in. */
export function freezeEndsAt(end: FreezeEnd, now: Date, timeZone: string): Date {
  if (end.kind === 'for') return new Date(now.getTime() + end.ms);
  const clock = CLOCK_TIME.exec(end.text);
  if (!clock) return new Date(end.text);
  return nextClockTime(Number(clock[1]), Number(clock[2]), now, timeZone);
}

/** The next instant after `now` whose wall-clock time in `timeZone` is hh:mm. */
export function nextClockTime(hh: number, mm: number, now: Date, timeZone: string): Date {
  // Walk minute-aligned candidates over the next two days; offsets change at most by hours.
  const start = Math.floor(now.getTime() / 60_000) * 60_000 + 60_000;
  const format = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
  for (let t = start; t < start + 49 * 3_600_000; t += 60_000) {
    const [h, m] = format.format(new Date(t)).split(':').map(Number);
    if (h === hh && m === mm) return new Date(t);
  }
  return new Date(start + 24 * 3_600_000);
}

function splitOnce(text: string): [string, string | undefined] {
  const eq = text.indexOf('=');
  return eq < 0 ? [text, undefined] : [text.slice(0, eq), text.slice(eq + 1)];
}

function show(word: string): string {
  return word.length > 40 ? `${word.slice(0, 40)}…` : word;
}
