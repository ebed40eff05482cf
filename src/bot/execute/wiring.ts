import type { KubeConfig } from '@kubernetes/client-node';
import { ReleaseStorage } from '../../core/helm-storage/release-storage.js';
import { makeKubeClients } from '../../core/kube/client.js';
import { KubeEventRecorder } from '../../core/kube/event-recorder.js';
import { HelmReleaseApi } from '../../core/kube/helmrelease-api.js';
import type { Logger } from '../../core/log.js';
import { ReleaseOperations } from './operations.js';
import type { ChangePreviews } from './preview-client.js';

/** The execution path's parts, made from one KubeConfig; the terminal and the bot share it. */
export function releaseOperations(kubeConfig: KubeConfig, log: Logger, component: string, previews?: ChangePreviews) {
  const kube = makeKubeClients(kubeConfig);
  const api = new HelmReleaseApi(kube);
  const storage = new ReleaseStorage(kube);
  const events = new KubeEventRecorder(kube, log, component);
  const ops = new ReleaseOperations({ api, storage, events, log, now: () => new Date(), previews });
  return { kube, api, storage, events, ops, previews };
}
