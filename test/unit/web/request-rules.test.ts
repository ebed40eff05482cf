import { describe, expect, it } from 'vitest';
import { changesState, csrfMatches, csrfTokenOf, needsSession, safeReturnTo } from '../../../src/web/server/request-rules.js';

describe('web request rules', () => {
  it.each([
    { path: '/', want: true },
    { path: '/releases/prod/unicorn', want: true },
    { path: '/healthz', want: false },
    { path: '/healthzz', want: true },
    { path: '/auth/login', want: false },
    { path: '/auth/callback', want: false },
    { path: '/authority', want: true },
    { path: '/assets/web.css', want: false },
    { path: '/mcp', want: false },
    { path: '/mcpx', want: true },
    { path: '/mcp/other', want: true },
    { path: '/.well-known/oauth-authorization-server', want: false },
    { path: '/.well-known/oauth-protected-resource/mcp', want: false },
    { path: '/oauth/token', want: false },
    { path: '/oauth/register', want: false },
    { path: '/oauth/authorize', want: true },
    { path: '/oauth/tokens', want: true },
  ])('needsSession($path) = $want', ({ path, want }) => expect(needsSession(path)).toBe(want));

  it.each([
    { method: 'GET', want: false },
    { method: 'HEAD', want: false },
    { method: 'POST', want: true },
    { method: 'delete', want: true },
  ])('changesState($method) = $want', ({ method, want }) => expect(changesState(method)).toBe(want));

  it.each([
    { name: 'form field', body: { _csrf: 'abc' }, header: undefined, want: 'abc' },
    { name: 'header', body: {}, header: 'hdr', want: 'hdr' },
    { name: 'field before header', body: { _csrf: 'abc' }, header: 'hdr', want: 'abc' },
    { name: 'neither', body: undefined, header: undefined, want: undefined },
    { name: 'a field that is not text', body: { _csrf: ['a'] }, header: undefined, want: undefined },
  ])('csrfTokenOf: $name', ({ body, header, want }) => expect(csrfTokenOf(body, header)).toBe(want));

  it.each([
    { sent: 'token', want: true },
    { sent: 'tokex', want: false },
    { sent: 'tok', want: false },
    { sent: undefined, want: false },
    { sent: '', want: false },
  ])('csrfMatches($sent)', ({ sent, want }) => expect(csrfMatches(sent, 'token')).toBe(want));

  it.each([
    { raw: '/releases/prod/unicorn?tab=history', want: '/releases/prod/unicorn?tab=history' },
    { raw: 'https://evil.example/', want: '/' },
    { raw: '//evil.example/', want: '/' },
    { raw: '/\\evil.example/', want: '/' },
    { raw: '/auth/logout', want: '/' },
    { raw: '/x\r\nSet-Cookie: a=b', want: '/' },
    { raw: undefined, want: '/' },
  ])('safeReturnTo($raw) = $want', ({ raw, want }) => expect(safeReturnTo(raw)).toBe(want));
});
