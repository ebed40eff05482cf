import { describe, expect, it } from 'vitest';
import { envAssignments, parseBenchArgs } from '../../bench/lib/args.js';

const options = { releases: { type: 'string' }, seeded: { type: 'boolean' }, 'node-args': { type: 'string' } } as const;

describe('bench: the shared argument parsing', () => {
  it('reads the options of a benchmark and the common ones, with their fallbacks', () => {
    const args = parseBenchArgs(['--releases', '100,500', '--seeded', '--max-seconds=60'], options);
    expect(args.intList('releases', [1])).toEqual([100, 500]);
    expect(args.flag('seeded')).toBe(true);
    expect(args.int('max-seconds', 1500)).toBe(60);
    expect(args.int('rounds', 3)).toBe(3);
    expect(args.optional('state-dir')).toBeUndefined();
    expect(args.raw).toEqual(['--releases', '100,500', '--seeded', '--max-seconds=60']);
  });

  it.each([
    ['an unknown option', ['--bogus']],
    ['a missing value', ['--releases']],
    ['a value that starts with a dash, given without "="', ['--node-args', '--trace-gc']],
    ['a positional argument where none is taken', ['extra']],
  ])('refuses %s', (_, argv) => {
    expect(() => parseBenchArgs(argv, options)).toThrow();
  });

  it('takes a value that starts with a dash after "="', () => {
    expect(parseBenchArgs(['--node-args=--trace-gc'], options).optional('node-args')).toBe('--trace-gc');
  });

  it.each([
    ['releases', '0', 'positive whole number'],
    ['releases', '1.5', 'positive whole number'],
  ])('checks whole numbers: --%s %s', (name, value, message) => {
    expect(() => parseBenchArgs([`--${name}`, value], options).int(name, 1)).toThrow(message);
  });

  it('checks lists of whole numbers', () => {
    expect(() => parseBenchArgs(['--releases', '100,x'], options).intList('releases', [1])).toThrow('comma-separated list');
  });

  it('reads NAME=value assignments; "" and "default" are none', () => {
    expect(envAssignments('GOGC=200 GOMAXPROCS=1')).toEqual({ GOGC: '200', GOMAXPROCS: '1' });
    expect(envAssignments('NODE_OPTIONS=--a=1')).toEqual({ NODE_OPTIONS: '--a=1' });
    expect(envAssignments('')).toEqual({});
    expect(envAssignments('default')).toEqual({});
    expect(() => envAssignments('GOGC')).toThrow('not NAME=value');
  });
});
