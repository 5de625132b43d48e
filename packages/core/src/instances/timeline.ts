import type * as api from '@portico/api';
import { setBounded } from '../bounded-map.js';
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

/**
 * Timelines this process wrote or parsed lately. Every recorded status change reads back the text the previous
 * one wrote (up to 50 entries, ~9 KB): parsing it and serialising it again cost more than the rest of the write.
 * An entry answers only for its exact text, so it is never stale; 256 of them hold a few MB.
 */
interface KnownTimeline {
  text: string;
  entries: readonly api.TimelineEntry[];
}
const known = new Map<string, KnownTimeline>();
const maxKnown = 256;
/**
 * The map's key: the length and the end of the text, where the newest entry is. With the whole ~9 KB text as the
 * key, the map's own work (a new text is flattened and hashed on every insert and lookup) was a tenth of the CPU
 * of recording a change; the stored text settles whether a hit is the text asked for.
 */
const keyOf = (text: string) => `${text.length}:${text.slice(-120)}`;
/** Each known timeline's entries as JSON, so appending one entry serialises that entry only. */
const entryTexts = new WeakMap<readonly api.TimelineEntry[], readonly string[]>();

function remember(text: string, entries: api.TimelineEntry[], texts: string[]): readonly api.TimelineEntry[] {
  const frozen = Object.freeze(entries.map((e) => Object.freeze(e)));
  entryTexts.set(frozen, texts);
  setBounded(known, maxKnown, keyOf(text), { text, entries: frozen });
  return frozen;
}

/** The entries kept for exactly this text, if any. */
function knownEntries(text: string): readonly api.TimelineEntry[] | undefined {
  const hit = known.get(keyOf(text));
  return hit?.text === text ? hit.entries : undefined;
}

function parseTimeline(text: string): readonly api.TimelineEntry[] {
  let stored: unknown;
  try {
    stored = JSON.parse(text);
  } catch {
    stored = []; // someone hand-edited it badly: start from what the object itself says
  }
  const entries = (Array.isArray(stored) ? stored : []).map(parseEntry).filter((e): e is api.TimelineEntry => e !== undefined);
  return remember(text, entries, entries.map((e) => JSON.stringify(e)));
}

/** The recorded entries, oldest first (frozen). Instances made before Portico recorded anything get their creation. */
export function readTimeline(obj: KubeObject): readonly api.TimelineEntry[] {
  const annotations = obj.metadata.annotations ?? {};
  const text = annotations[timelineAnnotation] ?? '[]';
  const entries = knownEntries(text) ?? parseTimeline(text);
  if (entries.length > 0) return entries;
  const createdAt = annotations[instanceAnnotations.createdAt] ?? obj.metadata.creationTimestamp;
  if (!createdAt) return [];
  const actor = annotations[instanceAnnotations.createdBy];
  return [{ timestamp: createdAt, type: 'created', ...(actor ? { actor } : {}), message: `created ${obj.kind} ${obj.metadata.name}` }];
}

/** The first and the newest after it, at most maxTimelineEntries. */
const bounded = <T>(list: T[]): T[] => (list.length > maxTimelineEntries ? [list[0], ...list.slice(list.length - maxTimelineEntries + 1)] : list);

/** The annotation value with `entry` appended, bounded to maxTimelineEntries. */
export function withEntry(entries: readonly api.TimelineEntry[], entry: api.TimelineEntry): string {
  const texts = entryTexts.get(entries) ?? entries.map((e) => JSON.stringify(e));
  const entryText = JSON.stringify(entry);
  const keptTexts = bounded([...texts, entryText]);
  // What JSON.stringify(kept) gives: an array's JSON is its elements' JSON joined by commas.
  const text = `[${keptTexts.join(',')}]`;
  // Kept as a reader of the text would see it (parsed), so this replica and the others read the same entries.
  const written = parseEntry(JSON.parse(entryText));
  if (written) remember(text, bounded([...entries, written]), keptTexts);
  return text;
}

/** The state a status entry records: kro's `status.state` ('' before kro has looked). */
const recordedStateOf = (obj: KubeObject): string => (typeof obj.status?.state === 'string' ? obj.status.state : '');

/** The state the last status entry moved to ('' when none was recorded yet). */
function lastRecordedState(entries: readonly api.TimelineEntry[]): string {
  for (let i = entries.length - 1; i >= 0; i--) if (entries[i].type === 'status') return entries[i].toState ?? '';
  return '';
}

/** A status entry for the object as it is now, or undefined when its state is the one last recorded. */
export function statusEntry(obj: KubeObject, entries: readonly api.TimelineEntry[], timestamp: string): api.TimelineEntry | undefined {
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
