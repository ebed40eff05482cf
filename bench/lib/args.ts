// The benchmarks' arguments: node's util.parseArgs (strict: an unknown option is an error), the
// options every benchmark takes, and typed readers with the checks the scripts need.
import { parseArgs, type ParseArgsConfig } from 'node:util';

export type Options = NonNullable<ParseArgsConfig['options']>;

/** Taken by every benchmark. */
export const COMMON_OPTIONS = {
  'max-seconds': { type: 'string' },
  'state-dir': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  as: { type: 'string' },
  note: { type: 'string' },
  results: { type: 'string' },
} as const satisfies Options;

export const COMMON_USAGE = [
  '--max-seconds N   overall time limit; clean-up runs when it is hit',
  '--state-dir DIR   re-use a running environment (left running) instead of a fresh one under /tmp',
  '--help            this text; runs nothing',
  "--as NAME         the result's name (bench/results/NAME.json, its section of RESULTS.md); default: the benchmark's",
  '--note TEXT       the conditions in words, kept with the result (e.g. "measured under load from other work")',
  '--results DIR     where the JSON result goes (default bench/results)',
  'A value that starts with a dash is given with "=": --node-args=--trace-gc.',
];

/** The parsed command line of one benchmark, read through checked accessors. */
export class Args {
  constructor(
    private readonly values: Record<string, string | boolean | Array<string | boolean> | undefined>,
    /** The arguments as given (for the report's `command:` line). */
    readonly raw: string[],
    readonly positionals: string[] = [],
  ) {}

  /** The option's text, or undefined when it was not given. */
  optional(name: string): string | undefined {
    const value = this.values[name];
    if (value === undefined || typeof value === 'string') return value;
    throw new Error(`--${name} takes a value`);
  }

  string(name: string, fallback: string): string {
    return this.optional(name) ?? fallback;
  }

  flag(name: string): boolean {
    return this.values[name] === true;
  }

  int(name: string, fallback: number): number {
    const raw = this.optional(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name} must be a positive whole number, got "${raw}"`);
    return value;
  }

  intList(name: string, fallback: number[]): number[] {
    const raw = this.optional(name);
    if (raw === undefined) return fallback;
    const values = raw.split(',').map(Number);
    if (values.some((v) => !Number.isInteger(v) || v <= 0)) throw new Error(`--${name} must be a comma-separated list of positive whole numbers`);
    return values;
  }

  list(name: string, fallback: string[] = []): string[] {
    const raw = this.optional(name);
    return raw === undefined ? fallback : raw.split(',').filter(Boolean);
  }

  /** `--name "GOGC=200 GOMAXPROCS=1"` as variables; none when not given. */
  env(name: string): Record<string, string> {
    return envAssignments(this.optional(name) ?? '');
  }
}

/** Parses `argv` against `options` and the common ones; throws on an unknown option or a missing value. */
export function parseBenchArgs(argv: string[], options: Options, allowPositionals = false): Args {
  const { values, positionals } = parseArgs({ args: argv, options: { ...COMMON_OPTIONS, ...options }, strict: true, allowPositionals });
  return new Args(values, argv, positionals);
}

/** "GOGC=200 GOMAXPROCS=1" → { GOGC: '200', GOMAXPROCS: '1' }; "" or "default" → {}. */
export function envAssignments(text: string): Record<string, string> {
  if (text.trim() === '' || text.trim() === 'default') return {};
  return Object.fromEntries(
    text
      .trim()
      .split(/\s+/)
      .map((pair) => {
        const at = pair.indexOf('=');
        if (at <= 0) throw new Error(`"${pair}" is not NAME=value`);
        return [pair.slice(0, at), pair.slice(at + 1)];
      }),
  );
}
