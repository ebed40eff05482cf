import { describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { requestKeysFor } from '../../src/core/events/requester-sink.js';
import { manifestDocuments, readableValues } from '../../src/controller/drift/manifest-objects.js';
import { deployedImages, eventImages, imagesLine, MAX_EVENT_IMAGES } from '../../src/core/release/deployed-images.js';
import { parseRequestRecord, requestRecordKey } from '../../src/core/requests/requester-ledger.js';
import { slackUserOf, userMention } from '../../src/core/slack/mention.js';
import type { ReleaseNotification } from '../../src/notify/contract.js';
import { attributionLine, imagesText, requesterHandle } from '../../src/notify/providers/attribution.js';
import { teamsMessage } from '../../src/notify/providers/msteams/card.js';
import { pagerdutyEvent } from '../../src/notify/providers/pagerduty/event.js';
import { renderOperationMessage } from '../../src/notify/providers/slack/render.js';
import { webhookBody } from '../../src/notify/providers/webhook.js';
import { buildNotification } from '../../src/notify/publish/notification.js';
import { templateFields } from '../../src/notify/templates/message-template.js';

const deployment = (name: string, images: string[], init: string[] = []) => `---
apiVersion: apps/v1
kind: Deployment
metadata: { name: ${name} }
spec:
  template:
    spec:
      initContainers: [${init.map((i) => `{ name: i, image: "${i}" }`).join(', ')}]
      containers: [${images.map((i, n) => `{ name: c${n}, image: "${i}" }`).join(', ')}]
`;

/** The manifest's documents as the controller reads them after helm (manifest-objects.ts). */
const read = (manifest: string | undefined) => (manifest === undefined ? undefined : readableValues(manifestDocuments(manifest)));

describe('deployedImages', () => {
  it.each([
    { name: 'no manifest', manifest: undefined, want: [] },
    { name: 'a Service only', manifest: '---\napiVersion: v1\nkind: Service\nmetadata: { name: s }\nspec: {}\n', want: [] },
    { name: 'one Deployment', manifest: deployment('web', ['nginx:1.25']), want: ['nginx:1.25'] },
    { name: 'init containers first, duplicates once', manifest: deployment('a', ['app:2', 'app:2'], ['migrate:2']), want: ['migrate:2', 'app:2'] },
    {
      name: 'a CronJob, a StatefulSet and a Pod',
      manifest: `${deployment('a', ['app:1'])}---
apiVersion: batch/v1
kind: CronJob
metadata: { name: c }
spec: { jobTemplate: { spec: { template: { spec: { containers: [{ name: c, image: "cron:3" }] } } } } }
---
apiVersion: apps/v1
kind: StatefulSet
metadata: { name: s }
spec: { template: { spec: { containers: [{ name: c, image: "db:16" }] } } }
---
apiVersion: v1
kind: Pod
metadata: { name: p }
spec: { containers: [{ name: c, image: "app:1" }] }
`,
      want: ['app:1', 'cron:3', 'db:16'],
    },
    { name: 'a bad document is skipped', manifest: `---\nkind: [\n${deployment('b', ['ok:1'])}`, want: ['ok:1'] },
  ])('$name', ({ manifest, want }) => {
    expect(deployedImages(read(manifest))).toEqual(want);
  });

  it('an event carries the first MAX_EVENT_IMAGES and counts the rest', () => {
    const many = Array.from({ length: MAX_EVENT_IMAGES + 3 }, (_, i) => `img${i}:1`);
    expect(eventImages(read(deployment('m', many)))).toEqual({ images: many.slice(0, MAX_EVENT_IMAGES), moreImages: 3 });
    expect(eventImages(read(deployment('m', ['a:1'])))).toEqual({ images: ['a:1'] });
    expect(eventImages(read(''))).toBeUndefined();
  });

  it.each([
    { images: ['a:1'], more: 0, want: 'a:1' },
    { images: ['a:1', 'b:2', 'c:3', 'd:4', 'e:5'], more: 0, want: 'a:1, b:2, c:3, d:4, e:5' },
    { images: ['a:1', 'b:2', 'c:3', 'd:4', 'e:5', 'f:6', 'g:7'], more: 0, want: 'a:1, b:2, c:3, d:4, e:5 +2 more' },
    { images: ['a:1', 'b:2', 'c:3', 'd:4', 'e:5', 'f:6'], more: 10, want: 'a:1, b:2, c:3, d:4, e:5 +11 more' },
  ])('imagesLine $want', ({ images, more, want }) => {
    expect(imagesLine(images, more)).toBe(want);
  });
});

describe('who asked', () => {
  it.each([
    { name: 'a Slack user', n: { requester: { id: 'slack:U0ALICE', name: 'alice' } }, slack: 'by <@U0ALICE>', plain: 'by @alice' },
    { name: 'a Slack user without a name', n: { requester: { id: 'slack:U0ALICE' } }, slack: 'by <@U0ALICE>', plain: 'by slack:U0ALICE' },
    {
      name: 'a terminal user',
      n: { requester: { id: 'kube:alice@example.org', name: 'alice@example.org' } },
      slack: 'by @alice@example.org',
      plain: 'by @alice@example.org',
    },
    { name: 'a kube user without a name', n: { requester: { id: 'kube:bob' } }, slack: 'by @bob', plain: 'by @bob' },
    { name: 'a moved Git chart', n: { gitRevision: '1.2.0+abc1234' }, slack: 'from Git 1.2.0+abc1234', plain: 'from Git 1.2.0+abc1234' },
    { name: 'nobody', n: {}, slack: undefined, plain: undefined },
  ])('$name', ({ n, slack, plain }) => {
    expect(attributionLine(n, 'slack')).toBe(slack);
    expect(attributionLine(n, 'plain')).toBe(plain);
  });

  it('a Slack mention is made only of a real user id', () => {
    expect(userMention('U0123ABC')).toBe('<@U0123ABC>');
    expect(userMention('<!channel>')).toBeUndefined();
    expect(slackUserOf('slack:U0123')).toBe('U0123');
    expect(slackUserOf('slack:<!here>')).toBeUndefined();
    expect(slackUserOf('kube:U0123')).toBeUndefined();
    expect(attributionLine({ requester: { id: 'slack:<!here>' } }, 'slack', (t) => t.replaceAll('<', '&lt;').replaceAll('>', '&gt;'))).toBe(
      'by slack:&lt;!here&gt;',
    );
    expect(requesterHandle({ id: 'kube:alice' })).toBe('@alice');
  });

  it('a stored record is read back, and anything else is not one', () => {
    expect(parseRequestRecord(JSON.stringify({ requester: { id: 'slack:U1', name: 'al' }, verb: 'rollback', at: 't' }))).toEqual({
      requester: { id: 'slack:U1', name: 'al' },
      verb: 'rollback',
      at: 't',
    });
    expect(parseRequestRecord('{"requester":{"id":1},"verb":"x","at":"t"}')).toBeUndefined();
    expect(parseRequestRecord('not json')).toBeUndefined();
    expect(parseRequestRecord(null)).toBeUndefined();
    expect(requestRecordKey('hc', 'uid-1', { requestId: 'rb-1' })).toBe('hc:requests:uid-1:id:rb-1');
    expect(requestRecordKey('hc', 'uid-1', { generation: 4 })).toBe('hc:requests:uid-1:gen:4');
  });
});

describe('requestKeysFor', () => {
  const release = { metadata: { name: 'u', namespace: 'web', uid: 'uid-1', generation: 4 } } as HelmRelease;
  it.each([
    { name: 'a rollback answers its request', event: 'RollbackSucceeded', details: { requestId: 'rb-1' }, want: [{ requestId: 'rb-1' }] },
    { name: 'an upgrade: the generation', event: 'UpgradeSucceeded', details: {}, want: [{ generation: 4 }] },
    { name: 'a resume: the generation', event: 'Resumed', details: {}, want: [{ generation: 4 }] },
    { name: 'a moved Git chart: nobody', event: 'UpgradeSucceeded', details: { gitMoved: true }, want: [] },
    { name: 'a periodic drift check: nobody', event: 'DriftDetected', details: {}, want: [] },
    { name: 'a remediation: nobody', event: 'RollbackSucceeded', details: {}, want: [] },
  ] as const)('$name', ({ event, details, want }) => {
    expect(requestKeysFor(release, event, details)).toEqual(want);
  });
});

describe('the media say who and what', () => {
  const n = (over: Partial<ReleaseNotification> = {}): ReleaseNotification => ({
    id: 'n1',
    operationId: 'uid-1:4:rollback:rb-1',
    event: 'RollbackSucceeded',
    severity: 'info',
    release: { namespace: 'web', name: 'unicorn', releaseName: 'unicorn', targetNamespace: 'web', chart: 'unicorn', labels: {} },
    revision: 3,
    cause: 'rollback requested (rb-1)',
    message: 'Rolled back',
    at: '2026-11-26T10:00:00.000Z',
    requester: { id: 'slack:U0ALICE', name: 'alice' },
    images: ['unicorn:1.0.0', 'sidecar:2'],
    ...over,
  });

  it('Slack: a mention and the images in the fields', () => {
    const fields = JSON.stringify(renderOperationMessage(n(), []).blocks);
    expect(fields).toContain('*Started*\\nby <@U0ALICE>');
    expect(fields).toContain('*Images*\\nunicorn:1.0.0, sidecar:2');
    const none = JSON.stringify(renderOperationMessage(n({ requester: undefined, images: undefined }), []).blocks);
    expect(none).not.toContain('*Started*');
    expect(none).not.toContain('*Images*');
  });

  it('Teams, PagerDuty, webhooks and templates: the handle', () => {
    const facts = JSON.stringify(teamsMessage(n()));
    expect(facts).toContain('"title":"Started","value":"by @alice"');
    expect(facts).toContain('"title":"Images","value":"unicorn:1.0.0, sidecar:2"');
    const incident = pagerdutyEvent(n({ event: 'RollbackFailed', severity: 'error' }), 'key') as {
      payload: { summary: string; custom_details: Record<string, unknown> };
    };
    expect(incident.payload.summary).toBe('web/unicorn: Rolled back (by @alice)');
    expect(incident.payload.custom_details).toMatchObject({ started: 'by @alice', images: 'unicorn:1.0.0, sidecar:2' });
    expect(JSON.parse(webhookBody(n(), 'web'))).toMatchObject({
      startedBy: 'by @alice',
      requester: { id: 'slack:U0ALICE', name: 'alice' },
      images: ['unicorn:1.0.0', 'sidecar:2'],
    });
    expect(templateFields(n())).toMatchObject({ startedBy: 'by @alice', images: 'unicorn:1.0.0, sidecar:2' });
    expect(imagesText(n({ images: [] }))).toBeUndefined();
  });

  it('the notification takes who asked and what was deployed from the event; a Git move names the revision', () => {
    const release = {
      metadata: { name: 'unicorn', namespace: 'web', uid: 'uid-1', generation: 4 },
      spec: { chart: { name: 'unicorn' } },
    } as unknown as HelmRelease;
    const now = new Date('2026-11-26T10:00:00Z');
    const asked = buildNotification(
      release,
      'UpgradeSucceeded',
      'm',
      { requester: { id: 'kube:bob' }, gitRevision: '1.0.0+abc', images: ['a:1'], moreImages: 2 },
      now,
      'x',
    );
    expect(asked).toMatchObject({ requester: { id: 'kube:bob' }, images: ['a:1'], moreImages: 2 });
    expect(asked.gitRevision).toBeUndefined();
    const moved = buildNotification(release, 'UpgradeSucceeded', 'm', { gitRevision: '1.0.0+def', gitMoved: true }, now, 'x');
    expect(moved.gitRevision).toBe('1.0.0+def');
    expect(moved.requester).toBeUndefined();
  });
});

describe('RequesterStampingSink', () => {
  const release = { metadata: { name: 'u', namespace: 'web', uid: 'uid-1', generation: 4 } } as HelmRelease;
  const log = { warn: () => undefined } as unknown as import('../../src/core/log.js').Logger;
  const recorded: unknown[] = [];
  const next = { record: async (_r: HelmRelease, _e: string, _m: string, d?: unknown) => void recorded.push(d) };

  it('stamps the ledger’s requester, drops one the caller put there, and never holds the report', async () => {
    const { RequesterStampingSink } = await import('../../src/core/events/requester-sink.js');
    const alice = { requester: { id: 'slack:U0ALICE' }, verb: 'rollback', at: 't' };
    const ledger = { find: async (_uid: string, keys: readonly unknown[]) => (JSON.stringify(keys) === '[{"requestId":"rb-1"}]' ? alice : undefined) };
    recorded.length = 0;
    await new RequesterStampingSink(ledger, next, log).record(release, 'RollbackSucceeded', 'm', { requestId: 'rb-1' });
    await new RequesterStampingSink(ledger, next, log).record(release, 'DriftDetected', 'm', { requester: { id: 'slack:UFORGED' } });
    await new RequesterStampingSink({ find: () => Promise.reject(new Error('down')) }, next, log).record(release, 'UpgradeSucceeded', 'm', {});
    await new RequesterStampingSink({ find: () => new Promise(() => undefined) }, next, log, 10).record(release, 'UpgradeSucceeded', 'm', {});
    expect(recorded).toEqual([{ requestId: 'rb-1', requester: { id: 'slack:U0ALICE' } }, {}, {}, {}]);
  });
});
