import { parseReleaseCommand } from '../grammar/parse.js';

/**
 * What is wrong with a command line, before anything is built to run it: the terminal answers a
 * typo with no cluster at hand, and before it loads the session's parts (cli/commands/release.ts).
 */
export function releaseInputError(text: string): string | undefined {
  const parsed = parseReleaseCommand(text);
  return parsed.ok ? undefined : parsed.error.message;
}
