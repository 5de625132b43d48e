import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startPorticoServer, type PorticoServer } from '../support/cluster-modes.js';
import { fixtures, person, sleep } from './harness.js';

interface Attempt {
  status: number;
  body?: any;
  headers?: Record<string, unknown>;
  socket?: WebSocket;
}

/** One upgrade: 101 with the open socket, or the HTTP answer of a refusal. */
function upgrade(url: string, headers: Record<string, string> = {}): Promise<Attempt> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    socket.once('open', () => resolve({ status: 101, socket }));
    socket.once('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined, headers: res.headers }));
    });
    socket.once('error', (err) => {
      if (socket.readyState !== socket.CLOSED) reject(err);
    });
  });
}

/**
 * Issue 15, the WebSocket upgrade: a page on another origin cannot open a socket with a ticket it got hold of,
 * one user cannot open sockets without bound, and an address that keeps failing upgrades is locked out.
 */
describe('WebSocket upgrade guards', () => {
  let tp: PorticoServer;
  const opened: WebSocket[] = [];
  const ticket = async (id = 'alice') => (await tp.portico.auth.issueTicket(person(id))).ticket;

  beforeAll(async () => {
    tp = await startPorticoServer({
      mode: 'embedded',
      manifests: fixtures,
      env: {
        PORTICO_ALLOWED_ORIGINS: 'https://console.example.com, https://Portal.Example.com:443',
        PORTICO_WS_MAX_SOCKETS_PER_USER: '3',
        PORTICO_RATE_LIMITS: JSON.stringify({ wsUpgradeFailures: { limit: 6, windowSeconds: 60 } }),
      },
    });
  });
  afterAll(async () => {
    for (const s of opened) s.terminate();
    await tp?.close();
  });

  const open = async (headers: Record<string, string> = {}, id = 'alice') => {
    const attempt = await upgrade(`${tp.wsBase}/ws?ticket=${await ticket(id)}`, headers);
    if (attempt.socket) opened.push(attempt.socket);
    return attempt;
  };

  it('refuses a cross-origin upgrade with a valid ticket (403), and the ticket is not spent by it', async () => {
    const stolen = await ticket();
    const foreign = await upgrade(`${tp.wsBase}/ws?ticket=${stolen}`, { Origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.body).toMatchObject({ code: 'FORBIDDEN', requestId: expect.any(String) });
    for (const origin of ['null', 'not a url', `http://127.0.0.1:${new URL(tp.url).port}.evil.example`]) {
      expect((await upgrade(`${tp.wsBase}/ws?ticket=${stolen}`, { Origin: origin })).status, origin).toBe(403);
    }
    // The rightful client (no Origin: not a browser) still uses it.
    const own = await upgrade(`${tp.wsBase}/ws?ticket=${stolen}`);
    expect(own.status).toBe(101);
    own.socket!.close();
  });

  it('accepts the server\'s own origin, configured origins, and clients that send none', async () => {
    const own = new URL(tp.url).origin;
    const variants: Record<string, string>[] = [{ Origin: own }, { Origin: 'https://console.example.com' }, { Origin: 'https://portal.example.com' }, {}];
    for (const headers of variants) {
      const attempt = await open(headers);
      expect(attempt.status, JSON.stringify(headers)).toBe(101);
      attempt.socket!.close();
    }
  });

  it('caps open sockets per user (3 here): the next is 429, and closing one frees a place', async () => {
    await sleep(100); // the sockets closed above are gone
    const three = await Promise.all([open({}, 'carol'), open({}, 'carol'), open({}, 'carol')]);
    expect(three.map((a) => a.status)).toEqual([101, 101, 101]);
    const fourth = await open({}, 'carol');
    expect(fourth.status).toBe(429);
    expect(fourth.body).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', details: { limit: 3 } });
    expect(fourth.headers?.['retry-after']).toBeDefined();
    // Another user is not affected.
    expect((await open({}, 'dave')).status).toBe(101);

    const closed = new Promise((resolve) => three[0].socket!.once('close', resolve));
    three[0].socket!.close();
    await closed;
    await sleep(50);
    expect((await open({}, 'carol')).status).toBe(101);
  });

  it('locks an address out after repeated failed upgrades (429 with Retry-After), even with a valid ticket', async () => {
    // Four failures were counted above (the foreign origins): two more bad tickets reach the limit of 6.
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await upgrade(`${tp.wsBase}/ws?ticket=${'x'.repeat(43)}`)).status);
    expect(statuses).toEqual([401, 401, 429, 429, 429]);
    const locked = await upgrade(`${tp.wsBase}/ws?ticket=${'y'.repeat(43)}`);
    expect(locked.body).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED' });
    expect(Number(locked.headers?.['retry-after'])).toBeGreaterThan(0);
    const evenValid = await open({}, 'erin');
    expect(evenValid.status).toBe(429);
    // Plain HTTP from the same address is not affected: the lockout is about upgrades.
    expect((await fetch(`${tp.url}/healthz`)).status).toBe(200);
  });
});
