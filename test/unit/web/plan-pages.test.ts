import { describe, expect, it } from 'vitest';
import { PAGED_DIFF_BOUNDS } from '../../../src/core/release/diff-bounds.js';
import { readableDiff } from '../../../src/core/release/readable-diff.js';
import type { Plan } from '../../../src/session/plan/plan.js';
import { DIFF_PAGE_SIZE, pagerView, renderPlanBody } from '../../../src/web/actions/action-pages.js';

const configMaps = (n: number, color: string) =>
  Array.from({ length: n }, (_, i) => `apiVersion: v1\nkind: ConfigMap\nmetadata: { name: cm-${String(i).padStart(3, '0')} }\ndata: { color: ${color} }`).join(
    '\n---\n',
  );

describe('a plan diff, paged on the web', () => {
  const diff = readableDiff(configMaps(130, 'pink'), configMaps(130, 'blue'), { limits: PAGED_DIFF_BOUNDS });
  const plan: Plan = { title: 'upgrade shop/many', lines: ['130 objects change'], warnings: [], doable: true, diff };
  const body = (page: number, diffUrl?: string) =>
    renderPlanBody({
      answer: { messages: [], plan: { plan, planId: 'p1', requireApproval: false } },
      csrfToken: 't',
      fallbackTitle: 'x',
      page,
      ...(diffUrl ? { diffUrl } : {}),
    });

  it('pagerView: a link a page, the current one not a link; one page or no address: no pager', () => {
    expect(pagerView({ page: 2, pages: 3, total: 130 }, '/plans/p1/diff')).toEqual({
      page: 2,
      pages: 3,
      total: 130,
      links: [
        { n: 1, current: false, href: '/plans/p1/diff?page=1' },
        { n: 2, current: true, href: '/plans/p1/diff?page=2' },
        { n: 3, current: false, href: '/plans/p1/diff?page=3' },
      ],
    });
    expect(pagerView({ page: 1, pages: 1, total: 3 }, '/plans/p1/diff')).toBe(false);
    expect(pagerView({ page: 1, pages: 3, total: 130 }, undefined)).toBe(false);
  });

  it.each([
    { page: 1, first: 'cm-000', last: 'cm-049' },
    { page: 3, first: 'cm-100', last: 'cm-129' },
    { page: 99, first: 'cm-100', last: 'cm-129' },
    { page: Number.NaN, first: 'cm-000', last: 'cm-049' },
  ])('page $page shows $first … $last, each object collapsible', ({ page, first, last }) => {
    const html = body(page, '/plans/p1/diff');
    const names = [...html.matchAll(/<summary><code>~ ConfigMap (cm-\d+)<\/code>/g)].map((m) => m[1]);
    expect([names[0], names.at(-1), names.length]).toEqual([first, last, last === 'cm-129' ? 30 : DIFF_PAGE_SIZE]);
    expect(html).toContain(`of 3 (130 objects)`);
    expect(html).toContain('href="/plans/p1/diff?page=2"');
  });

  it('without the pages’ address: the first page and how many objects follow', () => {
    const html = body(1);
    expect(html).not.toContain('class="pager"');
    expect(html).toContain('80 more objects on further pages');
  });
});
