import type { Portico } from '@portico/core';
import { createServer, type CreateServerOptions } from '../../src/app.js';

export interface RunningServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** The real HTTP server on an ephemeral port of 127.0.0.1. */
export async function startServer(portico: Portico, opts?: CreateServerOptions): Promise<RunningServer> {
  const app = createServer(portico, opts);
  const address = await app.listen('127.0.0.1', 0);
  return { url: `http://127.0.0.1:${address.port}`, port: address.port, close: () => app.close() };
}

export const json = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

export const bearer = (token: string, init: RequestInit = {}): RequestInit => ({
  ...init,
  headers: { ...(init.headers as Record<string, string> | undefined), authorization: `Bearer ${token}` },
});
