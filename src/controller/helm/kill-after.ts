/**
 * How long past its own `--timeout` a helm process is left before it is killed. helm ends itself
 * at --timeout and then still writes the failed revision; the kill is only the backstop for a hung
 * process, so it comes a margin later. Used for every helm command given a --timeout, and by the
 * watch (enqueue-policy.ts): an operation older than its timeout plus this margin has lost its worker.
 * The default of HELMCREW_HELM_KILL_MARGIN_SECONDS.
 */
export const KILL_AFTER_MARGIN_SECONDS = 60;

/** Pure: when to kill a helm command that was given `--timeout <helmTimeoutSeconds>s`, in ms. */
export function killAfterMs(helmTimeoutSeconds: number, marginSeconds = KILL_AFTER_MARGIN_SECONDS): number {
  return (helmTimeoutSeconds + marginSeconds) * 1000;
}
