import { describe, expect, it } from 'vitest';
import { floorFlags, floorMode } from '../../bench/lib/floor-flags.js';
import { mostAtOnce, slotStats } from '../../bench/lib/helm-slots.js';

const span = (start: number, end: number, cpuS = 1) => ({ start, end, sub: 'install', cpuS });

describe('bench: how busy the helm slots were', () => {
  it('pairs the (c+i)-th start with the i-th end: the time a slot stood empty', () => {
    // Two slots: r1 and r2 start at once; r3 waits for r1's end (+0.5 s), r4 for r2's (+0.1 s).
    const s = slotStats([span(0, 2), span(0, 3), span(2.5, 4), span(3.1, 5)], 2);
    expect(s.gapMs).toEqual({ n: 2, median: 300, p90: 500, mean: 300 });
    expect(s.meanBusy).toBeCloseTo((2 + 3 + 1.5 + 1.9) / 5);
    expect(s.helmMeanMs).toBe(2100);
    expect(s.helmCpuS).toBe(4);
    expect(s.mostAtOnce).toBe(2);
  });

  it('the most helm processes at one moment: an end at the very time of a start counts first', () => {
    expect(mostAtOnce([span(0, 2), span(1, 3), span(1.5, 4), span(3, 5)])).toBe(3);
    expect(mostAtOnce([span(0, 1), span(1, 2), span(2, 3)])).toBe(1);
    expect(mostAtOnce([])).toBe(0);
    // A pull beside two installs takes no slot.
    expect(slotStats([span(0, 2), span(1, 3), { ...span(1, 2), sub: 'pull' }], 2).mostAtOnce).toBe(2);
  });

  it('counts only the spans that started in the burst, and nothing when there are none', () => {
    expect(slotStats([span(0, 1), span(10, 11)], 1, 5).helmMeanMs).toBe(1000);
    expect(slotStats([], 4)).toEqual({ meanBusy: 0, gapMs: { n: 0, median: 0, p90: 0, mean: 0 }, helmMeanMs: 0, helmCpuS: 0, mostAtOnce: 0 });
  });
});

describe("bench: the floor's helm flags", () => {
  it("is helm as a person runs it, the strict floor, or helmcrew's defaults", () => {
    expect(floorFlags(floorMode('person'))).toEqual([]);
    expect(floorFlags(floorMode('strict'))).toEqual(['--disable-openapi-validation']);
    expect(floorFlags(floorMode('defaults'))).toEqual([
      '--disable-openapi-validation',
      '--server-side=true',
      '--force-conflicts',
      '--take-ownership',
      '--wait-for-jobs',
    ]);
    expect(() => floorMode('lenient')).toThrow('--floor-flags must be one of person, strict, defaults, got "lenient"');
  });
});
