import { describe, expect, it } from 'vitest';
import { severityOf, type ReleaseEvent } from '../../src/api/vocabulary.js';
import type { ReleaseNotification } from '../../src/notify/contract.js';
import { renderOperationMessage } from '../../src/notify/providers/slack/render.js';
import { prepareForChannel } from '../../src/notify/templates/apply-template.js';
import { renderTemplate, templateFields } from '../../src/notify/templates/message-template.js';
import { nextTeamStatus, withChannelWarning } from '../../src/notify/team-status.js';

const notification = (event: ReleaseEvent = 'UpgradeFailed'): ReleaseNotification => ({
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
  at: '2026-11-23T06:00:00.000Z',
});

describe('message templates', () => {
  it('render every documented field as plain text', () => {
    const fields = templateFields(notification(), 'eu-1', 'https://s.test/prod/unicorn');
    const template =
      '{{cluster}} {{namespace}}/{{release}} {{chart}} {{fromVersion}}→{{toVersion}} r{{revision}} {{outcome}} {{event}} <{{reason}}> {{message}} {{links.status}}';
    expect(renderTemplate(template, fields)).toEqual({
      ok: true,
      text: 'eu-1 prod/unicorn unicorn 1.0.0→4.0.0 r3 Upgrade failed UpgradeFailed <spec change (generation 4)> Helm upgrade to unicorn@4.0.0 failed https://s.test/prod/unicorn',
    });
    expect(
      renderTemplate('{{#links.status}}see {{links.status}}{{/links.status}}{{^links.status}}no link{{/links.status}}', templateFields(notification())),
    ).toEqual({
      ok: true,
      text: 'no link',
    });
  });

  it('a broken or empty template is an error', () => {
    expect(renderTemplate('{{#release}} unclosed', templateFields(notification()))).toEqual({ ok: false, error: 'Unclosed section "release" at 21' });
    expect(renderTemplate('{{nothing}}', templateFields(notification()))).toMatchObject({ ok: false });
  });

  it('prepareForChannel: cluster stamped always; the template replaces the message, or the default stays with a warning', () => {
    const n = notification();
    expect(prepareForChannel(n, undefined, 'eu-1')).toEqual({ notification: { ...n, cluster: 'eu-1' } });
    expect(prepareForChannel(n, undefined)).toEqual({ notification: n });
    expect(prepareForChannel(n, '[{{cluster}}] {{outcome}}: {{release}}', 'eu-1').notification.message).toBe('[eu-1] Upgrade failed: unicorn');
    const broken = prepareForChannel(n, '{{ release', 'eu-1');
    expect(broken.notification.message).toBe(n.message);
    expect(broken.templateError).toBe('template not used (Unclosed tag at 10); the default message is sent');
  });

  it('the Slack message shows the cluster', () => {
    const message = renderOperationMessage({ ...notification(), cluster: 'eu-1' }, []);
    expect(JSON.stringify(message.blocks)).toContain('*Cluster*\\n`eu-1`');
  });

  it("a channel's warning is set once, kept across deliveries and cleared", () => {
    const warned = withChannelWarning(undefined, '#web', 'template not used');
    expect(warned.channels).toEqual([{ channel: '#web', warning: 'template not used' }]);
    const delivered = nextTeamStatus(warned, { channel: '#web', ok: true, at: new Date('2026-11-23T06:00:00Z') }, ['#web']);
    expect(delivered.channels).toEqual([{ channel: '#web', lastDeliveryAt: '2026-11-23T06:00:00.000Z', warning: 'template not used' }]);
    expect(withChannelWarning(delivered, '#web', undefined).channels).toEqual([{ channel: '#web', lastDeliveryAt: '2026-11-23T06:00:00.000Z' }]);
  });
});
