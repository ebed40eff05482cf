import { parseReleaseCommand } from '../grammar/parse.js';
import { renderHelp } from '../render/text.js';

/**
 * What is wrong with a command line, before anything is built to run it: the terminal answers a
 * typo with no cluster at hand, and before it loads the session's parts (cli/commands/release.ts).
 */
export function releaseInputError(text: string): string | undefined {
  const parsed = parseReleaseCommand(text);
  return parsed.ok ? undefined : parsed.error.message;
}

/** The answer to a command that needs no cluster (`help`), else undefined: the terminal gives it without a kubeconfig. */
export function answerWithoutCluster(text: string): string | undefined {
  const parsed = parseReleaseCommand(text);
  return parsed.ok && parsed.command.verb === 'help' ? renderHelp(parsed.command.topic) : undefined;
}
