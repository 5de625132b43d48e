/** A WebSocket constructor with the standard (browser) surface; both the global one and `ws` fit. */
export type WebSocketConstructor = new (url: string) => WebSocket;

export interface RetryOptions {
  /** Further attempts after the first one for 429 and 503 answers. Default 2. */
  retries?: number;
  /** Upper bound of one wait, whatever `Retry-After` says. Default 10 000 ms. */
  maxDelayMs?: number;
  /** Retry POST and PATCH too (they are not idempotent, so off by default). */
  retryNonIdempotent?: boolean;
}

export interface ClientOptions {
  /** Where Portico is served, e.g. `https://portico.example.com` (a path prefix is kept). */
  baseUrl: string;
  /** A bearer token. */
  token?: string;
  /** Asked before every request; wins over `token` when it returns one (token refresh, storage). */
  getToken?: () => string | undefined | Promise<string | undefined>;
  /** Per attempt. Default 30 000 ms. */
  timeoutMs?: number;
  retry?: RetryOptions;
  /** Defaults to the global `fetch`. */
  fetch?: typeof fetch;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  /**
   * Node only: an undici `Dispatcher` (proxy agent, custom CA) handed to fetch as `dispatcher`. Pair it with
   * undici's own `fetch` (see `createNodeFetch`), because the global fetch may embed another undici version.
   */
  dispatcher?: unknown;
  /** WebSocket implementation for `events`; defaults to the global one, else the `ws` package. */
  WebSocket?: WebSocketConstructor;
  /** Reconnection backoff of `events.subscribe`. Defaults 250 ms → 10 000 ms. */
  reconnect?: { initialDelayMs?: number; maxDelayMs?: number };
}

/** Options every SDK method takes. */
export interface CallOptions {
  signal?: AbortSignal;
  /** Overrides the client's `timeoutMs` for this call. */
  timeoutMs?: number;
  headers?: Record<string, string>;
}
