import { describe, expect, it } from 'vitest';
import { FREEZE_MESSAGE_ANNOTATION, FREEZE_REPORTED_ANNOTATION } from '../../src/api/annotations.js';
import type { Freeze } from '../../src/api/freeze.js';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { expired, heldNow, letGo, watchedOf } from '../../src/session/plan/freeze-end.js';
import { freezeLiftedMessage } from '../../src/bot/slack/blocks.js';

const now = new Date('2026-03-01T12:00:00Z');
const freeze = (name: string, spec: Partial<Freeze['spec']>, annotations?: Record<string, string>): Freeze => ({
  apiVersion: 'helmcrew.dev/v1alpha1',
  kind: 'Freeze',
  metadata: { name, uid: `uid-${name}`, ...(annotations ? { annotations } : {}) },
  spec: { scope: { namespaces: ['prod'] }, reason: `because ${name}`, ...spec },
});
const release = (namespace: string, name: string, frozenBy?: string): HelmRelease =>
  ({
    metadata: { namespace, name, generation: 2 },
    spec: { chart: { name: 'unicorn', version: '1.0.0', repository: 'http://charts' } },
    status: frozenBy
      ? { conditions: [{ type: 'Frozen', status: 'True', reason: 'Frozen', message: `The upgrade is held by freeze ${frozenBy} (x)`, lastTransitionTime: '' }] }
      : {},
  }) as unknown as HelmRelease;

describe('the end of a freeze set from Slack', () => {
  it('only a freeze with a message ref and no report yet is watched', () => {
    expect(watchedOf(freeze('a', {}))).toBeUndefined();
    expect(watchedOf(freeze('a', {}, { [FREEZE_MESSAGE_ANNOTATION]: 'C1/1.2' }))).toEqual({
      uid: 'uid-a',
      name: 'a',
      reason: 'because a',
      channel: 'C1',
      ts: '1.2',
    });
    expect(watchedOf(freeze('a', {}, { [FREEZE_MESSAGE_ANNOTATION]: 'C1/1.2', [FREEZE_REPORTED_ANNOTATION]: 'then' }))).toBeUndefined();
  });

  it('expired: until has passed; a freeze without until never expires', () => {
    expect(expired(freeze('a', { until: '2026-03-01T11:59:59Z' }), now)).toBe(true);
    expect(expired(freeze('a', { until: '2026-03-01T12:00:01Z' }), now)).toBe(false);
    expect(expired(freeze('a', {}), now)).toBe(false);
  });

  it('heldNow: the releases whose Frozen names it, not a freeze whose name it prefixes', () => {
    expect(heldNow('a', [release('prod', 'x', 'a'), release('prod', 'y', 'ab'), release('prod', 'z')])).toEqual(['prod/x']);
  });

  it('letGo: what it held that no other active freeze holds', () => {
    const releases = [release('prod', 'x'), release('prod', 'y'), release('dev', 'z')];
    const others = [freeze('b', { scope: { namespaces: ['dev'] } }), freeze('c', { scope: { namespaces: ['prod'] }, until: '2026-03-01T11:00:00Z' })];
    const gone = letGo('a', ['prod/x', 'dev/z', 'prod/missing'], releases, [freeze('a', {}), ...others], [], now);
    expect(gone.map((r) => `${r.metadata.namespace}/${r.metadata.name}`)).toEqual(['prod/x']);
  });

  it('the message says how it ended', () => {
    const f = { name: 'prod-1', reason: 'INC <1>', setBy: 'slack:U1' };
    expect(freezeLiftedMessage(f, { expiredAt: '2026-03-01T12:00:00Z' }, []).text).toBe(
      ':unlock: Freeze prod-1 (INC &lt;1&gt;, set by slack:U1) expired (until 2026-03-01T12:00:00Z)\nIt held no release that is free now.',
    );
    expect(freezeLiftedMessage(f, { deleted: true }, []).text).toContain('lifted: its Freeze was deleted outside chat');
    expect(freezeLiftedMessage(f, { liftedBy: 'U2' }, []).text).toContain('lifted by <@U2>');
  });
});
