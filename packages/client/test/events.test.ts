import { afterEach, describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import { createClient, type PorticoClient } from '../src/index.js';
import { json, startFakeServer } from './fake-server.js';

let server: Awaited<ReturnType<typeof startFakeServer>> | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const frame = (type: string, data: unknown) => JSON.stringify({ type, timestamp: new Date().toISOString(), data });
const progress = (ready: number) => ({
  instanceId: 'alpha-dev/Postgres/db',
  project: 'alpha',
  namespace: 'alpha-dev',
  kind: 'Postgres',
  name: 'db',
  phase: 'Deploying',
  totalResources: 3,
  readyResources: ready,
  message: `${ready}/3 ready`,
});

/** A server that issues t1, t2, … and accepts each ticket once, like the real one. */
async function ticketServer(onSubscribed: (ws: WebSocket, connection: number, subscribe: unknown) => void) {
  let issued = 0;
  const used = new Set<string>();
  const ticketsSeen: string[] = [];
  let connections = 0;
  const srv = await startFakeServer(
    {
      'POST /api/v1/ws/ticket': (_, res) => json(res, 200, { ticket: `t${++issued}`, expiresAt: '2099-01-01T00:00:00Z' }),
    },
    (ws, url) => {
      const ticket = url.searchParams.get('ticket') ?? '';
      ticketsSeen.push(ticket);
      if (used.has(ticket) || !ticket.startsWith('t')) return ws.close(1008, 'bad ticket');
      used.add(ticket);
      const n = ++connections;
      ws.once('message', (raw) => {
        const msg = JSON.parse(String(raw));
        ws.send(frame('subscribed', { ...msg.data, success: true }));
        onSubscribed(ws, n, msg);
      });
    },
  );
  return Object.assign(srv, { ticketsSeen });
}

const fastClient = (baseUrl: string): PorticoClient =>
  createClient({ baseUrl, token: 'tok', reconnect: { initialDelayMs: 20, maxDelayMs: 100 } });

describe('events.subscribe', () => {
  it('yields parsed server messages and reconnects after a drop with a fresh ticket, resubscribing', async () => {
    const subscribeFrames: unknown[] = [];
    const srv = await ticketServer((ws, n, msg) => {
      subscribeFrames.push(msg);
      ws.send(frame('deploy_progress', progress(n)));
      if (n < 3) setTimeout(() => ws.terminate(), 10); // drop the connection twice
    });
    server = srv;
    const errors: Error[] = [];
    const sub = fastClient(srv.baseUrl).events.subscribe(
      { resourceType: 'instances', project: 'alpha' },
      { onError: (e) => errors.push(e) },
    );
    const ready: number[] = [];
    for await (const msg of sub) {
      if (msg.type === 'deploy_progress') ready.push(msg.data.readyResources);
      if (ready.length === 3) break;
    }
    expect(ready).toEqual([1, 2, 3]);
    expect(srv.ticketsSeen).toEqual(['t1', 't2', 't3']);
    expect(subscribeFrames).toHaveLength(3);
    expect(subscribeFrames[2]).toMatchObject({ type: 'subscribe', data: { resourceType: 'instances', project: 'alpha' } });
    expect(errors.length).toBeGreaterThanOrEqual(2);
    expect(sub.closed).toBe(true); // break closed it
  });

  it('calls onEvent and stops for good on close()', async () => {
    let serverSide: WebSocket | undefined;
    const srv = await ticketServer((ws) => {
      serverSide = ws;
      ws.send(frame('counts_update', { rgdCount: 4, instanceCount: 9 }));
    });
    server = srv;
    const got = await new Promise<unknown>((resolve) => {
      const sub = fastClient(srv.baseUrl).events.subscribe(
        { resourceType: 'all' },
        {
          onEvent: (m) => {
            if (m.type === 'counts_update') {
              sub.close();
              resolve(m.data);
            }
          },
        },
      );
    });
    expect(got).toEqual({ rgdCount: 4, instanceCount: 9 });
    // close() hangs up: the server sees its end of the socket close, with no help from the server.
    const hungUp = await new Promise<boolean>((resolve) => {
      if (serverSide!.readyState === serverSide!.CLOSED) return resolve(true);
      const timer = setTimeout(() => resolve(false), 2000);
      serverSide!.once('close', () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    expect(hungUp).toBe(true);
    // ...and does not come back (a reconnecting client would have asked for a ticket again within 20–100 ms).
    await new Promise((r) => setTimeout(r, 200));
    expect(srv.ticketsSeen).toEqual(['t1']);
  });

  it('ends the iterator with the error when the token is refused', async () => {
    server = await startFakeServer({
      'POST /api/v1/ws/ticket': (_, res) => json(res, 401, { code: 'UNAUTHORIZED', message: 'token expired', details: {} }),
    });
    const sub = fastClient(server.baseUrl).events.subscribe({ resourceType: 'instances' });
    await expect(sub.next()).rejects.toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
    expect(sub.closed).toBe(true);
  });

  it('reports unreadable frames without dropping the stream', async () => {
    const srv = await ticketServer((ws) => {
      ws.send('not json');
      ws.send(frame('counts_update', { rgdCount: 1, instanceCount: 2 }));
    });
    server = srv;
    const errors: Error[] = [];
    const sub = fastClient(srv.baseUrl).events.subscribe({ resourceType: 'all' }, { controlFrames: true, onError: (e) => errors.push(e) });
    const types: string[] = [];
    for await (const msg of sub) {
      types.push(msg.type);
      if (msg.type === 'counts_update') break;
    }
    expect(types).toEqual(['subscribed', 'counts_update']);
    expect(errors.map((e) => (e as { code?: string }).code)).toEqual(['INVALID_MESSAGE']);
  });

  it('keeps control frames out of the iterator unless asked for, while onEvent still sees them', async () => {
    const srv = await ticketServer((ws) => {
      ws.send(frame('counts_update', { rgdCount: 1, instanceCount: 2 }));
      ws.send(frame('pong', {}));
      ws.send(frame('deploy_progress', progress(2)));
    });
    server = srv;
    const heard: string[] = [];
    const sub = fastClient(srv.baseUrl).events.subscribe({ resourceType: 'instances' }, { onEvent: (m) => heard.push(m.type) });
    const first = await sub.next();
    sub.close();
    expect(first.value).toMatchObject({ type: 'deploy_progress', data: { readyResources: 2 } });
    expect(heard).toEqual(['subscribed', 'counts_update', 'pong', 'deploy_progress']);
  });
});
