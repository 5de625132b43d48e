import type { SubscriptionFilter } from '@portico/api';
import type { DomainEvent } from '@portico/core';

/** The key under which a filter is stored, so subscribing twice is one subscription and unsubscribe finds it. */
export const filterKey = (f: SubscriptionFilter): string =>
  `${f.resourceType}|${f.project ?? ''}|${f.namespace ?? ''}|${f.name ?? ''}`;

/**
 * Whether a filter selects an event: the resource type (or `all`), then each field the filter sets. Project and
 * namespace narrow instance events (and those of edition streams) only; RGDs are cluster-wide, so for them only
 * the name applies.
 */
function filterMatches(f: SubscriptionFilter, type: string, event: DomainEvent): boolean {
  if (f.resourceType !== 'all' && f.resourceType !== type) return false;
  if (f.name !== undefined && f.name !== event.name) return false;
  if (type === 'rgds') return true;
  if (f.project !== undefined && f.project !== event.project) return false;
  if (f.namespace !== undefined && f.namespace !== event.namespace) return false;
  return true;
}

/** Runs per socket and event: an indexed loop over an array, so it allocates nothing. */
export function anyMatches(filters: readonly SubscriptionFilter[], type: string, event: DomainEvent): boolean {
  for (let i = 0; i < filters.length; i++) if (filterMatches(filters[i]!, type, event)) return true;
  return false;
}
