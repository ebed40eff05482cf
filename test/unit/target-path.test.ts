import { describe, expect, it } from 'vitest';
import { parseTargetPath, setAtPath, TargetPathError, targetPathValue } from '../../src/controller/reconcile/desired/target-path.js';

/** Issue 24: valuesFrom[].targetPath as Flux reads it (a helm --set path; typed unless quoted or literal). */
describe('valuesFrom targetPath', () => {
  it.each([
    { path: 'password', want: [{ key: 'password' }] },
    { path: 'db.auth.password', want: [{ key: 'db' }, { key: 'auth' }, { key: 'password' }] },
    { path: 'tls.certs[1].crt', want: [{ key: 'tls' }, { key: 'certs' }, { index: 1 }, { key: 'crt' }] },
    { path: 'annotations.example\\.com/owner', want: [{ key: 'annotations' }, { key: 'example.com/owner' }] },
  ])('parses $path', ({ path, want }) => {
    expect(parseTargetPath(path)).toEqual(want);
  });

  it.each(['a..b', '[0]', 'a[x]', '.a'])('refuses %s with a reason', (path) => {
    expect(() => parseTargetPath(path)).toThrow(TargetPathError);
  });

  it.each([
    { text: 'hunter2', literal: false, want: 'hunter2' },
    { text: 'true', literal: false, want: true },
    { text: 'null', literal: false, want: null },
    { text: '8080', literal: false, want: 8080 },
    { text: '0800', literal: false, want: '0800' },
    { text: '"8080"', literal: false, want: '8080' },
    { text: 'a,b=c', literal: false, want: 'a,b=c' },
    { text: 'true', literal: true, want: 'true' },
    { text: '-----BEGIN CERTIFICATE-----\nMII…\n', literal: true, want: '-----BEGIN CERTIFICATE-----\nMII…\n' },
  ])('types $text (literal: $literal)', ({ text, literal, want }) => {
    expect(targetPathValue(text, literal)).toEqual(want);
  });

  it('sets the value at its path, keeping what is beside it, creating maps and lists', () => {
    const values = { db: { host: 'pg', auth: { user: 'app' } } };
    expect(setAtPath(values, parseTargetPath('db.auth.password'), 's3cret')).toEqual({ db: { host: 'pg', auth: { user: 'app', password: 's3cret' } } });
    expect(setAtPath({}, parseTargetPath('tls.certs[1].crt'), 'x')).toEqual({ tls: { certs: [null, { crt: 'x' }] } });
    expect(values.db.auth).toEqual({ user: 'app' }); // not modified in place
  });
});
