import { answerWithoutCluster, releaseInputError } from '../../session/flow/input-error.js';
import { readSessionConfig } from '../../session/flow/config.js';
import { foundKubeconfig } from '../../core/kube/kubeconfig-source.js';

const OPTIONS = new Set(['--yes', '-y', '--no-wait']);

/**
 * `helmcrew release …`: the `/release` session from a terminal, acting as the kubeconfig user
 * (so Kubernetes RBAC decides what it may do). What a person can fix at once — a typo, a bad
 * setting, no kubeconfig — and `help` are answered before the session's parts (the Kubernetes client, the
 * bot's execution path) are loaded (../release/terminal-session.ts runs the session).
 */
export async function releaseCommand(args: string[]): Promise<number> {
  // The shell already split the words; quote those with spaces so the grammar sees them whole.
  const line = args
    .filter((a) => !OPTIONS.has(a))
    .map((a) => (/\s/.test(a) && !a.includes('"') ? `"${a}"` : a))
    .join(' ');
  // A typo is answered before anything is read: no kubeconfig or Redis is needed to be told of it.
  const inputError = releaseInputError(line);
  if (inputError) {
    console.error(`helmcrew release: ${inputError}`);
    return 2;
  }
  const offline = answerWithoutCluster(line);
  if (offline) {
    console.log(offline);
    return 0;
  }
  const config = readSessionConfig();
  foundKubeconfig(config.kubeconfig, process.env);
  const { runTerminalSession } = await import('../release/terminal-session.js');
  return runTerminalSession(line, config, { yes: args.includes('--yes') || args.includes('-y'), wait: !args.includes('--no-wait') });
}
