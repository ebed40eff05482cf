import { describe, expect, it } from 'vitest';
import type { ReleaseEvent } from '../../src/api/vocabulary.js';
import { chatMessageError } from '../../src/dev/fake-googlechat/index.js';
import { channelKey, channelLabel, channelRefOf } from '../../src/notify/channels.js';
import { urlSecrets } from '../../src/notify/providers/googlechat/googlechat-provider.js';
import { googleChatMessage, threadedWebhookUrl, threadKeyOf } from '../../src/notify/providers/googlechat/message.js';
import { notificationFor } from '../support/notify-fixtures.js';

const release = { namespace: 'web', name: 'unicorn' };
const of = (event: ReleaseEvent) => notificationFor(release, event, 'op');

describe('Google Chat messages', () => {
  it('one card with the operation’s facts, escaped, in the release’s thread, with a status button', () => {
    const message = googleChatMessage(
      { ...of('UpgradeFailed'), fromVersion: '1.0.0', toVersion: '2.0.0', revision: 3, message: 'values <b>bad</b> & worse', errorExcerpt: 'Error: <nil>' },
      { cluster: 'edge', statusUrl: 'https://s/web/unicorn' },
    );
    expect(chatMessageError(message)).toBeUndefined();
    expect(message.thread).toEqual({ threadKey: 'helmcrew/edge/web/unicorn' });
    const text = JSON.stringify(message);
    for (const part of [
      'Upgrade failed · unicorn in web',
      'unicorn 1.0.0 → 2.0.0',
      '"Revision"',
      'edge',
      'values &lt;b&gt;bad&lt;/b&gt; &amp; worse',
      'Error: &lt;nil&gt;',
      'Status and history',
    ])
      expect(text).toContain(part);
    expect(text).not.toContain('<b>');
    expect(text).toContain('"openLink":{"url":"https://s/web/unicorn"}');
    expect(message.fallbackText).toBe('web/unicorn: Upgrade failed (1.0.0 → 2.0.0)');
  });

  it('a release keeps its thread whatever the event; releases and clusters have their own', () => {
    expect(threadKeyOf(of('UpgradeFailed').release)).toBe(threadKeyOf(of('UpgradeSucceeded').release));
    expect(threadKeyOf(of('UpgradeFailed').release, 'a')).not.toBe(threadKeyOf(of('UpgradeFailed').release, 'b'));
    expect(threadKeyOf({ ...of('UpgradeFailed').release, name: 'other' })).not.toBe(threadKeyOf(of('UpgradeFailed').release));
  });

  it('the webhook URL keeps its key and token and gains the reply option', () => {
    const url = new URL(threadedWebhookUrl('https://chat.googleapis.com/v1/spaces/AAA/messages?key=k123456789&token=t123456789')!);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      key: 'k123456789',
      token: 't123456789',
      messageReplyOption: 'REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD',
    });
    expect(threadedWebhookUrl('not a url')).toBeUndefined();
    expect(threadedWebhookUrl('ftp://chat/x')).toBeUndefined();
    expect(urlSecrets(url.toString())).toEqual(['k123456789', 't123456789', 'REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD']);
  });

  it('the fake refuses what Chat refuses', () => {
    expect(chatMessageError({ text: 'hi', color: 'red' })).toMatch(/Unknown name "color"/);
    expect(chatMessageError({})).toMatch(/cannot be empty/);
    expect(chatMessageError({ cardsV2: [{ card: { sections: [{ widgets: [] }] } }] })).toMatch(/at least one widget/);
    expect(chatMessageError({ text: 'hi', thread: { threadKey: 7 } })).toMatch(/thread_key/);
    expect(chatMessageError({ text: 'hi' })).toBeUndefined();
  });

  it('a channel is keyed and named by its Secret, never the URL', () => {
    const ref = channelRefOf({ googlechat: { secretRef: { namespace: 'ops', name: 'chat' } } })!;
    expect(ref).toEqual({ kind: 'googlechat', secretRef: { namespace: 'ops', name: 'chat' } });
    expect(channelLabel(ref)).toBe('googlechat (Secret ops/chat#url)');
    expect(channelKey(ref)).toMatch(/^googlechat\.[0-9a-f]{12}$/);
  });
});
