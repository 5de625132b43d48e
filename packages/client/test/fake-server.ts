import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type Handler = (req: RecordedRequest, res: ServerResponse) => void;

/** A tiny HTTP + WebSocket server standing in for Portico: routes are `METHOD /path` → handler. */
export async function startFakeServer(routes: Record<string, Handler>, onSocket?: (ws: WebSocket, url: URL) => void) {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const recorded = { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body };
      requests.push(recorded);
      const path = new URL(recorded.url, 'http://x').pathname;
      const handler = routes[`${recorded.method} ${path}`];
      if (handler) return handler(recorded, res);
      json(res, 404, { code: 'NOT_FOUND', message: 'no such route', details: {} });
    });
  });
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://x');
    wss.handleUpgrade(req, socket, head, (ws) => onSocket?.(ws, url));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: async () => {
      for (const ws of wss.clients) ws.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

export const rgd = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  title: name,
  description: `the ${name} template`,
  category: 'databases',
  tags: ['sql'],
  labels: {},
  apiVersion: 'kro.run/v1alpha1',
  kind: name[0].toUpperCase() + name.slice(1),
  extendsKinds: [],
  allowedDeploymentModes: ['direct'],
  isClusterScoped: false,
  status: 'Active',
  instances: 0,
  createdAt: '2025-01-01T00:00:00Z',
  updatedAt: '2025-01-01T00:00:00Z',
  lastIssuedRevision: 1,
  ...extra,
});

export const instance = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  namespace: 'alpha-dev',
  isClusterScoped: false,
  project: 'alpha',
  rgdName: 'postgres',
  apiVersion: 'kro.run/v1alpha1',
  kind: 'Postgres',
  spec: {},
  status: { state: 'ACTIVE', conditions: [] },
  health: 'Healthy',
  conditions: [],
  deploymentMode: 'direct',
  labels: {},
  createdAt: '2025-01-01T00:00:00Z',
  createdBy: 'user:alice',
  updatedAt: '2025-01-01T00:00:00Z',
  resourceVersion: '1',
  uid: 'u-1',
  ...extra,
});

export const loginResponse = (token = 'tok-1') => ({
  token,
  expiresAt: '2099-01-01T00:00:00Z',
  user: { id: 'user:alice', email: 'alice@example.com', displayName: 'Alice', groups: [], projects: [], roles: {}, casbinRoles: [] },
});
