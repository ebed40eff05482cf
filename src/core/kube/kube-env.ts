import { declareEnv } from '../config/registry.js';

/** What the pod and the shell say about where the process runs (set by Kubernetes and the OS, not by the operator). */
export const KUBE_ENV = declareEnv(['controller', 'notify', 'bot', 'cli'], {
  KUBERNETES_SERVICE_HOST: { defaultText: 'set by Kubernetes', meaning: 'in a pod: the API server’s address, with the ServiceAccount token (in-cluster mode)' },
  KUBERNETES_SERVICE_PORT: { default: '443', meaning: 'in a pod: the API server’s port' },
  HOME: { defaultText: 'the user’s home', meaning: 'where `~/.kube/config` is looked for' },
  HOSTNAME: { default: 'local', meaning: 'the `reportingInstance` of the Events helmcrew records (the pod’s name)' },
});
