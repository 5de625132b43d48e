import type * as api from '@portico/api';

/**
 * Destination namespace patterns: `*` (any), `prefix*`, `*suffix`, or an exact name. Patterns are for
 * matching only; a client is always shown real namespace names.
 */
export function namespaceMatches(pattern: string, namespace: string): boolean {
  if (!isNamespacePattern(pattern)) return namespace === pattern;
  if (pattern === '*') return true;
  if (pattern.endsWith('*')) return namespace.startsWith(pattern.slice(0, -1));
  return namespace.endsWith(pattern.slice(1));
}

/** Whether a destination names namespaces by pattern: anything else is one namespace's exact name. */
export const isNamespacePattern = (pattern: string) => pattern.startsWith('*') || pattern.endsWith('*');

/** Whether a project may deploy into `namespace`. */
export const destinationAllows = (destinations: readonly api.Destination[], namespace: string) =>
  destinations.some((d) => namespaceMatches(d.namespace, namespace));

/** The real namespaces (from `namespaces`) that the destinations cover, sorted and without duplicates. */
export const expandDestinations = (destinations: readonly api.Destination[], namespaces: Iterable<string>): string[] =>
  [...new Set(namespaces)].filter((ns) => destinationAllows(destinations, ns)).sort();
