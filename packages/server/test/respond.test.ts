import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakePortico, goodToken } from './support/fake-portico.js';
import { bearer, startServer, type RunningServer } from './support/server.js';

// JSON answers go out as text when small (written with the head in one go) and as bytes when large; either way
// the client gets the whole body, and Content-Length counts its bytes, whatever characters it holds.

describe('JSON answers', () => {
  let server: RunningServer;
  let displayName = '';

  beforeAll(async () => {
    const portico = fakePortico({ overrides: { access: { accountInfo: () => ({ userID: 'zoe', displayName }) as never } } });
    server = await startServer(portico);
  });
  afterAll(() => server.close());

  const account = async (name: string, method = 'GET') => {
    displayName = name;
    const res = await fetch(`${server.url}/api/v1/account`, bearer(goodToken, { method }));
    return { res, text: await res.text() };
  };

  it.each([
    ['a small one', 'Zoë Ångström — 東京 🚀'],
    ['a large one', 'Zoë Ångström — 東京 🚀 '.repeat(400)],
  ])('%s with characters beyond ASCII arrives whole, its Content-Length in bytes', async (_title, name) => {
    const { res, text } = await account(name);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(JSON.parse(text)).toEqual({ userID: 'zoe', displayName: name });
    expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(text));
  });

  it('answers HEAD with the length of the body GET would send, and no body', async () => {
    const name = 'Zoë — 東京';
    const { res, text } = await account(name, 'HEAD');
    expect(res.status).toBe(200);
    expect(text).toBe('');
    expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(JSON.stringify({ userID: 'zoe', displayName: name })));
  });
});
