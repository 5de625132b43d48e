import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiAs } from '../support/api-as.js';
import { startPorticoServer, type PorticoServer } from '../support/cluster-modes.js';

/** A connection from `localAddress` that sends a request line and then one header line every `everyMs`. */
function trickle(port: number, localAddress: string, everyMs: number) {
  const socket = net.connect({ host: '127.0.0.1', port, localAddress });
  let received = '';
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => undefined);
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  let n = 0;
  let timer: NodeJS.Timeout | undefined;
  socket.once('connect', () => {
    socket.write('GET /healthz HTTP/1.1\r\nHost: portico\r\n');
    timer = setInterval(() => {
      if (!socket.destroyed) socket.write(`X-Slow-${n++}: x\r\n`);
    }, everyMs);
  });
  closed.then(() => clearInterval(timer));
  return {
    socket,
    closed,
    get received() {
      return received;
    },
    stop: () => {
      clearInterval(timer);
      socket.destroy();
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A complete `GET /healthz` from `localAddress`; resolves with everything the server sent. */
function plainGet(port: number, localAddress: string): Promise<string> {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port, localAddress }, () => s.write('GET /healthz HTTP/1.1\r\nHost: portico\r\nConnection: close\r\n\r\n'));
    let text = '';
    s.on('data', (c: Buffer) => (text += c.toString()));
    s.on('error', () => undefined);
    s.on('close', () => resolve(text));
  });
}

/**
 * Issue 15, slow clients (slowloris), with numbers bounded for a test on loopback: 400 connections from one
 * address that trickle their headers (a second address, 127.0.0.2, stands for the attacker) cannot starve a
 * real user, are capped per address at once, and are all cut off after the headers timeout.
 */
describe('slow clients cannot starve real users', () => {
  let tp: PorticoServer;
  const attackers: ReturnType<typeof trickle>[] = [];

  beforeAll(async () => {
    tp = await startPorticoServer({
      mode: 'embedded',
      env: { PORTICO_HEADERS_TIMEOUT_MS: '10000', PORTICO_REQUEST_TIMEOUT_MS: '12000', PORTICO_MAX_CONNECTIONS_PER_IP: '50' },
    });
  });
  afterAll(async () => {
    for (const a of attackers) a.stop();
    await tp?.close();
  });

  it('caps one address\'s connections, serves everyone else meanwhile, and drops trickling headers after the timeout', { timeout: 40_000 }, async () => {
    const port = Number(new URL(tp.url).port);
    for (let i = 0; i < 400; i++) attackers.push(trickle(port, '127.0.0.2', 200));
    const stillOpen = () => attackers.filter((a) => !a.socket.destroyed).length;
    const started = Date.now();

    // Beyond the cap, the attacker's connections are answered 503 and closed as soon as they are accepted,
    // long before the headers timeout could have cut them off.
    while (stillOpen() > 50 && Date.now() - started < 8_000) await sleep(50);
    expect(stillOpen()).toBeLessThanOrEqual(50);
    // One more from that address, while the cap is full, is told why.
    const overCap = await plainGet(port, '127.0.0.2');
    expect(overCap).toMatch(/^HTTP\/1.1 503/);
    expect(overCap).toContain('Retry-After: 1');

    // A real user (another address) is served normally, authenticated routes included.
    const admin = apiAs(tp.url, tp.adminToken);
    const replies = await Promise.all(Array.from({ length: 20 }, () => admin.get('/api/v1/projects')));
    expect(replies.map((r) => r.status)).toEqual(replies.map(() => 200));
    expect((await fetch(`${tp.url}/healthz`)).status).toBe(200);

    // The capped ones that kept trickling are cut off once the headers timeout passes (not after ~75 s).
    const deadline = started + 16_000;
    while (stillOpen() > 0 && Date.now() < deadline) await sleep(100);
    expect(stillOpen()).toBe(0);
    const timedOut = attackers.find((a) => a.received.startsWith('HTTP/1.1 408'));
    expect(timedOut?.received).toContain('REQUEST_TIMEOUT');

    // And the address may connect again afterwards.
    const again = await plainGet(port, '127.0.0.2');
    expect(again.startsWith('HTTP/1.1 200')).toBe(true);
  });
});
