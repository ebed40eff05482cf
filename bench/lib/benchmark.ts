// What a benchmark module exports for bench/main.ts: its options, a usage line, its default time
// limit and what it runs (returning its tables, for a JSON result). The one-line summaries live in main.ts's list.
import type { Args, Options } from './args.js';
import type { Cleanup } from './cleanup.js';
import type { BenchOutput } from './result.js';

export interface Benchmark {
  /** The options after the name, as in `npm run bench -- <name> <usage>`. */
  usage: string;
  /** Options of its own; --max-seconds, --state-dir and --help are common (args.ts). */
  options: Options;
  /** --max-seconds when not given. */
  maxSeconds: number;
  /** Takes positional arguments (import-rss's module path). */
  positionals?: boolean;
  /** Its tables, which main.ts writes to bench/results/<name>.json and prints as Markdown; nothing: it printed its own report. */
  run(args: Args, cleanup: Cleanup): Promise<BenchOutput | void>;
}
