import http from 'node:http';
import https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';

/**
 * Raw JSON requests to the Kubernetes API server. Authentication, TLS and proxies come from client-node's
 * KubeConfig (`applyToHTTPSOptions`, called per request so exec/OIDC/token-file credentials refresh); the
 * bodies stay plain JSON. client-node's typed clients would turn timestamps into Date objects and drop unknown
 * fields, which is wrong for objects we patch and hand on unchanged.
 */
export interface KubeRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Absolute API path, e.g. `/apis/kro.run/v1alpha1/resourcegraphdefinitions`. */
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  contentType?: string;
}

export interface KubeResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Parsed JSON, or the raw text when the body is not JSON (e.g. `404 page not found`). */
  body: unknown;
}

/** The request never got an HTTP answer: refused, reset, DNS, TLS or timed out. */
export class TransportError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TransportError';
  }
}

export interface KubeTransport {
  readonly server: string;
  /** A complete request; rejects with TransportError when no HTTP answer arrives within `timeoutMs`. */
  request(req: KubeRequest, timeoutMs: number): Promise<KubeResponse>;
  /** A streaming GET: resolves with the response as soon as headers arrive; `signal` aborts it at any time. */
  stream(req: KubeRequest, signal: AbortSignal, connectTimeoutMs: number): Promise<http.IncomingMessage>;
}

export function createKubeTransport(kubeConfig: KubeConfig): KubeTransport {
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster?.server) throw new Error('the kubeconfig has no current cluster');
  const server = cluster.server.replace(/\/+$/, '');

  const urlOf = (req: KubeRequest) => {
    // Concatenated, not resolved: a server URL may carry a path prefix (e.g. a proxy) that must stay.
    const url = new URL(server + req.path);
    for (const [key, value] of Object.entries(req.query ?? {})) if (value !== undefined) url.searchParams.set(key, value);
    return url;
  };

  const open = async (req: KubeRequest, signal?: AbortSignal): Promise<{ request: http.ClientRequest; response: Promise<http.IncomingMessage> }> => {
    const options: https.RequestOptions = {};
    await kubeConfig.applyToHTTPSOptions(options);
    const url = urlOf(req);
    const payload = req.body === undefined ? undefined : Buffer.from(JSON.stringify(req.body));
    const headers: http.OutgoingHttpHeaders = {
      ...((options.headers ?? {}) as http.OutgoingHttpHeaders),
      Accept: 'application/json',
      'User-Agent': 'portico',
      ...(payload ? { 'Content-Type': req.contentType ?? 'application/json', 'Content-Length': payload.length } : {}),
    };
    const lib = url.protocol === 'https:' ? https : http;
    const request = lib.request(url, { ...options, method: req.method, headers, signal });
    const response = new Promise<http.IncomingMessage>((resolve, reject) => {
      request.once('response', resolve);
      request.on('error', (err) => reject(new TransportError(`${req.method} ${url.pathname}: ${err.message}`, { cause: err })));
    });
    request.end(payload);
    return { request, response };
  };

  return {
    server,

    async request(req, timeoutMs) {
      const { request, response } = await open(req);
      const timer = setTimeout(() => request.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      try {
        const res = await response;
        const text = await readBody(res).catch((err: Error) => {
          throw new TransportError(`${req.method} ${req.path}: ${err.message}`, { cause: err });
        });
        return { status: res.statusCode ?? 0, headers: res.headers, body: parseBody(text) };
      } finally {
        clearTimeout(timer);
      }
    },

    async stream(req, signal, connectTimeoutMs) {
      const { request, response } = await open(req, signal);
      // TCP keep-alive notices a peer that vanished without closing (node restarts, network partitions).
      request.once('socket', (socket) => socket.setKeepAlive(true, 30_000));
      const timer = setTimeout(() => request.destroy(new Error(`no answer within ${connectTimeoutMs} ms`)), connectTimeoutMs);
      try {
        return await response;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

export function readBody(res: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
    res.once('aborted', () => reject(new Error('connection closed before the response was complete')));
  });
}

export function parseBody(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
