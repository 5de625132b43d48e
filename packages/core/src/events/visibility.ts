import type { Rgd } from '@portico/api';
import type { Actor } from '../actor.js';
import type { Disposable } from '../ports/cluster.js';
import type { Authorizer, CatalogService, DomainEvent, EventStream } from '../types.js';
import { createAudience, type Recipient } from './audience.js';
import { createDecisionCache, type DecisionMemo, type Principal } from './decisions.js';

export type EventResourceType = 'instances' | 'rgds';

export type { EventStream } from '../types.js';

/** Which kind of resource an event is about; undefined for events that are never forwarded as they are. */
export function eventResourceType(event: DomainEvent): EventResourceType | undefined {
  switch (event.type) {
    case 'instance_update':
    case 'deploy_progress':
    case 'drift_update':
      return 'instances';
    case 'rgd_update':
    case 'revision_update':
      return 'rgds';
    default:
      return undefined;
  }
}

/**
 * Whether `actor` may see an event, decided now (at send time), from current policy: a binding removed a moment
 * ago stops the flow at once, without reconnecting.
 * - instance events: `get` on the instance's RBAC object;
 * - RGD events: the catalog's visibility rule, for a deleted RGD from what the event says about it.
 */
function eventVisibility(authz: Authorizer, catalog: CatalogService): (actor: Actor, event: DomainEvent, type: EventResourceType) => boolean {
  return (actor, event, type) => {
    if (type === 'instances') return event.object !== undefined ? authz.can(actor, 'get', event.object) : authz.isServerAdmin(actor);
    const name = event.name ?? '';
    const rgd = (event.data as { rgd?: Rgd } | undefined)?.rgd;
    // A revision removed with its RGD: the RGD is gone, so only a holder of the whole project's (or every) RGDs sees it.
    const gone = event.type === 'revision_update' ? { name, category: '*', project: event.project } : undefined;
    const entry = catalog.entry(name) ?? (rgd && { name, category: rgd.category, project: event.project }) ?? gone;
    return entry !== undefined && catalog.visibleTo(actor, entry as never);
  };
}

/**
 * "Who may receive this event", answered by core for any transport (the WebSocket server keeps only framing,
 * buffering and sockets):
 * - `audienceOf(event)`: the recipients worth asking — a project's members and the Server Admins, or everyone
 *   for project-less events;
 * - `visibleTo(event)`: the final say per recipient, decided now from current policy. Instance events are
 *   decided by `can(actor, 'get', object)` once per principal and remembered until the next policy change (a
 *   deployment's steps hit the same object again and again); RGD events by the catalog's rule, once per
 *   principal within the event.
 * The decision cache is cleared and the audience re-read synchronously on every policy change, before any
 * `onChange` listener runs and before any other event can be handled.
 */
export interface EventAudience<R extends Recipient> extends Disposable {
  /** The subscription resourceType an event belongs to (built-in or a registered stream's); undefined: not sent. */
  resourceTypeOf(event: DomainEvent): string | undefined;
  /** Every resourceType a client may subscribe to here, `all` included. */
  resourceTypes(): readonly string[];
  add(recipient: R): void;
  remove(recipient: R): void;
  audienceOf(event: DomainEvent): Iterable<R>;
  visibleTo(event: DomainEvent): (recipient: R) => boolean;
  /** Runs after a policy change has been taken in (counts may have moved). */
  onChange(listener: () => void): Disposable;
  /** Decisions held (operations, tests). */
  decisions(): number;
}

export function createEventAudience<R extends Recipient>(
  deps: { authz: Authorizer; catalog: CatalogService; maxDecisions?: number },
  streams: readonly EventStream[] = [],
): EventAudience<R> {
  const visible = eventVisibility(deps.authz, deps.catalog);
  const streamOf = new Map<string, EventStream>();
  for (const stream of streams) for (const type of stream.eventTypes) streamOf.set(type, stream);
  const types = ['instances', 'rgds', 'projects', ...new Set(streams.map((s) => s.resourceType)), 'all'];
  const audience = createAudience<R>(deps.authz);
  const cache = createDecisionCache(deps.maxDecisions);
  const listeners = new Set<() => void>();
  /**
   * Whether a principal's roles reach every instance of a project, the rule lists use (an allow of the whole
   * project and no deny, read from its compiled lines, or a Server Admin): then one answer per principal and
   * project serves every instance event there, instead of one policy evaluation per instance. Kept in the same
   * cache under the project's whole-project object, so it is cleared by the same policy change.
   */
  const wholeProjectMemo = (event: DomainEvent): DecisionMemo | undefined =>
    event.project !== undefined && event.object!.startsWith(`instances/${event.project}/`) ? cache.memoFor(`instances/${event.project}/*`) : undefined;
  const seesWholeProject = (memo: DecisionMemo, principal: Principal, project: string): boolean => {
    let all = memo.get(principal);
    if (all === undefined) cache.remember(memo, principal, (all = deps.authz.instanceReach(principal.actor, project) === 'all'));
    return all;
  };
  const subscription = deps.authz.onChange(() => {
    cache.clear();
    audience.refresh();
    for (const listener of listeners) listener();
  });
  return {
    resourceTypeOf: (event) => eventResourceType(event) ?? streamOf.get(event.type)?.resourceType,
    resourceTypes: () => types,
    add: (recipient) => audience.add(recipient),
    remove: (recipient) => audience.remove(recipient),
    audienceOf: (event) => (eventResourceType(event) ? audience.candidates(event) : streamOf.has(event.type) ? audience.everyone() : []),
    visibleTo(event) {
      const stream = streamOf.get(event.type);
      if (stream) {
        const decided = new Map<Principal, boolean>();
        return ({ principal }) => {
          let allowed = decided.get(principal);
          if (allowed === undefined) decided.set(principal, (allowed = stream.visibleTo(principal.actor, event)));
          return allowed;
        };
      }
      const type = eventResourceType(event);
      if (!type) return () => false;
      const remembered = type === 'instances' && event.object !== undefined;
      const memo: DecisionMemo = remembered ? cache.memoFor(event.object!) : new Map<Principal, boolean>();
      const whole = remembered ? wholeProjectMemo(event) : undefined;
      return ({ principal }) => {
        if (whole !== undefined && seesWholeProject(whole, principal, event.project!)) return true;
        let allowed = memo.get(principal);
        if (allowed === undefined) {
          allowed = visible(principal.actor, event, type);
          if (remembered) cache.remember(memo, principal, allowed);
          else memo.set(principal, allowed);
        }
        return allowed;
      };
    },
    onChange(listener) {
      listeners.add(listener);
      return { close: () => void listeners.delete(listener) };
    },
    decisions: () => cache.size(),
    close: () => subscription.close(),
  };
}
