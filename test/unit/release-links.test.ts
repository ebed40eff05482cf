import { describe, expect, it } from 'vitest';
import { severityOf } from '../../src/api/vocabulary.js';
import { codeMessage, planMessage } from '../../src/bot/slack/blocks.js';
import { ConfigError } from '../../src/core/config/env.js';
import { pageLink, planDiffLink, releaseUrl } from '../../src/core/links/release-url.js';
import { latestMessageOf, slackPermalink } from '../../src/core/links/slack-thread.js';
import { readWebUrl } from '../../src/core/links/web-url.js';
import type { ReleaseNotification } from '../../src/notify/contract.js';
import { renderOperationMessage, renderThreadReply } from '../../src/notify/providers/slack/render.js';
import { releaseOfAction } from '../../src/session/plan/prepared.js';
import type { Plan } from '../../src/session/plan/plan.js';
import { renderRelease } from '../../src/web/render/templates.js';
import { releaseView } from '../../src/web/views/release-view.js';
import { NOW, release } from './web/builders.js';

const BASE = 'https://helmcrew.example.org';

describe('pageLink: a release page as a Slack link', () => {
  it.each([
    { name: 'no web address: no link', base: undefined, ref: { namespace: 'shop', name: 'web' }, want: undefined },
    { name: 'own cluster', base: BASE, ref: { namespace: 'shop', name: 'web' }, want: `<${BASE}/releases/-/shop/web|page>` },
    { name: 'a trailing slash is dropped', base: `${BASE}/`, ref: { namespace: 'shop', name: 'web' }, want: `<${BASE}/releases/-/shop/web|page>` },
    { name: 'a fleet cluster', base: BASE, ref: { cluster: 'eu-1', namespace: 'shop', name: 'web' }, want: `<${BASE}/releases/eu-1/shop/web|page>` },
    {
      name: 'a hostile name cannot end the link',
      base: BASE,
      ref: { namespace: 'shop', name: 'a|b>c<d' },
      want: `<${BASE}/releases/-/shop/a%7Cb%3Ec%3Cd|page>`,
    },
    {
      name: 'nor can a hostile base',
      base: 'https://h.example/x|y>',
      ref: { namespace: 'shop', name: 'web' },
      want: '<https://h.example/x%7Cy%3E/releases/-/shop/web|page>',
    },
  ])('$name', ({ base, ref, want }) => {
    expect(pageLink(base, ref)).toBe(want);
  });

  it('releaseUrl is the same path the pages serve', () => {
    expect(releaseUrl('', undefined, 'shop', 'web')).toBe('/releases/-/shop/web');
  });
});

describe('readWebUrl: HELMCREW_WEB_URL for links', () => {
  it.each([
    { name: 'unset', env: {}, want: undefined },
    { name: 'empty', env: { HELMCREW_WEB_URL: ' ' }, want: undefined },
    { name: 'https, trailing slash dropped', env: { HELMCREW_WEB_URL: `${BASE}/` }, want: BASE },
    { name: 'with a path', env: { HELMCREW_WEB_URL: `${BASE}/helmcrew/` }, want: `${BASE}/helmcrew` },
  ])('$name', ({ env, want }) => {
    expect(readWebUrl(env)).toBe(want);
  });

  it.each(['ftp://h.example', 'not a url'])('%s is refused, naming the variable', (value) => {
    expect(() => readWebUrl({ HELMCREW_WEB_URL: value })).toThrow(ConfigError);
    expect(() => readWebUrl({ HELMCREW_WEB_URL: value })).toThrow(/HELMCREW_WEB_URL/);
  });
});

describe('latestMessageOf: the release thread in notify’s message map', () => {
  const entry = (release: string, ts: string, updatedAt: string, channelId = 'C1') => JSON.stringify({ release, channelId, ts, updatedAt, operationId: 'x' });
  const rows: Array<{ name: string; data: Record<string, string>; want: { channelId: string; ts: string } | undefined }> = [
    { name: 'no entries', data: {}, want: undefined },
    { name: 'another release only', data: { a: entry('shop/api', '1.000001', '2026-11-28T10:00:00Z') }, want: undefined },
    {
      name: 'the most recently updated operation wins',
      data: {
        a: entry('shop/web', '1.000001', '2026-11-28T10:00:00Z'),
        b: entry('shop/web', '2.000002', '2026-11-28T11:00:00Z', 'C2'),
        c: entry('shop/api', '3.000003', '2026-11-28T12:00:00Z'),
      },
      want: { channelId: 'C2', ts: '2.000002' },
    },
    {
      name: 'unreadable entries are skipped',
      data: { a: '{not json', b: entry('shop/web', 'not-a-ts', '2026-11-28T12:00:00Z'), c: entry('shop/web', '1.000001', '2026-11-28T10:00:00Z') },
      want: { channelId: 'C1', ts: '1.000001' },
    },
  ];
  it.each(rows)('$name', ({ data, want }) => {
    expect(latestMessageOf(data, { namespace: 'shop', name: 'web' })).toEqual(want);
  });

  it('slackPermalink: the workspace URL, the channel and the ts without its dot', () => {
    expect(slackPermalink('https://acme.slack.com/', { channelId: 'C1', ts: '1712345678.000200' })).toBe(
      'https://acme.slack.com/archives/C1/p1712345678000200',
    );
  });
});

const notification = (cluster?: string): ReleaseNotification => ({
  id: 'n1',
  operationId: 'uid:3:upgrade',
  event: 'UpgradeFailed',
  severity: severityOf('UpgradeFailed'),
  release: { namespace: 'prod', name: 'unicorn', releaseName: 'unicorn', targetNamespace: 'prod', chart: 'unicorn', labels: {} },
  cause: 'spec change',
  message: 'failed',
  at: '2026-11-23T06:00:00.000Z',
  ...(cluster ? { cluster } : {}),
});

describe('notify’s Slack messages link the release page only with a web address', () => {
  it.each([
    { name: 'without HELMCREW_WEB_URL', webUrl: undefined, cluster: undefined, want: undefined },
    { name: 'own cluster', webUrl: BASE, cluster: undefined, want: `<${BASE}/releases/-/prod/unicorn|page>` },
    { name: 'a fleet member', webUrl: BASE, cluster: 'eu-1', want: `<${BASE}/releases/eu-1/prod/unicorn|page>` },
  ])('$name', ({ webUrl, cluster, want }) => {
    const texts = [
      JSON.stringify(renderOperationMessage(notification(cluster), [], webUrl).blocks),
      JSON.stringify(renderThreadReply(notification(cluster), true, webUrl).blocks),
    ];
    for (const text of texts) {
      if (want) expect(text).toContain(want);
      else expect(text).not.toContain('/releases/');
    }
  });
});

describe('/release answers and plans', () => {
  const plan: Plan = { title: 'roll back shop/web', lines: ['revision 2 → 1'], warnings: [], doable: true };
  const link = pageLink(BASE, { namespace: 'shop', name: 'web' });
  it('an answer about a release carries its link after the title; without one, none', () => {
    expect(codeMessage('/release status', 'ok', link).text).toBe(`/release status · ${link}\n\`\`\`ok\`\`\``);
    expect(codeMessage('/release status', 'ok').text).not.toContain('|page>');
  });
  it('a plan about a release carries its link; without one, none', () => {
    expect(JSON.stringify(planMessage(plan, 'p1', false, link).blocks)).toContain(link);
    expect(JSON.stringify(planMessage(plan, 'p1', false).blocks)).not.toContain('|page>');
  });
  it('a plan whose diff chat cut links the whole diff on the web, above the rest', () => {
    const long: Plan = { ...plan, more: ['ConfigMap shop/cm-0005', '… and 30 more objects, too many to show'] };
    const diffLink = planDiffLink(BASE, 'p|1');
    expect(diffLink).toBe(`<${BASE}/plans/p%7C1/diff|the whole diff>`);
    expect(planDiffLink(undefined, 'p1')).toBeUndefined();
    const more = JSON.stringify(planMessage(long, 'p1', false, link, diffLink).blocks![1]);
    expect(more).toContain(`_More changes (${diffLink}, page by page):_`);
    expect(JSON.stringify(planMessage(long, 'p1', false, link).blocks![1])).toContain('_More changes:_');
  });
  it.each([
    { name: 'one release', targets: [{ namespace: 'shop', name: 'web' }], command: {}, want: { namespace: 'shop', name: 'web' } },
    {
      name: 'its fleet cluster',
      targets: [{ namespace: 'shop', name: 'web' }],
      command: { cluster: 'eu-1' },
      want: { cluster: 'eu-1', namespace: 'shop', name: 'web' },
    },
    {
      name: 'several releases: none',
      targets: [
        { namespace: 'shop', name: 'web' },
        { namespace: 'shop', name: 'api' },
      ],
      command: {},
      want: undefined,
    },
    { name: 'no release (a freeze): none', targets: [], command: {}, want: undefined },
  ])('releaseOfAction: $name', ({ targets, command, want }) => {
    const action = { command: { verb: 'rollback', ...command }, targets: targets.map((t) => ({ ...t, chart: 'app', generation: 1 })) };
    expect(releaseOfAction(action as Parameters<typeof releaseOfAction>[0])).toEqual(want);
  });
});

describe('the release page links its Slack thread', () => {
  const view = releaseView({ release: release('web', 'shop'), revisions: [], events: [], proposals: [], freezes: [], objects: [] }, NOW);
  it.each([
    { name: 'a permalink', thread: 'https://acme.slack.com/archives/C1/p1', want: true },
    { name: 'none', thread: undefined, want: false },
    { name: 'not http(s): dropped', thread: 'javascript:alert(1)', want: false },
  ])('$name', ({ thread, want }) => {
    const html = renderRelease(view, thread ? { slackThread: thread } : {});
    expect(html.includes('Slack thread')).toBe(want);
    expect(html).not.toContain('javascript:');
  });
});
