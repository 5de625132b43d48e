import type { RouteDef } from '@portico/api';
import type { ComponentHealth } from '@portico/core';
import type { Handler, RouteGate } from './handlers/types.js';

/**
 * What an edition module serves over HTTP, built on a started Portico; the server's side of core's
 * `PorticoPlugin` (whose RBAC rows, operations and hooks `createPortico` took before anything started).
 * - `routes` are rows of its own route table (same schemas, pipeline, OpenAPI as the OSS table); a row names
 *   the family of §8 it serves, which is then no longer answered by the edition gate;
 * - `handlers` by route id (one domain call each);
 * - `gates` by route id: checks by route and caller alone that answer before the input is read (the license);
 * - `readiness` adds components to `/readyz`;
 * - `stop` runs at shutdown after the HTTP server closed.
 * Its event streams are registered on `portico.eventStreams`, where the WebSocket layer reads them.
 */
export interface ServerPlugin {
  name: string;
  /** The edition's OpenAPI document (YAML), which its explorer serves instead of the OSS one. */
  openApi?: () => string;
  routes?: readonly RouteDef[];
  handlers?: Readonly<Record<string, Handler>>;
  gates?: Readonly<Record<string, RouteGate>>;
  readiness?: Readonly<Record<string, () => Promise<ComponentHealth>>>;
  stop?(): Promise<void>;
}
