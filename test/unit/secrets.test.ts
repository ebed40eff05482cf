import { createHash } from 'node:crypto';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { redactSecrets } from '../../src/controller/reconcile/decide/redact.js';
import { SecretValues } from '../../src/core/release/secret-values.js';
import { ValuesDigester } from '../../src/core/release/values-digest.js';

describe('redactSecrets', () => {
  const secrets = ['hunter2-pass', 'Hot "Pink" <3 & co', 'line one\nline two', 'a\\b\\c'];
  it.each([
    { name: 'as is', text: "at '/color': 'hunter2-pass' does not match", want: "at '/color': '[redacted]' does not match" },
    { name: 'JSON-quoted with escaped quotes', text: 'value "Hot \\"Pink\\" <3 & co" is invalid', want: 'value "[redacted]" is invalid' },
    { name: 'Go HTML-safe JSON', text: '{"color":"Hot \\"Pink\\" \\u003c3 \\u0026 co"}', want: '{"color":"[redacted]"}' },
    {
      name: 'quoted twice (JSON inside an error string)',
      text: 'body: "{\\"color\\":\\"Hot \\\\\\"Pink\\\\\\" <3 & co\\"}"',
      want: 'body: "{\\"color\\":\\"[redacted]\\"}"',
    },
    { name: 'newline escaped', text: 'got "line one\\nline two"', want: 'got "[redacted]"' },
    { name: 'lines joined by the stderr excerpt', text: 'Error: x line one line two', want: 'Error: x [redacted] [redacted]' },
    { name: 'backslashes doubled', text: 'path "a\\\\b\\\\c"', want: 'path "[redacted]"' },
    { name: 'several times', text: 'hunter2-pass,hunter2-pass', want: '[redacted],[redacted]' },
    { name: 'nothing secret', text: 'Error: timed out', want: 'Error: timed out' },
  ])('$name', ({ text, want }) => expect(redactSecrets(text, secrets)).toBe(want));

  it('leaves strings shorter than 4 characters alone (they are everywhere in helm output)', () => {
    expect(redactSecrets('replicas: 1, enabled: true, on', ['1', 'on', 'tru'])).toBe('replicas: 1, enabled: true, on');
  });
  it('prefers the longer secret, so no part of it is left', () => {
    expect(redactSecrets('password-long-version', ['password', 'password-long-version'])).toBe('[redacted]');
  });
  it('never rescans its own marker', () => expect(redactSecrets('hunter2-pass', ['hunter2-pass', 'dacted'])).toBe('[redacted]'));
});

describe('SecretValues', () => {
  it('collects the raw text and every string and number leaf of a Secret', () => {
    const set = new SecretValues();
    set.addSource('db:\n  password: s3cr3t-pw\n  port: 54321\n', { db: { password: 's3cr3t-pw', port: 54321, tls: true, short: 'ab' } });
    expect(set.list()).toEqual(expect.arrayContaining(['s3cr3t-pw', '54321', 'password: s3cr3t-pw', 'db:\n  password: s3cr3t-pw\n  port: 54321']));
    expect(set.list()).not.toContain('ab');
    expect(set.list()).not.toContain('true');
  });
  it('never shows its content when serialized or logged', () => {
    const set = new SecretValues();
    set.add('s3cr3t-pw');
    expect(JSON.stringify({ secrets: set })).not.toContain('s3cr3t');
    expect(inspect({ secrets: set })).not.toContain('s3cr3t');
  });
});

describe('ValuesDigester', () => {
  const key = Buffer.alloc(32, 1);
  it('same values, same key → same digest, whatever the key order', () => {
    expect(new ValuesDigester(key).digest({ a: 1, b: { c: 'x', d: 2 } })).toBe(new ValuesDigester(Buffer.from(key)).digest({ b: { d: 2, c: 'x' }, a: 1 }));
  });
  it('another key → another digest', () => {
    expect(new ValuesDigester(key).digest({ password: 'hunter2' })).not.toBe(new ValuesDigester(Buffer.alloc(32, 2)).digest({ password: 'hunter2' }));
  });
  it('a weak password’s digest is not its plain sha256 (no wordlist lookup)', () => {
    const values = { password: 'hunter2' };
    const plain = createHash('sha256').update(JSON.stringify(values)).digest('hex');
    const digest = new ValuesDigester(key).digest(values);
    expect(digest).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    expect(digest).not.toContain(plain);
  });
  it('refuses a short key', () => expect(() => new ValuesDigester(Buffer.alloc(8))).toThrow(/at least 16 bytes/));
});
