import type { RbacResourceRow, RouteDef } from '@portico/api';
import type { Actor, ComponentHealth, EventStream } from '@portico/core';
import type { Handler } from './handlers/types.js';

/**
 * One mutating operation as it crosses the route boundary, with the facts an audit trail records. Built by
 * the server for every routed request that is not a GET, after authentication and validation, before the
 * domain call (http/operation.ts derives it from the route row and the validated input).
 */
export interface Operation {
  /** The verified caller; undefined on unauthenticated routes (login, token exchange). */
  actor?: Pick<Actor, 'id' | 'email'>;
  routeId: string;
  /** `create`, `update`, `delete`, `member_add`, `login`, … */
  action: string;
  /** `projects`, `instances`, `accounts`, `license`, … */
  resource: string;
  /** The object acted on ('' when the route names none). */
  name: string;
  project?: string;
  namespace?: string;
  requestId: string;
  /** The client address under the trusted-proxy rule of §9. */
  sourceIP: string;
  userAgent: string;
  /** The validated input `{params, query, body}`. Secrets are in here: redact before storing. */
  input: unknown;
  /** The status the route answers on success (its row's). */
  successStatus: number;
}

/**
 * Wraps every mutating operation. It calls `run` at most once to perform the operation and answers with
 * what `run` answered (or throws what it threw, after recording it). Throwing before `run` refuses the
 * operation without performing it: throw `unavailable(...)` for a 503 with Retry-After when the audit sink
 * is down (fail closed). The error is mapped to the envelope like any other.
 */
export type OperationHook = <T>(operation: Operation, run: () => Promise<T>) => Promise<T>;

/**
 * What an edition module adds to the server: the explicit plugin interface. The OSS build passes none.
 * - `routes` are rows of its own route table (same schemas, pipeline, OpenAPI as the OSS table); a row that
 *   covers an Enterprise family of §8 replaces the family's OSS 402/404 answer;
 * - `handlers` by route id (one domain call each);
 * - `rbacResources` are rows of the RBAC vocabulary (can-i, policies, docs);
 * - `readiness` adds components to `/readyz`;
 * - `onOperation` wraps every mutating request (audit, fail closed);
 * - `eventStreams` are event types it adds to `/ws` (a subscription resourceType and who may see each event);
 *   pass them to `attachWebSocket` as `streams` (pluginEventStreams);
 * - `stop` runs at shutdown after the HTTP server closed.
 * Services live on the module itself; migrations are the module's own (run before it is handed over).
 */
export interface PorticoPlugin {
  name: string;
  /** The edition's OpenAPI document (YAML), which its explorer serves instead of the OSS one. */
  openApi?: () => string;
  routes?: readonly RouteDef[];
  handlers?: Readonly<Record<string, Handler>>;
  rbacResources?: readonly RbacResourceRow[];
  readiness?: Readonly<Record<string, () => Promise<ComponentHealth>>>;
  onOperation?: OperationHook;
  eventStreams?: readonly EventStream[];
  stop?(): Promise<void>;
}
