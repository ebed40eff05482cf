import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildResult, rerunCommand, RESULTS_DIR } from '../../bench/lib/record.js';
import { parseResult, RESULT_FORMAT, type BenchResult } from '../../bench/lib/result.js';
import { checkOneRun, loadResults, renderReport, reportText, RESULTS_MD, writeReport } from '../../bench/report.js';
import { setCommands, SETS } from '../../bench/sets.js';

const sample = (over: Partial<BenchResult> = {}): BenchResult => ({
  format: RESULT_FORMAT,
  name: 'burst',
  benchmark: 'burst',
  summary: 'N releases installed and upgraded by helmcrew against the floor',
  command: 'npm run bench -- burst --releases 20 --rest-seconds 60',
  commit: 'b7bf87e',
  date: '2026-11-26T10:31:02.123Z',
  seconds: 312,
  machine: { cpuModel: 'AMD EPYC 7B13', cores: 2, memoryMiB: 24105, loadStart: '5.10 6.00 4.00', loadEnd: '7.30 6.50 5.00' },
  versions: { node: 'v20.20.2', helm: 'v4.2.4' },
  note: 'measured under load from other work',
  tables: [
    {
      title: 'Bursts',
      columns: ['N', 'phase', 'helmcrew wall', 'floor wall', 'helm'],
      rows: [
        [20, 'install', '9.1 s', '10.2 s', '{"install":20}'],
        [20, 'upgrade', '11.0 s', null, 'a|b'],
      ],
      notes: ['Controller compiled by tsc.'],
    },
    { title: 'Steady state', columns: ['N', 'helm processes'], rows: [[20, 0]] },
  ],
  ...over,
});

describe('bench report: RESULTS.md from the JSON results', () => {
  it('one table per measured table, with the command, the commit, the machine and the conditions', () => {
    const md = renderReport([
      sample(),
      sample({ name: 'ack-latency', benchmark: 'ack-latency', command: 'npm run bench -- ack-latency --seconds 10', note: undefined }),
    ]);

    expect(md).toContain('Commit **b7bf87e** on one machine: **AMD EPYC 7B13, 2 cores, 24105 MiB memory**');
    expect(md).toContain('Conditions:\n\n- burst: measured under load from other work\n');
    expect(md).toContain(
      '| [burst](#burst) | `npm run bench -- burst --releases 20 --rest-seconds 60` | 2026-11-26 10:31 UTC | 312 s | 5.10 6.00 4.00 → 7.30 6.50 5.00 |',
    );
    expect(md).toContain(
      [
        '**Bursts**',
        '',
        '| N | phase | helmcrew wall | floor wall | helm |',
        '|---|---|---|---|---|',
        '| 20 | install | 9.1 s | 10.2 s | {"install":20} |',
        '| 20 | upgrade | 11.0 s | — | a\\|b |',
        '',
        'Controller compiled by tsc.',
      ].join('\n'),
    );
    expect(md).toContain('**Steady state**\n\n| N | helm processes |\n|---|---|\n| 20 | 0 |');
    // The headline order: burst before ack-latency whatever order the files came in.
    expect(md.indexOf('## burst')).toBeLessThan(md.indexOf('## ack-latency'));
    expect(md.match(/^\| N \|/gm)).toHaveLength(4);
  });

  it('reads a result back from its JSON text', () => {
    expect(parseResult(JSON.stringify(sample()), 'burst.json')).toEqual(sample());
  });

  it.each([
    { name: 'not JSON', text: '{"format":', want: /^x\.json: not JSON: / },
    {
      name: 'another format',
      text: JSON.stringify(sample({ format: 'v0' as typeof RESULT_FORMAT })),
      want: /^x\.json: not a benchmark result \(helmcrew-bench\/1\):\n {2}\/format: /,
    },
    { name: 'no command', text: JSON.stringify({ ...sample(), command: undefined }), want: /\/command: .*\(missing\)/ },
    { name: 'no tables', text: JSON.stringify(sample({ tables: [] })), want: /\/tables: / },
    {
      name: 'a cell that is an object',
      text: JSON.stringify(sample({ tables: [{ title: 't', columns: ['a'], rows: [[{ x: 1 } as never]] }] })),
      want: /\/tables\/0\/rows\/0\/0: /,
    },
    {
      name: 'a row with more cells than columns',
      text: JSON.stringify(sample({ tables: [{ title: 'Bursts', columns: ['a', 'b'], rows: [['1', '2', '3']] }] })),
      want: 'x.json: /tables/0/rows/0: 3 cells for 2 columns (table "Bursts")',
    },
  ])('refuses a malformed result, saying where: $name', ({ text, want }) => {
    expect(() => parseResult(text, 'x.json')).toThrow(want);
  });

  it.each([
    { name: 'two commits', other: sample({ name: 'ack-latency', commit: 'aaaaaaa' }), want: 'b.json measured commit aaaaaaa, a.json b7bf87e' },
    {
      name: 'two machines',
      other: sample({ name: 'ack-latency', machine: { ...sample().machine, cpuModel: 'Intel Xeon' } }),
      want: 'b.json ran on Intel Xeon, 2 cores, 24105 MiB memory, a.json on AMD EPYC 7B13',
    },
    {
      name: 'two sizes of memory',
      other: sample({ name: 'ack-latency', machine: { ...sample().machine, memoryMiB: 32_000 } }),
      want: 'b.json ran on AMD EPYC 7B13, 2 cores, 32000 MiB memory, a.json on AMD EPYC 7B13, 2 cores, 24105 MiB memory',
    },
  ])('RESULTS.md shows one run: refuses $name', ({ other, want }) => {
    expect(() =>
      checkOneRun([
        { file: 'a.json', result: sample() },
        { file: 'b.json', result: other },
      ]),
    ).toThrow(want);
  });

  it('one machine across boots: MemTotal a MiB apart is the same machine', () => {
    const rebooted = sample({ name: 'ack-latency', machine: { ...sample().machine, memoryMiB: 24106 } });
    expect(() =>
      checkOneRun([
        { file: 'a.json', result: sample() },
        { file: 'b.json', result: rebooted },
      ]),
    ).not.toThrow();
  });

  it('refuses to write a report from no results', () => {
    expect(() => checkOneRun([])).toThrow(/no results/);
  });

  it('writes RESULTS.md from a folder of results, and names the bad file when one is malformed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bench-report-'));
    await writeFile(join(dir, 'burst.json'), JSON.stringify(sample()));
    await writeFile(join(dir, 'notes.txt'), 'not a result');
    const out = join(dir, 'RESULTS.md');

    await writeReport(dir, out);
    expect(await readFile(out, 'utf8')).toBe(renderReport([sample()]));

    await writeFile(join(dir, 'broken.json'), JSON.stringify({ ...sample(), machine: { cores: 2 } }));
    await expect(loadResults(dir)).rejects.toThrow(/broken\.json: not a benchmark result .*\n {2}\/machine\/cpuModel: /);
  });
});

describe('bench report: a set kept apart (the fleet set)', () => {
  const fleet = (over: Partial<BenchResult> = {}) =>
    sample({ name: 'fleet', benchmark: 'fleet', commit: 'f1ee7ab', command: 'npm run bench -- fleet --clusters 5', note: undefined, ...over });

  it('renders after the headline results with its own commit, machine line and runs', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bench-report-'));
    await writeFile(join(dir, 'burst.json'), JSON.stringify(sample()));
    await mkdir(join(dir, 'fleet'));
    await writeFile(join(dir, 'fleet', 'fleet.json'), JSON.stringify(fleet()));
    const md = await reportText(dir);

    expect(md).toBe(renderReport([sample()], [{ title: SETS.fleet!.title!, results: [fleet()] }]));
    const part = md.slice(md.indexOf(`# ${SETS.fleet!.title}`));
    expect(md.indexOf('## burst')).toBeLessThan(md.indexOf(`# ${SETS.fleet!.title}`));
    expect(part).toContain('Commit **f1ee7ab** on one machine');
    expect(part).toContain('## fleet\n\nN releases installed and upgraded by helmcrew against the floor\n\n```sh\nnpm run bench -- fleet --clusters 5\n```');
    expect(part).toContain('## fleet');
    expect(part).not.toContain('## burst');
    // The headline header links to the part.
    expect(md.slice(0, md.indexOf('## burst'))).toContain('Measured apart, with a commit of their own: [Fleet (issue 32)');
  });

  it('holds the part to one machine, naming each result’s commit when they differ', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bench-report-'));
    await writeFile(join(dir, 'burst.json'), JSON.stringify(sample()));
    await mkdir(join(dir, 'fleet'));
    await writeFile(join(dir, 'fleet', 'fleet.json'), JSON.stringify(fleet()));
    await writeFile(join(dir, 'fleet', 'fleet-hub.json'), JSON.stringify(fleet({ name: 'fleet-hub', commit: 'bbbbbbb' })));
    expect(await reportText(dir)).toContain('Commits **f1ee7ab** (fleet), **bbbbbbb** (fleet-hub) on one machine: **AMD EPYC 7B13');
    await writeFile(
      join(dir, 'fleet', 'fleet-hub.json'),
      JSON.stringify(fleet({ name: 'fleet-hub', machine: { ...sample().machine, cpuModel: 'Intel Xeon' } })),
    );
    await expect(reportText(dir)).rejects.toThrow(/fleet\.json ran on AMD EPYC 7B13, 2 cores, 24105 MiB memory, .*fleet-hub\.json on Intel Xeon/);
  });
});

describe('bench all: the headline set', () => {
  it('small sizes by default, the result name given where one benchmark makes two results, options passed on', () => {
    expect(setCommands(['burst', 'at-rest'], false, ['--note', 'busy'])).toEqual([
      ['burst', '--releases', '20', '--rest-seconds', '60', '--note', 'busy'],
      ['burst', '--as', 'at-rest', '--releases', '200', '--seeded', '--rest-seconds', '90', '--note', 'busy'],
    ]);
    expect(setCommands([], true, []).map((c) => c[0])).toEqual(['burst', 'burst', 'ack-latency', 'notify-latency']);
  });

  it('refuses a name not in the set', () => {
    expect(() => setCommands(['bursts'], false, [])).toThrow('--only: no such headline benchmark: bursts');
    expect(() => setCommands(['burst'], false, [], 'fleet')).toThrow('--only: no such fleet benchmark: burst');
    expect(() => setCommands([], false, [], 'fleets')).toThrow('--set: no such set: fleets (headline, fleet, rest-scale, image-rest)');
  });

  it('the fleet set: its own benchmarks, at the issue’s sizes with --full', () => {
    expect(setCommands([], true, ['--results', 'bench/results/fleet'], 'fleet')).toEqual([
      ['fleet', '--clusters', '5', '--releases', '200', '--rest-seconds', '90', '--rate', '10', '--command-seconds', '30', '--results', 'bench/results/fleet'],
      ['fleet-hub', '--targets', '5', '--releases', '500', '--installs', '50', '--rest-seconds', '90', '--results', 'bench/results/fleet'],
    ]);
  });

  it('the image-rest set: 200 releases on 20 repositories with --full, kept out of RESULTS.md', () => {
    expect(setCommands([], true, [], 'image-rest')).toEqual([['image-rest', '--releases', '200', '--repositories', '20', '--rest-seconds', '60']]);
    expect(SETS['image-rest']).toMatchObject({ dir: 'image-rest', inReport: false });
  });

  it('records the command that runs it again, without where or why it was kept, quoted for a shell', () => {
    expect(
      rerunCommand('burst', ['--releases', '20', '--note', 'under load', '--state-dir=/tmp/x', '--node-args=--trace-gc', '--floor-env', 'GOGC=200 X=1']),
    ).toBe("npm run bench -- burst --releases 20 --node-args=--trace-gc --floor-env 'GOGC=200 X=1'");
  });

  it('names the commit read when the run started, not the checkout as it is when the result is written', () => {
    const started = new Date('2026-11-30T00:54:04Z');
    const run = { name: 'n1000', benchmark: 'burst', summary: 's', argv: [], started, loadStart: '0.20 1.23 1.83', commit: 'ed70183' };
    const result = buildResult(run, { tables: [] }, new Date('2026-11-30T01:30:45Z'));
    expect(result.commit).toBe('ed70183');
    expect(result.seconds).toBe(2201);
  });
});

describe('bench/RESULTS.md as committed', () => {
  it('is what `npm run bench -- report` makes of bench/results/*.json (one commit, one machine), under 250 lines', async () => {
    const results = await loadResults(RESULTS_DIR);
    checkOneRun(results);
    const committed = await readFile(RESULTS_MD, 'utf8');
    expect(committed, 'bench/RESULTS.md is generated: run `npm run bench -- report`').toBe(await reportText(RESULTS_DIR));
    expect(committed.split('\n').length).toBeLessThan(250);
  });
});
