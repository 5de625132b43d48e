import { describe, expect, it } from 'vitest';
import { validateRedirect, withParams } from '../../src/auth/oidc/index.js';

const allowed = ['https://portal.example.com', 'https://ops.example.com:8443/'];

describe('safe redirects after sign-in', () => {
  it.each([
    [undefined, '/'],
    ['', '/'],
    ['/', '/'],
    ['/catalog', '/catalog'],
    ['/catalog?tab=mine#top', '/catalog?tab=mine#top'],
    ['/a/../b', '/b'],
    ['/%2F%2Fevil.example', '/%2F%2Fevil.example'],
    ['https://portal.example.com/after-login', 'https://portal.example.com/after-login'],
    ['https://PORTAL.example.com/x?y=1', 'https://portal.example.com/x?y=1'],
    ['https://ops.example.com:8443/cb', 'https://ops.example.com:8443/cb'],
    ['http://127.0.0.1:53682/callback', 'http://127.0.0.1:53682/callback'],
    ['http://localhost:8085/', 'http://localhost:8085/'],
    ['http://[::1]:9000/cb', 'http://[::1]:9000/cb'],
  ])('accepts %j as %j', (redirect, expected) => {
    expect(validateRedirect(redirect, allowed)).toBe(expected);
  });

  it.each([
    ['a protocol-relative URL', '//evil.example/x'],
    ['a backslash authority', '/\\evil.example'],
    ['backslashes anywhere', '/ok\\..\\x'],
    ['dot segments that normalise to //', '/.//evil.example'],
    ['an off-site URL', 'https://evil.example/'],
    ['a look-alike origin', 'https://portal.example.com.evil.example/'],
    ['an allowed host on another port', 'https://portal.example.com:444/'],
    ['an allowed host over http', 'http://portal.example.com/'],
    ['credentials in the URL', 'https://user:pw@portal.example.com/'],
    ['javascript:', 'javascript:alert(1)'],
    ['data:', 'data:text/html,<script>alert(1)</script>'],
    ['a loopback address without a port', 'http://127.0.0.1/callback'],
    ['a loopback address over https (not the CLI listener)', 'https://localhost:8443/'],
    ['another loopback spelling', 'http://127.0.0.2:8080/'],
    ['a relative path without a slash', 'catalog'],
    ['CR/LF (header injection)', '/x\r\nSet-Cookie: a=b'],
    ['an encoded-then-decoded CR/LF', '/x\nLocation: https://evil.example'],
    ['a NUL', '/x\u0000y'],
    ['a tab', '/x\ty'],
    ['a space', '/x y'],
    ['a unicode line separator', '/x\u2028y'],
    ['a leading space', ' /catalog'],
    ['something very long', `/${'a'.repeat(2048)}`],
  ])('refuses %s with 400', (_what, redirect) => {
    expect(() => validateRedirect(redirect, allowed)).toThrow(expect.objectContaining({ code: 'BAD_REQUEST', status: 400, details: { parameter: 'redirect' } }));
  });

  it('ignores malformed entries in the allowed origins instead of matching everything', () => {
    expect(() => validateRedirect('https://evil.example/', ['not a url', '', 'null'])).toThrow(expect.objectContaining({ code: 'BAD_REQUEST' }));
  });

  it('adds the code to the query, before a fragment, keeping relative redirects relative', () => {
    expect(withParams('/', { code: 'abc' })).toBe('/?code=abc');
    expect(withParams('/catalog?tab=mine#top', { code: 'abc' })).toBe('/catalog?tab=mine&code=abc#top');
    expect(withParams('/catalog?code=stale', { code: 'abc' })).toBe('/catalog?code=abc');
    expect(withParams('http://127.0.0.1:53682/callback', { error: 'access_denied' })).toBe('http://127.0.0.1:53682/callback?error=access_denied');
  });
});
