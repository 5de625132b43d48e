import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ServerMetrics } from './registry.js';

export interface MetricsListener {
  address: AddressInfo;
  close(): Promise<void>;
}

/**
 * `/metrics` on its own port (as Argo CD does), so it never sits behind the API's ingress and needs no token:
 * the network decides who scrapes (the chart's NetworkPolicy lets only the monitoring namespace in).
 */
export async function listenForMetrics(metrics: ServerMetrics, host: string, port: number): Promise<MetricsListener> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('only GET /metrics is served here\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => res.writeHead(200, { 'Content-Type': metrics.registry.contentType }).end(req.method === 'HEAD' ? undefined : text),
      (error: unknown) => res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end(`metrics collection failed: ${(error as Error).message}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    address: server.address() as AddressInfo,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
