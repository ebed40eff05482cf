// What a benchmark module exports for bench/main.ts: its options, a usage line, its default time
// limit and what it runs. The one-line summaries live in main.ts's list.
import type { Args, Options } from './args.js';
import type { Cleanup } from './cleanup.js';

export interface Benchmark {
  /** The options after the name, as in `npm run bench -- <name> <usage>`. */
  usage: string;
  /** Options of its own; --max-seconds, --state-dir and --help are common (args.ts). */
  options: Options;
  /** --max-seconds when not given. */
  maxSeconds: number;
  /** Takes positional arguments (import-rss's module path). */
  positionals?: boolean;
  run(args: Args, cleanup: Cleanup): Promise<void>;
}
