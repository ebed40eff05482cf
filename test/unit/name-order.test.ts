import { describe, expect, it } from 'vitest';
import { byCodeUnits } from '../../src/core/release/name-order.js';

describe('byCodeUnits: names and timestamps in the order kubectl (Go) sorts them', () => {
  it('orders by code unit: punctuation before digits before letters, uppercase before lowercase, shorter prefix first', () => {
    expect(['web', 'app-2', 'app1', 'App', 'app-10', 'app'].sort(byCodeUnits)).toEqual(['App', 'app', 'app-10', 'app-2', 'app1', 'web']);
  });
  it('orders ISO timestamps by time, and says equal for equal strings', () => {
    expect(['2026-11-29T10:00:01Z', '2026-11-29T09:59:59Z'].sort(byCodeUnits)).toEqual(['2026-11-29T09:59:59Z', '2026-11-29T10:00:01Z']);
    expect(byCodeUnits('unicorn', 'unicorn')).toBe(0);
  });
});
