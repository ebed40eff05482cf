import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import type { Team, TeamSpec } from '../../src/api/team.js';
import { API_GROUP, API_VERSION, severityOf, TEAM_KIND, TEAM_PLURAL, type ReleaseEvent } from '../../src/api/vocabulary.js';
import type { ClientNodeKubeClients as KubeClients } from '../../src/core/kube/client.js';
import { TeamApi } from '../../src/core/kube/team-api.js';
import type { ReleaseNotification } from '../../src/notify/contract.js';
import { newNotificationId } from '../../src/notify/publish/notification.js';

export const TEST_LABEL = 'helmcrew.dev/test-run';

/** A Team labelled for one test run, so that run's notify (HELMCREW_TEAM_SELECTOR) serves only its own Teams. */
export async function createTeam(kube: KubeClients, run: string, name: string, spec: TeamSpec): Promise<void> {
  const body: Team = { apiVersion: `${API_GROUP}/${API_VERSION}`, kind: TEAM_KIND, metadata: { name, labels: { [TEST_LABEL]: run } }, spec };
  await kube.custom.createClusterCustomObject({ group: API_GROUP, version: API_VERSION, plural: TEAM_PLURAL, body });
}

export async function deleteTeams(kube: KubeClients, run: string): Promise<void> {
  const teams = await new TeamApi(kube).list(`${TEST_LABEL}=${run}`);
  for (const team of teams.items) {
    await kube.custom
      .deleteClusterCustomObject({ group: API_GROUP, version: API_VERSION, plural: TEAM_PLURAL, name: team.metadata.name })
      .catch(() => undefined);
  }
}

export async function createSigningSecret(kube: KubeClients, namespace: string, name: string, key: string): Promise<void> {
  await kube.core.createNamespacedSecret({ namespace, body: { metadata: { name, namespace }, stringData: { key } } });
}

export const randomKey = (label: string) => `${label}-${randomBytes(12).toString('hex')}`;

/** A logger whose lines a test can read (to show no secret ever reaches them). */
export function memoryLogger(name = 'notify'): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { log: pino({ name, level: 'debug', base: { component: name } }, stream), lines };
}

export function notificationFor(release: { namespace: string; name: string; chart?: string }, event: ReleaseEvent, operationId: string): ReleaseNotification {
  const now = new Date();
  return {
    id: newNotificationId(now),
    operationId,
    event,
    severity: severityOf(event),
    release: {
      namespace: release.namespace,
      name: release.name,
      releaseName: release.name,
      targetNamespace: release.namespace,
      chart: release.chart ?? 'unicorn',
      labels: {},
    },
    cause: 'test',
    message: `${event} of ${release.namespace}/${release.name}`,
    at: now.toISOString(),
  };
}
