import { describe, expect, it } from 'vitest';
import { helmValuesDocument } from '../../src/controller/helm/values-document.js';
import { sameChartVersion } from '../../src/controller/reconcile/decide/chart-version.js';
import { parseHelmYaml } from '../../src/controller/helm/helm-yaml.js';
import { parseValuesText, ValuesError } from '../../src/controller/reconcile/desired/values-from.js';

describe('helmValuesDocument', () => {
  const tricky = {
    on: 'on',
    yes: 'yes',
    off: 'off',
    n: 'n',
    y: 'y',
    underscore: '1_000',
    binary: '0b11',
    octal: '0o17',
    legacyOctal: '012',
    tilde: '~',
    nullText: 'null',
    date: '2001-12-14',
    sexagesimal: '190:20:30',
    lineSeparator: 'a\u2028b',
    paragraph: 'a\u2029b',
    nextLine: 'a\u0085b',
    c1: 'a\u0080\u009fb',
    del: 'a\u007fb',
    bom: '\ufeffx',
    nonChars: '\ufffe\uffff',
    unicode: 'licorne 🦄 ünïcödé',
    tab: 'a\tb',
    nul: 'a\u0000b',
    nested: { list: [1, 'on', null, 1.5, true] },
    empty: '',
  };
  it('is JSON that gives back exactly the values', () => expect(JSON.parse(helmValuesDocument(tricky))).toEqual(tricky));
  it('leaves no character raw that YAML 1.1 folds, breaks on or refuses', () => {
    // eslint-disable-next-line no-control-regex -- control characters are what this test looks for
    expect(helmValuesDocument(tricky)).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/);
    expect(helmValuesDocument({ s: 'a\u0085b\u2028' })).toBe('{"s":"a\\u0085b\\u2028"}');
  });
  it('quotes every string, so YAML 1.1 cannot retype it', () => expect(helmValuesDocument({ n: 'on' })).toBe('{"n":"on"}'));
});

/** Each `want` is what helm 4.2.4 made of `x:\n  <text>` (helm template, toJson .Values.x). */
describe('parseHelmYaml reads values as helm does', () => {
  it.each([
    { text: 'a: on', want: { a: true } },
    { text: 'a: yes', want: { a: true } },
    { text: 'a: off', want: { a: false } },
    { text: 'a: n', want: { a: false } },
    { text: 'n: 1', want: { false: 1 } },
    { text: 'y: 1', want: { true: 1 } },
    { text: 'a: 1_000', want: { a: 1000 } },
    { text: 'a: 0b11', want: { a: 3 } },
    { text: 'a: 0o17', want: { a: 15 } },
    { text: 'a: -0o17', want: { a: -15 } },
    { text: 'a: 012', want: { a: 10 } },
    { text: 'a: 09', want: { a: 9 } },
    { text: 'a: 0x1F', want: { a: 31 } },
    { text: 'a: ~', want: { a: null } },
    { text: 'a:', want: { a: null } },
    { text: 'a: 1e3', want: { a: 1000 } },
    { text: 'a: 685_230.15', want: { a: 685230.15 } },
    // eslint-disable-next-line no-loss-of-precision -- YAML reads it as the same rounded double
    { text: 'a: 12345678901234567890', want: { a: 12345678901234567890 } },
    { text: 'a: 2001-12-14', want: { a: '2001-12-14' } },
    { text: 'a: 2001-12-14t21:59:43.10-05:00', want: { a: '2001-12-14t21:59:43.10-05:00' } },
    { text: 'a: 190:20:30', want: { a: '190:20:30' } },
    { text: 'a: !!binary aGVsbG8=', want: { a: 'hello' } },
    { text: 'a: !!set {x, y}', want: { a: { x: null, true: null } } },
    { text: 'a: x\na: y', want: { a: true } },
    { text: 'a: "\\u2028 and \\x85"', want: { a: '\u2028 and \u0085' } },
    { text: 'base: &b {x: 1, y: 2}\na:\n  <<: *b\n  y: 3', want: { base: { x: 1, true: 2 }, a: { x: 1, true: 3 } } },
    { text: 'b1: &b1 {x: 1}\nb2: &b2 {x: 2, z: 9}\na:\n  <<: [*b1, *b2]\n  q: 3', want: { b1: { x: 1 }, b2: { x: 2, z: 9 }, a: { x: 1, z: 9, q: 3 } } },
  ])('$text', ({ text, want }) => expect(parseHelmYaml(text)).toEqual(want));

  it('keeps a "__proto__" key as a key', () => expect(Object.keys(parseHelmYaml('__proto__: {a: 1}') as object)).toEqual(['__proto__']));

  it.each(['a: .inf', 'a: -.Inf', 'a: .nan', '~: 1', 'null: x', '? [a]\n: 1'])('refuses %j as helm does', (text) =>
    expect(() => parseHelmYaml(text)).toThrow(),
  );

  it('a valuesFrom document that helm refuses is a ValuesError naming the source', () => {
    expect(() => parseValuesText('replicas: .inf\n', { kind: 'ConfigMap', name: 'v' })).toThrow(ValuesError);
    expect(() => parseValuesText('replicas: .inf\n', { kind: 'ConfigMap', name: 'v' })).toThrow(/ConfigMap\/v key values.yaml: replicas is Infinity/);
  });
});

describe('sameChartVersion: recorded by the chart vs requested in the spec', () => {
  it.each([
    { recorded: '1.0.0', requested: '1.0.0', want: true },
    { recorded: '1.0.0', requested: 'v1.0.0', want: true },
    { recorded: 'v1.0.0', requested: 'v1.0.0', want: true },
    { recorded: 'v1.0.0', requested: '1.0.0', want: true },
    { recorded: '1.0.0+build.1', requested: '1.0.0+build.1', want: true },
    { recorded: '1.0.0+build.1', requested: 'v1.0.0', want: true },
    { recorded: '1.0.0', requested: '1.0.0+build.1', want: false },
    { recorded: '1.0.0+build.2', requested: '1.0.0+build.1', want: false },
    { recorded: '1.0.1', requested: '1.0.0', want: false },
    { recorded: '1.0.0-rc.1', requested: '1.0.0', want: false },
    { recorded: 'not-semver', requested: '1.0.0', want: false },
  ])('$recorded vs $requested → $want', ({ recorded, requested, want }) => expect(sameChartVersion(recorded, requested)).toBe(want));
});
