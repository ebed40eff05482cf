import { describe, expect, it } from 'vitest';
import { severityOf, type ReleaseEvent } from '../../src/api/vocabulary.js';
import { teamsMessageError } from '../../src/dev/fake-msteams/index.js';
import type { ReleaseNotification } from '../../src/notify/contract.js';
import { CARD_VERSION, postsCard, statusLink, teamsMessage } from '../../src/notify/providers/msteams/card.js';
import { adaptiveCardValidator } from '../support/adaptive-card-schema.js';

const notification = (event: ReleaseEvent, over: Partial<ReleaseNotification> = {}): ReleaseNotification => ({
  id: 'n1',
  operationId: 'uid:3:upgrade',
  event,
  severity: severityOf(event),
  release: { namespace: 'prod', name: 'unicorn', releaseName: 'unicorn', targetNamespace: 'prod', chart: 'unicorn', labels: {} },
  fromVersion: '1.0.0',
  toVersion: '4.0.0',
  revision: 3,
  cause: 'spec change (generation 4)',
  message: 'Helm upgrade to unicorn@4.0.0 failed',
  errorExcerpt: 'containerPort: Invalid value: 80800',
  at: '2026-11-23T06:00:00.000Z',
  ...over,
});
const cardOf = (message: Record<string, unknown>) => (message.attachments as { content: Record<string, unknown> }[])[0]!.content;

describe('Teams cards', () => {
  it('one card per operation: its start is not posted, its outcome is', () => {
    expect(postsCard(notification('UpgradeStarted'))).toBe(false);
    expect(postsCard(notification('UpgradeSucceeded'))).toBe(true);
    expect(postsCard(notification('UpgradeFailed'))).toBe(true);
  });

  it('a failed upgrade: the Slack message’s content, a status link, valid against the schema version it declares', () => {
    const message = teamsMessage(notification('UpgradeFailed'), 'https://status.example.test/releases/{namespace}/{name}', 'eu-1');
    expect(teamsMessageError(message)).toBeUndefined();
    const card = cardOf(message);
    expect(card.version).toBe(CARD_VERSION);
    const validate = adaptiveCardValidator(card.version as string);
    expect(validate(card), JSON.stringify(validate.errors)).toBe(true);
    const text = JSON.stringify(card);
    for (const part of [
      'Upgrade failed · unicorn in prod',
      'unicorn 1.0.0 → 4.0.0',
      'prod/unicorn',
      'spec change (generation 4)',
      '80800',
      'eu-1',
      '"Revision"',
    ]) {
      expect(text).toContain(part);
    }
    expect(card.actions).toEqual([{ type: 'Action.OpenUrl', title: 'Status and history', url: 'https://status.example.test/releases/prod/unicorn' }]);
  });

  it('without a status URL there is no link; the schema still holds; it catches a broken card', () => {
    const card = cardOf(teamsMessage(notification('UpgradeSucceeded', { errorExcerpt: undefined })));
    const validate = adaptiveCardValidator(CARD_VERSION);
    expect(validate(card)).toBe(true);
    expect(card.actions).toBeUndefined();
    expect(validate({ ...card, body: [{ type: 'TextBlock', text: 'x', color: 'Purple' }] })).toBe(false);
  });

  it('fills the status link with encoded names', () => {
    expect(statusLink('https://s.test/?r={namespace}%2F{name}', { ...notification('UpgradeFailed').release, name: 'a b' })).toBe(
      'https://s.test/?r=prod%2Fa%20b',
    );
    expect(statusLink(undefined, notification('UpgradeFailed').release)).toBeUndefined();
  });
});
