import { afterEach, describe, expect, it } from 'vitest';
import { loginLocal, loginSso } from '../src/index.js';
import { json, loginResponse, startFakeServer } from './fake-server.js';

let server: Awaited<ReturnType<typeof startFakeServer>> | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Plays the identity provider round trip: straight back to the loopback redirect with a code or an error. */
const oidcServer = (answer: string) =>
  startFakeServer({
    'GET /api/v1/auth/oidc/login': (req, res) => {
      const redirect = new URL(req.url, 'http://x').searchParams.get('redirect') ?? '';
      res.writeHead(302, { location: `${redirect}?${answer}` });
      res.end();
    },
    'POST /api/v1/auth/token-exchange': (req, res) =>
      JSON.parse(req.body).code === 'one-time'
        ? json(res, 200, loginResponse('sso-token'))
        : json(res, 401, { code: 'UNAUTHORIZED', message: 'invalid code', details: {} }),
  });

describe('loginLocal', () => {
  it('returns the token and user', async () => {
    server = await startFakeServer({ 'POST /api/v1/auth/local/login': (_, res) => json(res, 200, loginResponse('local-token')) });
    const res = await loginLocal(server.baseUrl, 'alice', 'secret-pass');
    expect(res.token).toBe('local-token');
    expect(JSON.parse(server.requests[0].body)).toEqual({ username: 'alice', password: 'secret-pass' });
  });
});

describe('loginSso', () => {
  it('opens the login URL with a loopback redirect and exchanges the code it receives', async () => {
    server = await oidcServer('code=one-time');
    let opened = '';
    let page = '';
    const res = await loginSso({
      baseUrl: server.baseUrl,
      provider: 'dex',
      openBrowser: async (url) => {
        opened = url;
        page = await (await fetch(url)).text(); // the "browser" follows the redirect to the loopback listener
      },
    });
    expect(res.token).toBe('sso-token');
    const url = new URL(opened);
    expect(url.pathname).toBe('/api/v1/auth/oidc/login');
    expect(url.searchParams.get('provider')).toBe('dex');
    expect(url.searchParams.get('redirect')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(page).toContain('close this tab');
  });

  it('fails with the provider error', async () => {
    server = await oidcServer('error=access_denied&error_description=user%20cancelled');
    const failure = loginSso({ baseUrl: server.baseUrl, openBrowser: (url) => void fetch(url).catch(() => undefined) });
    await expect(failure).rejects.toMatchObject({ code: 'SSO_FAILED', message: expect.stringContaining('access_denied') });
  });

  it('gives up after the wait time', async () => {
    server = await oidcServer('code=one-time');
    await expect(loginSso({ baseUrl: server.baseUrl, openBrowser: () => undefined, waitMs: 100 })).rejects.toMatchObject({ code: 'TIMEOUT' });
  });
});
