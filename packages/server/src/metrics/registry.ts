import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Portico } from '@portico/core';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { findRequestState } from '../http/request-state.js';
import { requestDurations, type DurationSeries } from './request-durations.js';

/**
 * The Prometheus metrics of one server. Every label is from a small fixed set (route ids of the route table,
 * status codes, component names, event types), never a path, a user or an object name: a scrape tells an
 * operator how the service behaves, not what is in it.
 */
export interface ServerMetrics {
  registry: Registry;
  /** The request pipeline's one hook: records the request when its response is done. */
  observe(req: IncomingMessage, res: ServerResponse): void;
  /** One event frame queued to one WebSocket. */
  eventSent(type: string): void;
  /** Open WebSocket connections, read at scrape time. */
  countConnectionsWith(count: () => number): void;
}

/** When a response's request arrived, kept on the response for its 'finish' listener. */
const STARTED = Symbol('portico.metrics.started');

const methods = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export function createServerMetrics(portico: Pick<Portico, 'readiness'>): ServerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'portico_' });

  // Each request is counted in plain fields of its series (route, method, status) and handed to prom-client when
  // scraped: prom-client's inc and observe build, check and hash a label object on every call.
  const series = new Map<string, { labels: { route: string; method: string; status: string }; answered: number; duration: DurationSeries }>();
  new Counter({
    name: 'portico_http_requests_total',
    help: 'HTTP requests answered, by route id (route table), method and status code.',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [registry],
    collect() {
      for (const s of series.values()) {
        if (s.answered === 0) continue;
        this.inc(s.labels, s.answered);
        s.answered = 0;
      }
    },
  });
  const durations = requestDurations(registry, {
    name: 'portico_http_request_duration_seconds',
    help: 'Time from receiving a request to the end of its response, by route id and method.',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  });
  const rateLimited = new Counter({
    name: 'portico_rate_limit_rejections_total',
    help: 'Requests refused with 429 (rate limit or sign-in lockout), by route id.',
    labelNames: ['route'] as const,
    registers: [registry],
  });
  const dependencyErrors = new Counter({
    name: 'portico_dependency_errors_total',
    help: 'Requests answered 503 because a dependency failed, by dependency (redis, cluster, rate limiter...).',
    labelNames: ['dependency'] as const,
    registers: [registry],
  });
  const eventsSent = new Counter({
    name: 'portico_websocket_events_sent_total',
    help: 'Event frames queued to WebSocket clients, by event type.',
    labelNames: ['type'] as const,
    registers: [registry],
  });
  let connections: () => number = () => 0;
  new Gauge({
    name: 'portico_websocket_connections',
    help: 'Open WebSocket connections.',
    registers: [registry],
    collect() {
      this.set(connections());
    },
  });
  new Gauge({
    name: 'portico_component_up',
    help: 'Readiness of each dependency and watch (1 ready, 0 not): keyvalue, cluster, watch:projects, watch:rgds.',
    labelNames: ['component'] as const,
    registers: [registry],
    async collect() {
      const { components } = await portico.readiness();
      for (const [component, health] of Object.entries(components)) this.set({ component }, health.ok ? 1 : 0);
    },
  });

  // The series of each (route, method, status), looked up once: every label is from a small fixed set.
  const seriesOf = (route: string, method: string, status: number) => {
    const key = `${route} ${method} ${status}`;
    let found = series.get(key);
    if (!found) series.set(key, (found = { labels: { route, method, status: String(status) }, answered: 0, duration: durations.series({ route, method }) }));
    return found;
  };

  /** One listener function for every response: no closure and no once-wrapper per request ('finish' comes once). */
  function recordAnswered(this: ServerResponse & { [STARTED]?: number }) {
    const req = this.req;
    const state = findRequestState(req);
    const route = state?.routeId ?? 'unmatched';
    const method = methods.has(req.method ?? '') ? req.method! : 'OTHER';
    const one = seriesOf(route, method, this.statusCode);
    one.answered++;
    one.duration.observe((performance.now() - this[STARTED]!) / 1000);
    if (this.statusCode === 429) rateLimited.inc({ route });
    if (state?.unavailable) dependencyErrors.inc({ dependency: state.unavailable });
  }

  return {
    registry,
    observe(_req, res) {
      (res as ServerResponse & { [STARTED]?: number })[STARTED] = performance.now();
      res.on('finish', recordAnswered);
    },
    eventSent: (type) => eventsSent.inc({ type }),
    countConnectionsWith(count) {
      connections = count;
    },
  };
}
