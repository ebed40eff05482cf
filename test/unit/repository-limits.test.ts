import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/config/env.js';
import { readControllerConfig } from '../../src/controller/config.js';
import { classifyAddress, decideRepositoryHost, parseHostPolicy } from '../../src/controller/charts/host-policy.js';
import { parseIndex } from '../../src/controller/charts/index-parser.js';
import { ByteBoundedLru } from '../../src/controller/charts/byte-lru.js';
import { estimateBytes } from '../../src/controller/charts/repository-index.js';

describe('decideRepositoryHost', () => {
  it.each([
    { name: 'default (empty): not even a public name', list: '', host: 'charts.example.com', addresses: ['203.0.113.7'], want: false },
    { name: 'default (empty): loopback', list: '', host: '127.0.0.1', addresses: ['127.0.0.1'], want: false },
    { name: 'any: a public name', list: '*', host: 'charts.example.com', addresses: ['203.0.113.7'], want: true },
    { name: 'any: loopback needs listing', list: '*', host: '127.0.0.1', addresses: ['127.0.0.1'], want: false },
    { name: 'any: a name resolving to loopback', list: '*', host: 'rebind.example.com', addresses: ['127.0.0.1'], want: false },
    { name: 'any: IPv6 loopback', list: '*', host: '::1', addresses: ['::1'], want: false },
    { name: 'any: the unspecified address', list: '*', host: '0.0.0.0', addresses: ['0.0.0.0'], want: false },
    { name: 'any: a private address', list: '*', host: 'svc.example.com', addresses: ['10.96.0.10'], want: false },
    { name: 'any: 172.16/12', list: '*', host: '172.20.1.1', addresses: ['172.20.1.1'], want: false },
    { name: 'any: 192.168/16', list: '*', host: '192.168.1.1', addresses: ['192.168.1.1'], want: false },
    { name: 'any: IPv6 unique-local', list: '*', host: 'fd12::1', addresses: ['fd12::1'], want: false },
    { name: 'any: IPv4-mapped private', list: '*', host: 'x.example.com', addresses: ['::ffff:10.0.0.1'], want: false },
    { name: 'any: the metadata address', list: '*', host: '169.254.169.254', addresses: ['169.254.169.254'], want: false },
    { name: 'any: a name resolving to link-local', list: '*', host: 'innocent.example.com', addresses: ['203.0.113.7', '169.254.169.254'], want: false },
    { name: 'any: IPv6 link-local', list: '*', host: 'fe80::1', addresses: ['fe80::1'], want: false },
    { name: 'any: IPv4-mapped link-local', list: '*', host: 'x.example.com', addresses: ['::ffff:169.254.169.254'], want: false },
    { name: 'any: AWS IPv6 metadata', list: '*', host: 'fd00:ec2::254', addresses: ['fd00:ec2::254'], want: false },
    { name: 'any: metadata name', list: '*', host: 'metadata.google.internal', addresses: ['203.0.113.9'], want: false },
    {
      name: 'list: exact name may be private (an in-house repository)',
      list: 'charts.example.com',
      host: 'charts.example.com',
      addresses: ['10.0.0.1'],
      want: true,
    },
    { name: 'list: exact name may be loopback (the dev environment)', list: 'localhost', host: 'localhost', addresses: ['127.0.0.1', '::1'], want: true },
    { name: 'list: loopback by address', list: '127.0.0.1', host: '127.0.0.1', addresses: ['127.0.0.1'], want: true },
    { name: 'list: a wildcard does not cover private addresses', list: '*.example.com', host: 'a.example.com', addresses: ['192.168.3.4'], want: false },
    { name: 'list: other name', list: 'charts.example.com', host: 'evil.example.net', addresses: ['203.0.113.7'], want: false },
    { name: 'list: wildcard', list: '*.example.com', host: 'a.b.example.com', addresses: ['203.0.113.7'], want: true },
    { name: 'list: wildcard is not the apex', list: '*.example.com', host: 'example.com', addresses: ['203.0.113.7'], want: false },
    { name: 'list: wildcard does not match a suffix trick', list: '*.example.com', host: 'evilexample.com', addresses: ['203.0.113.7'], want: false },
    { name: 'list: CIDR covers every address', list: '10.0.0.0/8', host: 'internal.corp', addresses: ['10.1.2.3'], want: true },
    { name: 'list: CIDR misses one address', list: '10.0.0.0/8', host: 'internal.corp', addresses: ['10.1.2.3', '192.168.0.1'], want: false },
    {
      name: 'list: a listed name still may not resolve link-local',
      list: 'charts.example.com',
      host: 'charts.example.com',
      addresses: ['169.254.169.254'],
      want: false,
    },
    { name: 'list: link-local explicitly allowed by address', list: '169.254.10.0/24', host: '169.254.10.5', addresses: ['169.254.10.5'], want: true },
    { name: 'list: metadata name explicitly listed', list: 'metadata', host: 'metadata', addresses: ['10.0.0.1'], want: true },
    { name: 'nothing resolved', list: '*', host: 'x.example.com', addresses: [], want: false },
  ])('$name → $want', ({ list, host, addresses, want }) => {
    const decision = decideRepositoryHost(parseHostPolicy(list), host, addresses);
    expect(decision.allowed).toBe(want);
    if (!decision.allowed) expect(decision.why).toContain(host);
    if (!decision.allowed && addresses.length > 0) expect(decision.why).toContain('HELMCREW_ALLOWED_REPOSITORY_HOSTS');
  });

  it.each([
    { host: '127.0.0.1', addresses: ['127.0.0.1'], want: '127.0.0.1 is the loopback address 127.0.0.1, refused unless listed by exact name or address' },
    {
      host: 'localhost',
      addresses: ['127.0.0.1'],
      want: 'localhost resolves to the loopback address 127.0.0.1, refused unless listed by exact name or address',
    },
    {
      host: '169.254.169.254',
      addresses: ['169.254.169.254'],
      want: '169.254.169.254 is the link-local address 169.254.169.254 (cloud metadata services live there)',
    },
    { host: 'charts.example.com', addresses: ['203.0.113.7'], want: 'charts.example.com is not in the allowed repository hosts (none listed)' },
  ])('the refusal of $host names it, why, and the setting that allows it', ({ host, addresses, want }) => {
    const decision = decideRepositoryHost(parseHostPolicy(''), host, addresses);
    expect(decision).toMatchObject({ allowed: false });
    const why = decision.allowed ? '' : decision.why;
    expect(why).toContain(want);
    expect(why).toMatch(/; HELMCREW_ALLOWED_REPOSITORY_HOSTS \(chart value repositories.allowedHosts\) allows it$/);
  });

  it.each([
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', 'public'],
    ['100.64.0.1', 'private'],
    ['fc00::1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['203.0.113.7', 'public'],
    ['2001:db8::1', 'public'],
  ])('classifyAddress(%s) → %s', (address, want) => {
    expect(classifyAddress(address)).toBe(want);
  });

  it('the default list is empty: every host must be named', () => {
    expect(readControllerConfig({ REDIS_URL: 'redis://127.0.0.1:6379' }).allowedRepositoryHosts.text).toBe('');
  });

  it.each(['10.0.0.0/33', 'not a host!', '*.', 'fe80::/200'])('refuses the list entry %j', (entry) => {
    expect(() => readControllerConfig({ REDIS_URL: 'redis://127.0.0.1:6379', HELMCREW_ALLOWED_REPOSITORY_HOSTS: entry })).toThrow(ConfigError);
    expect(() => readControllerConfig({ REDIS_URL: 'redis://127.0.0.1:6379', HELMCREW_ALLOWED_REPOSITORY_HOSTS: entry })).toThrow(
      /HELMCREW_ALLOWED_REPOSITORY_HOSTS/,
    );
  });
});

describe('parseIndex (worker thread)', () => {
  it("keeps only each chart's versions", async () => {
    const yaml =
      'apiVersion: v1\nentries:\n  a:\n  - version: 1.0.0\n    description: long text\n    urls: [a-1.0.0.tgz]\n  - version: 2.0.0\n    urls: ["https://dl.example.com/a-2.0.0.tgz", "http://169.254.169.254/x.tgz", "https://dl.example.com/b.tgz"]\n  b: []\n';
    const versions = await parseIndex(Buffer.from(yaml), 'repo');
    expect([...versions]).toEqual([
      ['a', { versions: ['1.0.0', '2.0.0'], hosts: ['dl.example.com', '169.254.169.254'] }],
      ['b', { versions: [], hosts: [] }],
    ]);
    expect(estimateBytes(versions)).toBeLessThan(1000);
  });
  it('names an IPv6 download host without its brackets, as the allow-list spells it', async () => {
    const yaml = 'entries:\n  a:\n  - version: 1.0.0\n    urls: ["http://[::1]:8080/a-1.0.0.tgz"]\n';
    expect((await parseIndex(Buffer.from(yaml), 'repo')).get('a')).toEqual({ versions: ['1.0.0'], hosts: ['::1'] });
  });
  it('reads a JSON index', async () => {
    expect([...(await parseIndex(Buffer.from('{"entries":{"a":[{"version":"1.2.3"}]}}'), 'repo'))]).toEqual([['a', { versions: ['1.2.3'], hosts: [] }]]);
  });
  it('names the repository of broken YAML', async () => {
    await expect(parseIndex(Buffer.from('entries: [\n'), 'http://repo.test')).rejects.toThrow(/index of http:\/\/repo.test is not valid YAML/);
  });
  it('does not expand an alias bomb (aliases stay references), also inside entries', async () => {
    const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 12; i++)
      bomb.push(
        `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10)
          .fill(`*${String.fromCharCode(96 + i)}`)
          .join(',')}]`,
      );
    bomb.push('entries:', '  boom: *l', '  ok:', '  - version: 1.0.0');
    const started = Date.now();
    const versions = await parseIndex(Buffer.from(bomb.join('\n')), 'repo');
    expect(versions.get('ok')).toEqual({ versions: ['1.0.0'], hosts: [] });
    expect(versions.get('boom')?.versions).toEqual([]);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('stops a parse that runs past its time limit', async () => {
    const huge = `entries:\n  a:\n${'  - version: 1.0.0\n'.repeat(200_000)}`;
    await expect(parseIndex(Buffer.from(huge), 'http://slow.test', { maxHeapMb: 384, maxMs: 1 })).rejects.toThrow(
      /index of http:\/\/slow.test took longer than 0.001s to parse/,
    );
  });

  it('parses a 20 MB index within the default limits', async () => {
    const lines = ['apiVersion: v1', 'entries:'];
    for (let c = 0; c < 250; c++) {
      lines.push(`  chart-${c}:`);
      for (let v = 0; v < 220; v++) {
        lines.push(
          '  - apiVersion: v2',
          `    name: chart-${c}`,
          `    version: 1.${v}.0`,
          `    appVersion: 1.${v}.0`,
          '    description: A chart that exists only to make this index as large as a real public one',
          '    created: "2026-01-01T00:00:00.000000000Z"',
          `    digest: ${'ab'.repeat(32)}`,
          '    urls:',
          `    - https://charts.example.test/chart-${c}-1.${v}.0.tgz`,
        );
      }
    }
    const text = `${lines.join('\n')}\n`;
    expect(text.length).toBeGreaterThan(19_000_000);
    const versions = await parseIndex(Buffer.from(text), 'repo');
    expect(versions.size).toBe(250);
    expect(versions.get('chart-7')).toEqual({ versions: Array.from({ length: 220 }, (_, v) => `1.${v}.0`), hosts: ['charts.example.test'] });
  }, 60_000);
});

describe('ByteBoundedLru', () => {
  const clock = () => {
    let t = 0;
    return { now: () => t, advance: (ms: number) => (t += ms) };
  };

  it('drops the least recently used once the bytes are over budget', () => {
    const c = clock();
    const lru = new ByteBoundedLru<string>(100, c.now);
    lru.set('a', 'A', 40, 1000);
    lru.set('b', 'B', 40, 1000);
    expect(lru.get('a')).toBe('A'); // a is now the most recent
    lru.set('c', 'C', 40, 1000); // 120 > 100: b goes
    expect([lru.get('a'), lru.get('b'), lru.get('c')]).toEqual(['A', undefined, 'C']);
    expect(lru.bytes).toBe(80);
  });

  it('expires entries after their time to live', () => {
    const c = clock();
    const lru = new ByteBoundedLru<string>(100, c.now);
    lru.set('a', 'A', 10, 1000);
    c.advance(999);
    expect(lru.get('a')).toBe('A');
    c.advance(1);
    expect(lru.get('a')).toBeUndefined();
    expect(lru.bytes).toBe(0);
  });

  it('never keeps an entry larger than the whole budget, and replacing frees the old bytes', () => {
    const lru = new ByteBoundedLru<string>(100, () => 0);
    lru.set('big', 'X', 101, 1000);
    expect(lru.size).toBe(0);
    lru.set('a', 'A', 60, 1000);
    lru.set('a', 'A2', 30, 1000);
    expect(lru.bytes).toBe(30);
    expect(lru.get('a')).toBe('A2');
  });
});
