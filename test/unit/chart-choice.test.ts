import { describe, expect, it } from 'vitest';
import { chartVersionToPropose, chooseChartVersion, type ChartChoiceInput } from '../../src/controller/reconcile/decide/chart-choice.js';

const input = (over: Partial<ChartChoiceInput> = {}): ChartChoiceInput => ({ declared: '1.x', git: false, required: 2, running: '1.2.0', ...over });

describe('chooseChartVersion (issue 35)', () => {
  it('approvals asked and a range: the release stays on the version it runs, and the newer one is proposed', () => {
    const { choice, approvedGaveWay } = chooseChartVersion(input());
    expect(choice).toEqual({ kind: 'held', version: '1.2.0' });
    expect(approvedGaveWay).toBeUndefined();
    expect(chartVersionToPropose(choice, '1.x', '1.3.0')).toEqual({ from: '1.2.0', to: '1.3.0' });
    // The newest is what runs, or older: nothing to propose.
    expect(chartVersionToPropose(choice, '1.x', '1.2.0')).toBeUndefined();
    expect(chartVersionToPropose(choice, '1.x', '1.1.0')).toBeUndefined();
  });

  it.each<{ why: string; over: Partial<ChartChoiceInput> }>([
    { why: 'no approval asked', over: { required: 0 } },
    { why: 'nothing runs yet: the first install takes the newest', over: { running: undefined } },
    { why: 'an exact version is taken as written', over: { declared: '1.3.0' } },
    { why: 'a range that no longer allows what runs (the spec changed)', over: { declared: '2.x' } },
    { why: 'a chart from Git has no version range', over: { git: true, declared: undefined } },
  ])('the declared version when $why', ({ over }) => {
    const { choice } = chooseChartVersion(input(over));
    expect(choice).toEqual({ kind: 'declared' });
    expect(chartVersionToPropose(choice, over.declared, '9.0.0')).toBeUndefined();
  });

  it('no version at all is the range "*": held like any range', () => {
    expect(chooseChartVersion(input({ declared: undefined })).choice).toEqual({ kind: 'held', version: '1.2.0' });
  });

  it('an approved version is in effect while spec.chart.version says what it said at approval, whatever the approvals asked', () => {
    for (const required of [0, 2]) {
      const { choice } = chooseChartVersion(input({ required, approved: { version: '1.4.0', declared: '1.x' } }));
      expect(choice).toEqual({ kind: 'approved', version: '1.4.0' });
      expect(chartVersionToPropose(choice, '1.x', '1.5.0')).toEqual({ from: '1.4.0', to: '1.5.0' });
      expect(chartVersionToPropose(choice, '1.x', '1.4.0')).toBeUndefined();
    }
    // A promotion may pin a version outside the range, or over an exact one: nothing newer is proposed over an exact one.
    const pinned = chooseChartVersion(input({ declared: '1.0.0', approved: { version: '2.1.0', declared: '1.0.0' } }));
    expect(pinned.choice).toEqual({ kind: 'approved', version: '2.1.0' });
    expect(chartVersionToPropose(pinned.choice, '1.0.0', '1.0.0')).toBeUndefined();
  });

  it('an approved version gives way when spec.chart.version changed, saying why; the declared spec then decides', () => {
    const toExact = chooseChartVersion(input({ declared: '1.0.0', approved: { version: '1.4.0', declared: '1.x' } }));
    expect(toExact.choice).toEqual({ kind: 'declared' });
    expect(toExact.approvedGaveWay).toBe('spec.chart.version is "1.0.0" now, not "1.x" as when 1.4.0 was approved');
    // A new range that still allows what runs: held there, the approvals asked as before.
    const toRange = chooseChartVersion(input({ declared: '>=1.0.0', running: '1.4.0', approved: { version: '1.4.0', declared: '1.x' } }));
    expect(toRange.choice).toEqual({ kind: 'held', version: '1.4.0' });
    expect(toRange.approvedGaveWay).toMatch(/now, not "1.x"/);
    // Absent then, set now.
    expect(chooseChartVersion(input({ approved: { version: '1.4.0' } })).approvedGaveWay).toMatch(/not \(absent: the newest\)/);
    expect(chooseChartVersion(input({ git: true, approved: { version: '1.4.0', declared: '1.x' } })).approvedGaveWay).toMatch(/Git/);
  });
});
