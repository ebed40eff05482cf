import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { ReleaseEvent } from '../../src/api/vocabulary.js';
import { encodeReleasePayload, releaseSecretName } from '../../src/core/helm-storage/release-record.js';
import { ReleaseStorage } from '../../src/core/helm-storage/release-storage.js';
import { KubeEventRecorder } from '../../src/core/kube/event-recorder.js';
import { FreezeApi } from '../../src/core/kube/freeze-api.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import type { KubeRequest } from '../../src/core/kube/rest-client.js';
import { connectKube, slimKubeClients } from '../../src/core/kube/slim-clients.js';
import { createLogger } from '../../src/core/log.js';
import { applyHelmRelease, helmReleaseObject } from '../../src/dev/releases.js';
import { ReleaseEventWatch } from '../../src/web/live/event-watch.js';
import { HelmRecordWatch } from '../../src/web/live/record-watch.js';
import { SharedReleaseWatch } from '../../src/web/live/release-watch.js';
import { recordDecoder, recordReader, releaseEventReader } from '../../src/web/pages/kube-reads.js';
import { releasePages } from '../../src/web/pages/release-pages.js';
import { releaseUrl } from '../../src/web/urls.js';
import { eventually } from '../support/eventually.js';
import { deleteNamespace, freshNamespace, testEnv } from '../support/fixtures.js';
import { CountingRest, openStream, pagesServer, parts, type OpenStream } from '../support/web-pages.js';

/** Holds the answer to the next request for `path` until released: a LIST caught between the API server's answer and its reader. */
class HoldingRest extends CountingRest {
  private held?: { path: string; gate: Promise<void>; answered: () => void };
  holdAnswer(path: string): { answered: Promise<void>; release: () => void } {
    let release!: () => void;
    let answered!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const arrived = new Promise<void>((resolve) => (answered = resolve));
    this.held = { path, gate, answered };
    return { answered: arrived, release };
  }
  override async request<T = unknown>(req: KubeRequest): Promise<T> {
    const held = this.held?.path === req.path ? this.held : undefined;
    if (held) this.held = undefined;
    const answer = await super.request<T>(req);
    if (held) {
      held.answered();
      await held.gate;
    }
    return answer;
  }
}

/**
 * The release page's timeline from the web's shared watches of helm's records and of the Events
 * about releases, on the real API server: once they have listed, a page load reads only the newest
 * record by name (its values), and fifty open pages hear of a new revision and a new Event from
 * the one watch each, with no API server request (counted at the client).
 */
describe('the release page timeline from the shared watches', () => {
  const { env, kubeConfig } = testEnv();
  const rest = new HoldingRest(connectKube(env.kubeconfig).connection);
  const kube = slimKubeClients(rest);
  const writer = slimKubeClients(connectKube(env.kubeconfig));
  const api = new HelmReleaseApi(kube);
  const log = createLogger('web-timeline-test', 'warn');
  let namespace: string;
  let watch: SharedReleaseWatch;
  let records: HelmRecordWatch;
  let releaseEvents: ReleaseEventWatch;
  let app: FastifyInstance;
  let base: string;

  /** A record Secret in helm's own format, as helm writes one (owner=helm, name, status, version). */
  const writeRecord = async (revision: number, status: string, replicas: number, release = 'web') => {
    const payload = {
      name: release,
      namespace,
      version: revision,
      config: { replicas },
      info: { status, last_deployed: new Date().toISOString(), description: `Upgrade ${revision} complete` },
      chart: { metadata: { name: 'app', version: `1.0.${revision}` } },
      manifest: '',
    };
    await writer.core.createNamespacedSecret({
      namespace,
      body: {
        metadata: { name: releaseSecretName(release, revision), namespace, labels: { owner: 'helm', name: release, status, version: String(revision) } },
        type: 'helm.sh/release.v1',
        data: { release: encodeReleasePayload(payload) },
      },
    });
  };
  const recordEvent = async (message: string, release = 'web') =>
    new KubeEventRecorder(writer, log, 'web-timeline-test').record(
      (await new HelmReleaseApi(writer).get(namespace, release))!,
      ReleaseEvent.ActionRequested,
      message,
    );

  beforeAll(async () => {
    namespace = await freshNamespace(kubeConfig, 'web-timeline');
    const chart = { repository: 'https://charts.invalid', name: 'app', version: '1.0.1' };
    await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'web', { chart, values: { replicas: 3 } }));
    await writeRecord(1, 'deployed', 3);
    await writeRecord(1, 'deployed', 1, 'api');
    await recordEvent('slack:UANA asked for the suspend of web: first look');
    await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'api', { chart, values: { replicas: 1 } }));
    await recordEvent('slack:UANA asked for the suspend of api: looked at by an assistant', 'api');

    watch = new SharedReleaseWatch({ rest, list: { releases: () => api.list(), freezes: () => new FreezeApi(kube).list() }, log });
    records = new HelmRecordWatch({ rest, log });
    releaseEvents = new ReleaseEventWatch({ rest, log });
    await watch.start();
    const storage = new ReleaseStorage(kube);
    const routes = releasePages(
      {
        own: { api, freezes: new FreezeApi(kube), storage },
        watch,
        events: releaseEventReader(rest),
        timeline: { records, events: releaseEvents, readRecord: recordReader(storage), decodeRecord: recordDecoder(storage) },
      },
      log,
    );
    ({ app, base } = await pagesServer(routes, {
      ana: {
        principal: { id: 'slack:UANA', name: 'ana', via: 'slack', subject: { slackUser: 'UANA', slackUserGroups: [] } },
        teams: [{ name: 'shop', members: { slackUsers: ['UANA'] }, permissions: [{ verbs: ['status'], namespaces: [namespace] }] }],
        csrfToken: 'csrf-token',
      },
    }));
  });

  afterAll(async () => {
    await app?.close();
    await Promise.all([watch?.stop(), records?.stop(), releaseEvents?.stop()]);
    await deleteNamespace(kubeConfig, namespace);
  });

  const page = async () => (await fetch(`${base}${releaseUrl('', undefined, namespace, 'web')}`, { headers: { 'x-test-person': 'ana' } })).text();

  it('the first page reads the API server and starts the watches; once they have listed, a page reads only the newest record, by name', async () => {
    expect([records.synced, releaseEvents.synced]).toEqual([false, false]);
    const first = await page();
    expect(first).toContain('revision 1: app 1.0.1 deployed');
    expect(first).toContain('first look');
    await eventually(() => expect([records.synced, releaseEvents.synced]).toEqual([true, true]), { timeoutMs: 15_000 });

    // The record watch listed metadata only, the Event watch nothing: the first look after reads the release's records whole and LISTs its Events, once.
    // The newest record's values come from that same read: no second GET of it.
    const record = `GET /api/v1/namespaces/${namespace}/secrets/${releaseSecretName('web', 1)}`;
    rest.requests = [];
    const firstLook = await page();
    expect(firstLook).toContain('first look');
    expect(firstLook).toContain('<code>replicas</code></td><td><code>3</code>');
    expect(rest.requests.sort()).toEqual([`GET /api/v1/namespaces/${namespace}/events`, record]);

    rest.requests = [];
    const html = await page();
    expect(html).toContain('revision 1: app 1.0.1 deployed');
    expect(html).toContain('first look');
    // The values are the newest record's, read whole: the watch keeps summaries without them.
    expect(html).toContain('<code>replicas</code></td><td><code>3</code>');
    expect(rest.requests).toEqual([`GET /api/v1/namespaces/${namespace}/secrets/${releaseSecretName('web', 1)}`]);
  });

  it('fifty open pages see a new revision and a new Event in their timeline, from the one watch each: no API server request', async () => {
    await eventually(() => expect([records.synced, releaseEvents.synced]).toEqual([true, true]), { timeoutMs: 15_000 });
    const url = `${base}/events?page=release&release=${namespace}/web`;
    const streams: OpenStream[] = [];
    const timelineOf = (s: OpenStream) =>
      parts(s.text())
        .filter((p) => p.id === 'live-timeline')
        .at(-1)?.html ?? '';
    try {
      for (let i = 0; i < 50; i++) streams.push(await openStream(url, 'ana'));
      // On connect each stream sends the timeline as memory holds it.
      await eventually(() => expect(streams.every((s) => timelineOf(s).includes('revision 1: app 1.0.1 deployed'))).toBe(true), { timeoutMs: 10_000 });

      rest.requests = [];
      await writeRecord(2, 'deployed', 4);
      await recordEvent('slack:UANA asked for the resume of web: second look');
      await eventually(
        () => expect(streams.every((s) => timelineOf(s).includes('revision 2: app 1.0.2 deployed') && timelineOf(s).includes('second look'))).toBe(true),
        { timeoutMs: 15_000 },
      );
      expect(rest.requests).toEqual([]);
    } finally {
      for (const s of streams) s.close();
    }
  });

  it('an Event deleted while the first look’s LIST of its release was in flight stays deleted: the LIST’s older copy does not put it back', async () => {
    const core = kubeConfig.makeApiClient(CoreV1Api);
    await applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, 'late', { chart: { repository: 'https://charts.invalid', name: 'app', version: '1.0.1' } }),
    );
    await eventually(() => expect(releaseEvents.synced).toBe(true), { timeoutMs: 15_000 });
    // Each Event about "late" the watch delivers, added or deleted, tells the listener once.
    let heardOfLate = 0;
    const unsubscribe = releaseEvents.subscribe((ns, name) => void (ns === namespace && name === 'late' && (heardOfLate += 1)));
    const { answered, release } = rest.holdAnswer(`/api/v1/namespaces/${namespace}/events`);
    try {
      await recordEvent('slack:UANA asked for the suspend of late: to be deleted', 'late');
      await recordEvent('slack:UANA asked for the resume of late: kept', 'late');
      await eventually(() => expect(heardOfLate).toBe(2), { timeoutMs: 10_000 });
      const listed = (await core.listNamespacedEvent({ namespace })).items.filter((e) => e.involvedObject.name === 'late');
      const doomed = listed.find((e) => e.message?.endsWith('to be deleted'));

      const filled = releaseEvents.filled(namespace, 'late');
      // The API server has answered with both Events; the answer waits while one of them is deleted.
      await answered;
      await core.deleteNamespacedEvent({ namespace, name: doomed!.metadata.name! });
      await recordEvent('slack:UANA asked for the suspend of late: after the deletion', 'late');
      // The deletion and the Event after it, both delivered by the watch before the LIST's answer is read.
      await eventually(() => expect(heardOfLate).toBe(4), { timeoutMs: 10_000 });
      release();
      await filled;
    } finally {
      release();
      unsubscribe();
    }
    const messages = releaseEvents.events(namespace, 'late')?.map((e) => e.message);
    expect(messages).toEqual(
      expect.arrayContaining(['slack:UANA asked for the resume of late: kept', 'slack:UANA asked for the suspend of late: after the deletion']),
    );
    expect(messages).not.toContain('slack:UANA asked for the suspend of late: to be deleted');
  });

  it('an assistant’s first read has the watch read every listed record whole, a page at a time: another release’s history is then memory', async () => {
    await eventually(() => expect(records.synced).toBe(true), { timeoutMs: 15_000 });
    rest.requests = [];
    records.readEveryRecord();
    // Until the paged LIST has ended: asking for a history before would read that release by name.
    await records.everyRead;
    expect(rest.requests.length).toBeGreaterThan(0);
    expect(records.history(namespace, 'api')?.releases[0]).toMatchObject({ revision: 1, chartVersion: '1.0.1', status: 'deployed' });
    // Listed whole (every namespace's records, paged), never read by name.
    expect(new Set(rest.requests)).toEqual(new Set(['GET /api/v1/secrets']));
  });

  it('an assistant’s first read has the Event watch LIST every Event about a HelmRelease, a page at a time: another release’s Events are then memory', async () => {
    rest.requests = [];
    releaseEvents.readEveryEvent();
    await releaseEvents.everyRead;
    expect(rest.requests.length).toBeGreaterThan(0);
    expect(releaseEvents.events(namespace, 'api')?.map((e) => e.message)).toEqual(['slack:UANA asked for the suspend of api: looked at by an assistant']);
    expect(new Set(rest.requests)).toEqual(new Set(['GET /api/v1/events']));
  });
});
