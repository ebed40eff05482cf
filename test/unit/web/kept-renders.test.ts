import { describe, expect, it } from 'vitest';
import { fleetBodyKey, keptUntil, KeptRenders } from '../../../src/web/pages/kept-renders.js';
import { ANA, freeze, NOW, proposal, TEAMS } from './builders.js';

describe('fleetBodyKey', () => {
  const viewer = { subject: ANA, teams: TEAMS };
  const key = fleetBodyKey(viewer, {}, []);

  it.each([
    { what: 'another person', other: fleetBodyKey({ subject: { slackUser: 'UOPS', slackUserGroups: [] }, teams: TEAMS }, {}, []) },
    { what: 'a Team changed (read on the request)', other: fleetBodyKey({ subject: ANA, teams: TEAMS.slice(1) }, {}, []) },
    { what: 'a filter', other: fleetBodyKey(viewer, { namespace: 'shop' }, []) },
    { what: 'a proposal opened (Redis, not watched)', other: fleetBodyKey(viewer, {}, [proposal('shop', 'web')]) },
  ])('differs for $what', ({ other }) => {
    expect(other).not.toBe(key);
  });

  it('is the same for the same viewer, filters and proposals, in any order', () => {
    const [a, b] = [proposal('shop', 'web'), proposal('pay', 'api')];
    expect(fleetBodyKey(viewer, { state: 'failed' }, [a, b])).toBe(fleetBodyKey({ subject: ANA, teams: [...TEAMS] }, { state: 'failed' }, [b, a]));
  });
});

describe('keptUntil', () => {
  it('is the next time a Freeze starts or stops holding; forever without one', () => {
    expect(keptUntil([], NOW)).toBe(Number.POSITIVE_INFINITY);
    const until = '2026-11-28T13:00:00Z';
    expect(keptUntil([freeze('train', { all: true }, { until })], NOW)).toBe(Date.parse(until));
    // A window that opens at 18:00 UTC: the body rendered at noon shows no freeze and is good until then.
    const windowed = freeze('evening', { all: true }, { windows: [{ schedule: '0 18 * * *', duration: '2h' }] });
    expect(keptUntil([windowed], NOW)).toBe(Date.parse('2026-11-28T18:00:00Z'));
  });
});

describe('KeptRenders', () => {
  const counting = () => {
    let renders = 0;
    return { render: () => `body ${++renders}`, count: () => renders };
  };
  const at = (revision: number, now = 0, until = Number.POSITIVE_INFINITY) => ({ revision, now, until: () => until });

  it('renders once for one key and revision, again after the watch saw a change', () => {
    const kept = new KeptRenders(8);
    const r = counting();
    expect(kept.take('k', at(1), r.render)).toBe('body 1');
    expect(kept.take('k', at(1), r.render)).toBe('body 1');
    expect(kept.take('k', at(2), r.render)).toBe('body 2');
    expect(r.count()).toBe(2);
  });

  it('renders again once a freeze would change what it shows', () => {
    const kept = new KeptRenders(8);
    const r = counting();
    kept.take('k', at(1, 0, 100), r.render);
    expect(kept.take('k', at(1, 99, 100), r.render)).toBe('body 1');
    expect(kept.take('k', at(1, 100, 100), r.render)).toBe('body 2');
  });

  it('keeps a body per key, at most `max`, dropping the least recently used and every one of an older revision', () => {
    const kept = new KeptRenders(2);
    const r = counting();
    kept.take('a', at(1), r.render);
    kept.take('b', at(1), r.render);
    kept.take('a', at(1), r.render); // a used: b is the oldest
    kept.take('c', at(1), r.render);
    expect(kept.size).toBe(2);
    expect(kept.take('a', at(1), r.render)).toBe('body 1');
    expect(kept.take('b', at(1), r.render)).toBe('body 4');
    kept.take('d', at(2), r.render);
    expect(kept.size).toBe(1);
  });
});
