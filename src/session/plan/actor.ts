/** Who acts, as written into audit records: a Slack user, the kubeconfig user of a terminal, or a person signed in on the web. */
export interface Actor {
  /** "slack:U0123", "kube:alice" or "oidc:ana@example.com". */
  id: string;
  /** Slack channel id the command came from, if any. */
  channel?: string;
  /** A handle for messages outside Slack: Slack's display name for the id (users.info), the kube user name. */
  name?: string;
  /** The surface it came through, when the id does not say it (a Slack user signed in on the web: `slack:U…` via web). */
  via?: 'web' | 'assistant';
}
