import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createMemoryKeyValue, systemActor, unavailable, type Actor, type Cluster, type KeyValue, type Portico } from '@portico/core';
import { WebSocket } from 'ws';
import type { WebSocketHandle, WebSocketOptions } from '../../src/ws/index.js';
import { startPorticoServer, type ClusterMode, type PorticoServer } from '../support/cluster-modes.js';

export const fixtures = [fileURLToPath(new URL('./fixtures/catalog.yaml', import.meta.url))];

/** An identity-provider user (not a local account): what a ticket stands for. */
export const person = (id: string): Actor => ({ ...systemActor(id), local: false, tokenId: randomUUID(), issuer: 'test', expiresAt: new Date(Date.now() + 3_600_000) });

export const admin = systemActor('admin');

export const ADMIN_PASSWORD = 'correct-horse-battery-staple';

export interface Stack {
  mode: ClusterMode;
  portico: Portico;
  /** A client of the cluster that is not Portico (kubectl): the embedded cluster, or one on the fake API server. */
  cluster: Cluster;
  ws: WebSocketHandle;
  /** `ws://127.0.0.1:<port>` */
  base: string;
  /** The underlying test server (URLs, kro, the fake API server in Kubernetes mode). */
  server: PorticoServer;
  ticketFor(actor: Actor): Promise<string>;
  close(): Promise<void>;
}

/** A KeyValue whose calls can be made to fail like an unreachable store. */
export function switchableKv(inner: KeyValue): KeyValue & { down: boolean } {
  const kv = {
    down: false,
    guard<T>(call: () => Promise<T>): Promise<T> {
      return kv.down ? Promise.reject(unavailable('keyvalue', 2)) : call();
    },
    get: (key: string) => kv.guard(() => inner.get(key)),
    set: (key: string, value: string, opts?: { ttlMs?: number; ifAbsent?: boolean }) => kv.guard(() => inner.set(key, value, opts)),
    getdel: (key: string) => kv.guard(() => inner.getdel(key)),
    del: (key: string) => kv.guard(() => inner.del(key)),
    compareAndSet: (key: string, expected: string, value: string | undefined, opts?: { ttlMs?: number }) => kv.guard(() => inner.compareAndSet(key, expected, value, opts)),
    incrWindow: (key: string, windowMs: number) => kv.guard(() => inner.incrWindow(key, windowMs)),
    throttle: (key: string, limit: number, periodMs: number) => kv.guard(() => inner.throttle(key, limit, periodMs)),
    publish: (channel: string, message: string) => kv.guard(() => inner.publish(channel, message)),
    subscribe: (channel: string, onMessage: (m: string) => void) => inner.subscribe(channel, onMessage),
    health: () => inner.health(),
    close: () => inner.close(),
  };
  return kv;
}

/**
 * A Portico on the chosen cluster adapter (seeded with the fixtures), an HTTP server and the WebSocket on it.
 * `join` makes it a second replica on the same cluster (in Kubernetes mode, the same API server).
 */
export async function startStack(
  opts: { mode?: ClusterMode; kv?: KeyValue; ws?: WebSocketOptions; kroStepMs?: number; join?: Stack } = {},
): Promise<Stack> {
  const kv = opts.kv ?? createMemoryKeyValue();
  const server = await startPorticoServer({
    mode: opts.mode ?? 'embedded',
    manifests: fixtures,
    kv,
    ws: opts.ws,
    kroStepMs: opts.kroStepMs ?? 20,
    adminPassword: ADMIN_PASSWORD,
    join: opts.join?.server,
  });
  return {
    mode: server.mode,
    portico: server.portico,
    cluster: server.kubectl,
    ws: server.ws,
    base: server.wsBase,
    server,
    ticketFor: async (actor) => (await server.portico.auth.issueTicket(actor)).ticket,
    async close() {
      await server.close();
      if (!opts.kv) await kv.close();
    },
  };
}

export interface Frame {
  type: string;
  timestamp: string;
  data: any;
}

export interface Client {
  socket: WebSocket;
  frames: Frame[];
  /** The first frame (already received or to come) matching `match`. */
  next(match: (f: Frame) => boolean, timeoutMs?: number): Promise<Frame>;
  send(message: unknown): void;
  closed: Promise<{ code: number; reason: string }>;
}

/** Opens a socket and records every frame from the first one on. */
export function connect(url: string): Promise<Client> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    const frames: Frame[] = [];
    const waiters = new Set<() => void>();
    const closed = new Promise<{ code: number; reason: string }>((res) =>
      socket.on('close', (code, reason) => res({ code, reason: reason.toString() })),
    );
    socket.on('message', (data) => {
      frames.push(JSON.parse(data.toString()));
      for (const w of [...waiters]) w();
    });
    socket.once('unexpected-response', (_req, res) => reject(new Error(`unexpected ${res.statusCode}`)));
    socket.once('error', reject);
    socket.once('open', () =>
      resolve({
        socket,
        frames,
        closed,
        send: (message) => socket.send(typeof message === 'string' ? message : JSON.stringify(message)),
        next(match, timeoutMs = 10_000) {
          const hit = frames.find(match);
          if (hit) return Promise.resolve(hit);
          return new Promise((res, rej) => {
            const check = () => {
              const found = frames.find(match);
              if (!found) return;
              waiters.delete(check);
              clearTimeout(timer);
              res(found);
            };
            const timer = setTimeout(() => {
              waiters.delete(check);
              rej(new Error('timed out waiting for a frame'));
            }, timeoutMs);
            waiters.add(check);
          });
        },
      }),
    );
  });
}

/** The HTTP answer to an upgrade the server refuses. */
export function refused(url: string): Promise<{ status: number; body: any; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    socket.once('open', () => {
      socket.close();
      reject(new Error('the upgrade was accepted'));
    });
    socket.once('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined, headers: res.headers }));
    });
    socket.once('error', () => undefined);
  });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function waitUntil(check: () => boolean, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}
