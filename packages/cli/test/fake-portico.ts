import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';

/** Just enough of Portico's HTTP and WebSocket API for the CLI tests; `requests` records what was asked. */

const json = (res: ServerResponse, status: number, body: unknown, requestId = 'req-1') => {
  res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': requestId });
  res.end(JSON.stringify(body));
};
const envelope = (code: string, message: string, requestId: string, details: Record<string, unknown> = {}) => ({ code, message, details, requestId });

export const TOKEN = 'tok-alice';

export const rgd = (name: string, kind: string, extra: Record<string, unknown> = {}) => ({
  name,
  title: name,
  description: `the ${name} template`,
  category: 'databases',
  tags: ['sql'],
  labels: {},
  apiVersion: 'kro.run/v1alpha1',
  kind,
  extendsKinds: [],
  allowedDeploymentModes: ['direct', 'gitops'],
  isClusterScoped: false,
  status: 'Active',
  instances: 2,
  createdAt: '2025-01-01T00:00:00Z',
  updatedAt: '2025-01-01T00:00:00Z',
  lastIssuedRevision: 1,
  ...extra,
});

const rgds = [rgd('postgres', 'Postgres'), rgd('redis', 'Redis'), rgd('bucket', 'Bucket')];

const postgresSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'database name' },
    size: { type: 'integer', default: 1 },
  },
  required: ['name'],
};

export const instance = (name: string, health: string, extra: Record<string, unknown> = {}) => ({
  name,
  namespace: 'alpha-dev',
  isClusterScoped: false,
  project: 'alpha',
  rgdName: 'postgres',
  apiVersion: 'kro.run/v1alpha1',
  kind: 'Postgres',
  spec: { name: 'app' },
  status: { state: 'IN_PROGRESS', conditions: [] },
  health,
  conditions: health === 'Unhealthy' ? [{ type: 'Ready', status: 'False', message: 'volume cannot be provisioned' }] : [],
  deploymentMode: 'direct',
  labels: {},
  createdAt: '2025-01-01T00:00:00Z',
  createdBy: 'user:alice',
  updatedAt: '2025-01-01T00:00:00Z',
  resourceVersion: '1',
  uid: `uid-${name}`,
  ...extra,
});

export async function startFakePortico() {
  const requests: { method: string; url: string; body: string; authorization?: string }[] = [];
  /** Instances created so far; the name decides how deployment ends ("broken…" → Unhealthy). */
  const created = new Map<string, ReturnType<typeof instance>>();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const authorization = req.headers.authorization;
      requests.push({ method: req.method ?? '', url: req.url ?? '', body, authorization });
      const route = `${req.method} ${url.pathname}`;

      if (route === 'POST /api/v1/auth/local/login') {
        const { username, password } = JSON.parse(body);
        if (username === 'alice' && password === 'correct horse') {
          return json(res, 200, {
            token: TOKEN,
            expiresAt: '2099-01-01T00:00:00Z',
            user: { id: 'user:alice', email: 'alice@example.com', displayName: 'Alice', groups: [], projects: ['alpha'], roles: {}, casbinRoles: [] },
          });
        }
        return json(res, 401, envelope('UNAUTHORIZED', 'invalid username or password', 'req-login'), 'req-login');
      }
      if (authorization === 'Bearer revoked') return json(res, 401, envelope('UNAUTHORIZED', 'token revoked', 'req-401'));
      if (authorization !== `Bearer ${TOKEN}`) return json(res, 401, envelope('UNAUTHORIZED', 'authentication required', 'req-401'));

      if (route === 'GET /api/v1/rgds') {
        const page = Number(url.searchParams.get('page') ?? 1);
        const pageSize = Number(url.searchParams.get('pageSize') ?? 20);
        return json(res, 200, { items: rgds.slice((page - 1) * pageSize, page * pageSize), totalCount: rgds.length, page, pageSize });
      }
      if (route === 'GET /api/v1/rgds/postgres') return json(res, 200, { ...rgds[0], schema: postgresSchema, resources: [{ id: 'db', kind: 'StatefulSet', dependsOn: [] }] });
      const canI = /^GET \/api\/v1\/account\/can-i\/(\w+)\/(\w+)\/([^/]+)$/.exec(route);
      if (canI) return json(res, 200, { value: canI[1] === 'instances' && canI[2] === 'create' && canI[3] === 'alpha' ? 'yes' : 'no' });
      // Role change in project alpha: unbinding works, binding to "auditor" is refused.
      if (route === 'DELETE /api/v1/projects/alpha/roles/developer/users/bob') {
        res.writeHead(204);
        return res.end();
      }
      if (route === 'POST /api/v1/projects/alpha/roles/auditor/users/bob') {
        return json(res, 400, envelope('BAD_REQUEST', 'role "auditor" is not defined in project "alpha"', 'req-bind'), 'req-bind');
      }
      if (route === 'GET /api/v1/projects/secret') return json(res, 403, envelope('FORBIDDEN', 'permission denied', 'abc123'), 'abc123');
      if (route === 'POST /api/v1/namespaces/alpha-dev/instances/Postgres') {
        const b = JSON.parse(body);
        const i = instance(b.name, 'Progressing', { spec: b.values });
        created.set(b.name, i);
        return json(res, 201, i);
      }
      const get = /^GET \/api\/v1\/namespaces\/alpha-dev\/instances\/Postgres\/([a-z0-9-]+)$/.exec(route);
      if (get && created.has(get[1])) return json(res, 200, created.get(get[1]));
      if (route === 'POST /api/v1/ws/ticket') return json(res, 200, { ticket: `ticket-${requests.length}`, expiresAt: '2099-01-01T00:00:00Z' });
      json(res, 404, envelope('NOT_FOUND', `no route ${route}`, 'req-404', { resource: 'route', identifier: url.pathname }));
    });
  });

  // On subscribe: two progress events, then the final health of the instance named in the filter.
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => wss.handleUpgrade(req, socket, head, (ws) => {
    ws.once('message', (raw) => {
      const { data } = JSON.parse(String(raw));
      const send = (type: string, d: unknown) => ws.send(JSON.stringify({ type, timestamp: '2025-01-01T00:00:00Z', data: d }));
      send('subscribed', data);
      const name: string = data.name;
      const progress = (ready: number) => ({
        instanceId: `alpha-dev/Postgres/${name}`, project: 'alpha', namespace: 'alpha-dev', kind: 'Postgres', name,
        phase: 'Deploying', totalResources: 2, readyResources: ready, message: `${ready} of 2 ready`,
      });
      setTimeout(() => send('deploy_progress', progress(1)), 20);
      setTimeout(() => send('deploy_progress', progress(2)), 40);
      setTimeout(() => {
        const health = name.startsWith('broken') ? 'Unhealthy' : 'Healthy';
        const i = instance(name, health);
        created.set(name, i);
        send('instance_update', { action: 'update', namespace: 'alpha-dev', kind: 'Postgres', name, project: 'alpha', instance: i });
      }, 60);
    });
  }));

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: async () => {
      for (const ws of wss.clients) ws.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
