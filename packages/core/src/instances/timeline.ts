import type * as api from '@portico/api';
import type { KubeObject } from '../ports/cluster.js';
import { instanceAnnotations } from './instance-resource.js';

/**
 * An instance's deployment history lives in its own annotation: it survives restarts, every replica reads the
 * same one, `kubectl get -o yaml` shows it, and it goes when the instance goes.
 */
export const timelineAnnotation = 'portico.dev/timeline';

/** Entries kept: the first (created) and the newest after it, so an annotation never outgrows its object. */
export const maxTimelineEntries = 50;

const types = new Set<string>(['created', 'updated', 'status', 'deleted', 'deploy']);
const optionalKeys = ['actor', 'fromState', 'toState', 'resourceVersion'] as const;

function parseEntry(raw: unknown): api.TimelineEntry | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const r = raw as Record<string, unknown>;
  if (typeof r.timestamp !== 'string' || typeof r.type !== 'string' || !types.has(r.type) || typeof r.message !== 'string') return undefined;
  const entry: api.TimelineEntry = { timestamp: r.timestamp, type: r.type as api.TimelineEntry['type'], message: r.message };
  for (const key of optionalKeys) if (typeof r[key] === 'string') entry[key] = r[key];
  return entry;
}

/** The recorded entries, oldest first. Instances made before Portico recorded anything get their creation. */
export function readTimeline(obj: KubeObject): api.TimelineEntry[] {
  const annotations = obj.metadata.annotations ?? {};
  let stored: unknown;
  try {
    stored = JSON.parse(annotations[timelineAnnotation] ?? '[]');
  } catch {
    stored = []; // someone hand-edited it badly: start from what the object itself says
  }
  const entries = (Array.isArray(stored) ? stored : []).map(parseEntry).filter((e): e is api.TimelineEntry => e !== undefined);
  if (entries.length > 0) return entries;
  const createdAt = annotations[instanceAnnotations.createdAt] ?? obj.metadata.creationTimestamp;
  if (!createdAt) return [];
  const actor = annotations[instanceAnnotations.createdBy];
  return [{ timestamp: createdAt, type: 'created', ...(actor ? { actor } : {}), message: `created ${obj.kind} ${obj.metadata.name}` }];
}

/** The annotation value with `entry` appended, bounded to maxTimelineEntries. */
export function withEntry(entries: api.TimelineEntry[], entry: api.TimelineEntry): string {
  const all = [...entries, entry];
  const kept = all.length > maxTimelineEntries ? [all[0], ...all.slice(all.length - maxTimelineEntries + 1)] : all;
  return JSON.stringify(kept);
}

/** The state a status entry records: kro's `status.state` ('' before kro has looked). */
export const recordedStateOf = (obj: KubeObject): string => (typeof obj.status?.state === 'string' ? obj.status.state : '');

/** The state the last status entry moved to ('' when none was recorded yet). */
export function lastRecordedState(entries: api.TimelineEntry[]): string {
  for (let i = entries.length - 1; i >= 0; i--) if (entries[i].type === 'status') return entries[i].toState ?? '';
  return '';
}

/** A status entry for the object as it is now, or undefined when its state is the one last recorded. */
export function statusEntry(obj: KubeObject, entries: api.TimelineEntry[], timestamp: string): api.TimelineEntry | undefined {
  const toState = recordedStateOf(obj);
  const fromState = lastRecordedState(entries);
  if (toState === fromState) return undefined;
  const conditions: unknown[] = Array.isArray(obj.status?.conditions) ? obj.status.conditions : [];
  const ready = conditions.find((c) => (c as { type?: unknown })?.type === 'Ready') as { status?: string; message?: string } | undefined;
  const detail = ready?.message ? `: ${ready.message}` : '';
  const message = ready?.status === 'True' ? `Ready${detail}` : `${toState || 'unknown'}${detail}`;
  return {
    timestamp,
    type: 'status',
    message,
    ...(fromState ? { fromState } : {}),
    toState,
    ...(obj.metadata.resourceVersion ? { resourceVersion: obj.metadata.resourceVersion } : {}),
  };
}
