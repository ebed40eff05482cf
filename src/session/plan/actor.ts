/** Who acts, as written into audit records: a Slack user or the kubeconfig user of a terminal. */
export interface Actor {
  /** "slack:U0123" or "kube:alice". */
  id: string;
  /** Slack channel id the command came from, if any. */
  channel?: string;
  /** A handle for messages outside Slack: Slack's display name for the id (users.info), the kube user name. */
  name?: string;
}
