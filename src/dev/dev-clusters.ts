// `helmcrew dev up --clusters …`: which control planes a local fleet has, and how `dev env` names
// their kubeconfigs (pure). The first cluster is the environment's own (KUBECONFIG); the others are
// extra control planes on loopback, all sharing the environment's one Redis.

/** The first cluster's name: the environment's own API server. */
export const HOME_CLUSTER = 'home';
/** More than this many control planes do not fit a laptop (each is etcd, an API server, two controllers and kwok). */
export const MAX_DEV_CLUSTERS = 8;

const DNS_LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const USAGE = `--clusters takes a count (1-${MAX_DEV_CLUSTERS}: ${HOME_CLUSTER}, edge-1, edge-2, …) or names separated by commas (the first is the environment's own, e.g. home,staging,prod)`;

export type ClustersFlag = { ok: true; names: string[] } | { ok: false; message: string };

/** The clusters `--clusters` asks for: `3` → home, edge-1, edge-2; `home,prod` → those names. */
export function parseClustersFlag(value: string | undefined): ClustersFlag {
  const text = value?.trim() ?? '';
  if (text === '') return { ok: false, message: USAGE };
  if (/^\d+$/.test(text)) {
    const count = Number(text);
    if (count < 1 || count > MAX_DEV_CLUSTERS) return { ok: false, message: `${USAGE}; got ${text}` };
    return { ok: true, names: [HOME_CLUSTER, ...Array.from({ length: count - 1 }, (_, i) => `edge-${i + 1}`)] };
  }
  const names = text.split(',').map((n) => n.trim());
  const bad = names.filter((n) => !DNS_LABEL.test(n));
  if (bad.length > 0) return { ok: false, message: `${USAGE}; each name a DNS label (as HELMCREW_CLUSTER_NAME), not ${bad.map((b) => `"${b}"`).join(', ')}` };
  if (new Set(names).size !== names.length) return { ok: false, message: `${USAGE}; a name is given twice in "${text}"` };
  if (names.length > MAX_DEV_CLUSTERS) return { ok: false, message: `${USAGE}; got ${names.length}` };
  return { ok: true, names };
}

/** The variable `dev env` exports a cluster's kubeconfig in: `edge-1` → `KUBECONFIG_EDGE_1`. */
export function kubeconfigVariable(cluster: string): string {
  return `KUBECONFIG_${cluster.toUpperCase().replaceAll('-', '_')}`;
}
