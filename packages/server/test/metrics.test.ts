import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryKeyValue } from '../../core/src/adapters/memory-kv.js';
import { systemActor } from '@portico/core';
import { createServer, type PorticoServer } from '../src/app.js';
import { createServerMetrics, listenForMetrics, type MetricsListener } from '../src/metrics/index.js';
import { attachWebSocket } from '../src/ws/index.js';
import { startPorticoStack, type PorticoStack } from './hostile/stack.js';
import { connect, switchableKv, type Client } from './ws/harness.js';

/** One sample of the Prometheus text format, e.g. `portico_http_requests_total{route="listRgds",...} 3`. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  let total = 0;
  for (const line of text.split('\n')) {
    const match = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const have = (match[2] ?? '').split(',');
    if (wanted.every((w) => have.includes(w))) total += Number(match[3]);
  }
  return total;
}

describe('/metrics on its own port', () => {
  const kv = switchableKv(createMemoryKeyValue());
  let stack: PorticoStack;
  let app: PorticoServer;
  let url: string;
  let scrapeListener: MetricsListener;
  let client: Client | undefined;
  let token: string;

  const scrape = async () => {
    const res = await fetch(`http://127.0.0.1:${scrapeListener.address.port}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return res.text();
  };
  const get = (path: string, auth = true) => fetch(`${url}${path}`, { headers: auth ? { authorization: `Bearer ${token}` } : {} });

  beforeAll(async () => {
    stack = await startPorticoStack({ kv, env: { PORTICO_RATE_LIMITS: '{"user":{"limit":4,"windowSeconds":60}}' } });
    const metrics = createServerMetrics(stack.portico);
    app = createServer(stack.portico, {
      metrics,
      upgrade: (server) => {
        const sockets = attachWebSocket(server, stack.portico, { onEventSent: metrics.eventSent });
        metrics.countConnectionsWith(sockets.connectionCount);
        return sockets;
      },
    });
    const address = await app.listen('127.0.0.1', 0);
    url = `http://127.0.0.1:${address.port}`;
    scrapeListener = await listenForMetrics(metrics, '127.0.0.1', 0);
    token = await stack.adminToken();
  });

  afterAll(async () => {
    client?.socket.terminate();
    await app?.close();
    await scrapeListener?.close();
    await stack?.close();
    await kv.close();
  });

  it('counts requests by route id and status, times them, and counts rate-limit rejections', async () => {
    const before = await scrape();
    for (let i = 0; i < 3; i++) expect((await get('/api/v1/rgds')).status).toBe(200);
    expect((await get('/api/v1/rgds', false)).status).toBe(401);
    expect((await get('/api/v1/no-such-thing/alpha')).status).toBe(404);
    const refused = await get('/api/v1/projects');
    const again = await get('/api/v1/projects');
    expect([refused.status, again.status]).toContain(429);
    const after = await scrape();

    const moved = (name: string, labels: Record<string, string>) => sample(after, name, labels) - sample(before, name, labels);
    expect(moved('portico_http_requests_total', { route: 'listRgds', method: 'GET', status: '200' })).toBe(3);
    expect(moved('portico_http_requests_total', { route: 'listRgds', status: '401' })).toBe(1);
    expect(moved('portico_http_requests_total', { route: 'unmatched', status: '404' })).toBe(1);
    expect(moved('portico_http_request_duration_seconds_count', { route: 'listRgds' })).toBe(4);
    expect(moved('portico_rate_limit_rejections_total', { route: 'listProjects' })).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'portico_component_up', { component: 'watch:projects' })).toBe(1);
    expect(sample(after, 'process_resident_memory_bytes')).toBe(0); // default metrics carry the portico_ prefix
    expect(sample(after, 'portico_process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('moves no count by itself: a second scrape with no request between reads what the first read', async () => {
    for (let i = 0; i < 2; i++) expect((await get('/api/v1/rgds', false)).status).toBe(401);
    const first = await scrape();
    const second = await scrape();
    const answered = (text: string) => text.split('\n').filter((line) => line.startsWith('portico_http_request')).join('\n');
    expect(answered(first)).toContain('portico_http_requests_total{route="listRgds",method="GET",status="401"}');
    expect(answered(second)).toBe(answered(first));
  });

  it('counts WebSocket connections and the events sent to them', async () => {
    const ticket = (await stack.portico.auth.issueTicket(systemActor('admin'))).ticket;
    client = await connect(`${url.replace('http', 'ws')}/ws?ticket=${ticket}`);
    client.send({ type: 'subscribe', data: { resourceType: 'instances' } });
    await client.next((f) => f.type === 'subscribed');
    const before = await scrape();
    expect(sample(before, 'portico_websocket_connections')).toBe(1);

    await stack.portico.events.publish({ type: 'instance_update', object: 'instances/alpha/dev/WebApp/shop', project: 'alpha', namespace: 'dev', name: 'shop', data: { name: 'shop' } });
    await client.next((f) => f.type === 'instance_update');
    const after = await scrape();
    expect(sample(after, 'portico_websocket_events_sent_total', { type: 'instance_update' }) - sample(before, 'portico_websocket_events_sent_total', { type: 'instance_update' })).toBe(1);
  });

  it('counts answers a failed dependency caused', async () => {
    const before = await scrape();
    kv.down = true;
    try {
      const res = await get('/api/v1/rgds');
      expect(res.status).toBe(503);
      const during = await scrape();
      expect(sample(during, 'portico_dependency_errors_total') - sample(before, 'portico_dependency_errors_total')).toBe(1);
    } finally {
      kv.down = false;
    }
  });

  it('names no user, project, object or path: labels come from small fixed sets', async () => {
    const text = await scrape();
    for (const secret of ['alpha', 'shop', 'admin', 'no-such-thing', '/api/v1', token]) expect(text).not.toContain(secret);
    const routes = new Set([...text.matchAll(/route="([^"]+)"/g)].map((m) => m[1]));
    expect([...routes].sort()).toEqual(['listProjects', 'listRgds', 'unmatched']);
  });

  it('serves only GET /metrics on the metrics port', async () => {
    const res = await fetch(`http://127.0.0.1:${scrapeListener.address.port}/api/v1/rgds`);
    expect(res.status).toBe(404);
    await res.text();
  });
});
