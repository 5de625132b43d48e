import { isDeepStrictEqual } from 'node:util';
import type * as api from '@portico/api';
import type { CatalogEntry } from './types.js';

/** Revisions kept per RGD: enough for "what changed lately", bounded so a flapping RGD cannot grow memory. */
export const maxRevisionsPerRgd = 50;

interface Log {
  last: CatalogEntry;
  next: number;
  items: api.RgdRevision[]; // newest first
}

/** What changed between two versions of a catalog entry, in words; '' when nothing a reader sees changed. */
export function describeChange(before: CatalogEntry, after: CatalogEntry): string {
  const parts: string[] = [];
  if (before.status !== after.status) parts.push(`status ${before.status} → ${after.status}`);
  if (!isDeepStrictEqual(before.schemaSpec, after.schemaSpec) || !isDeepStrictEqual(before.schemaTypes, after.schemaTypes)) {
    parts.push('schema changed');
  }
  if (!isDeepStrictEqual(before.graph, after.graph)) parts.push(`resources changed (${after.graph.map((r) => r.id).join(', ') || 'none'})`);
  const metadata = (['title', 'description', 'category', 'tags', 'icon', 'docsUrl', 'project', 'allowedDeploymentModes', 'extendsKinds'] as const).filter(
    (key) => !isDeepStrictEqual(before[key], after[key]),
  );
  if (metadata.length > 0) parts.push(`catalog metadata changed (${metadata.join(', ')})`);
  return parts.join('; ');
}

/**
 * The changes this process has seen to each catalog entry since it started, newest first. Kubernetes keeps no
 * history of an object, so this is what the informer delivered: every replica sees the same changes.
 */
export function createRevisionLog(now: () => Date = () => new Date()) {
  const logs = new Map<string, Log>();
  const stamp = () => now().toISOString().replace(/\.\d{3}Z$/, 'Z');

  const push = (log: Log, entry: CatalogEntry, summary: string) => {
    log.items.unshift({
      revision: log.next++,
      resourceVersion: entry.revision,
      changedAt: stamp(),
      ...(entry.updatedBy ? { changedBy: entry.updatedBy } : {}),
      summary,
    });
    log.items.length = Math.min(log.items.length, maxRevisionsPerRgd);
    log.last = entry;
  };

  return {
    /**
     * A catalog change: the first sighting of an entry, an update, or its removal (the log goes with it). A
     * first sighting cannot tell "just added" from "there before Portico started" (the informer's first list
     * arrives as additions), so it says neither.
     */
    record(action: 'add' | 'update' | 'delete', entry: CatalogEntry) {
      if (action === 'delete') {
        logs.delete(entry.name);
        return;
      }
      const log = logs.get(entry.name);
      if (!log) {
        const fresh: Log = { last: entry, next: 1, items: [] };
        logs.set(entry.name, fresh);
        push(fresh, entry, 'first seen in the catalog');
        return;
      }
      const summary = describeChange(log.last, entry);
      if (summary) push(log, entry, summary);
      else log.last = entry;
    },
    list(name: string): api.RgdRevisionList {
      const items = (logs.get(name)?.items ?? []).map((item) => ({ ...item }));
      return { items, totalCount: items.length };
    },
  };
}
export type RevisionLog = ReturnType<typeof createRevisionLog>;
