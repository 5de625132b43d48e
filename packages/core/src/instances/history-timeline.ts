import * as api from '@portico/api';
import type { RevisionRecord } from '../catalog/index.js';
import { commitUrlOf } from '../repositories/index.js';
import type { HistoryDoc } from './history-store.js';

/** What the timeline shows of a recorded history: its events, and the RGD's revisions during the instance's life. */
export interface RecordedTimeline {
  doc: HistoryDoc;
  /** The RGD's revisions, oldest first. */
  revisions: readonly RevisionRecord[];
}

/** §13: where a browser shows the commit of a Git step, for hosts with the common `<repository>/commit/<sha>` pages. */
const commitUrl = (e: api.HistoryEvent): { gitCommitUrl?: string } => {
  const url = e.gitCommitSha && e.gitRepository ? commitUrlOf(e.gitRepository, e.gitCommitSha) : undefined;
  return url ? { gitCommitUrl: url } : {};
};

const fromEvent = (e: api.HistoryEvent): Omit<api.TimelineEntry, 'isCurrent'> => ({
  timestamp: e.timestamp,
  eventType: e.eventType,
  status: e.status,
  ...(e.user ? { user: e.user } : {}),
  ...(e.message ? { message: e.message } : {}),
  ...commitUrl(e),
  isCompleted: true,
});

/**
 * A change of the RGD's spec while the instance lived: a revision newer than the one it was created against,
 * recorded before its deletion.
 */
function revisionMarkers({ doc, revisions }: RecordedTimeline): Omit<api.TimelineEntry, 'isCurrent'>[] {
  const from = Date.parse(doc.createdAt);
  const until = doc.deletedAt ? Date.parse(doc.deletedAt) : Infinity;
  const markers: Omit<api.TimelineEntry, 'isCurrent'>[] = [];
  revisions.forEach((r, i) => {
    const at = Date.parse(r.createdAt);
    const previous = i > 0 ? revisions[i - 1]!.revisionNumber : undefined;
    // The revision the instance was created against is known by number; times (whole seconds) are the fallback.
    const after = doc.rgdRevision !== undefined ? r.revisionNumber > doc.rgdRevision : at > from;
    if (previous === undefined || !after || at > until) return;
    markers.push({
      timestamp: r.createdAt,
      eventType: 'RevisionChanged',
      status: `Revision ${r.revisionNumber}`,
      user: r.createdBy ?? 'system',
      message: `RGD ${r.rgdName} revision ${previous} → ${r.revisionNumber}`,
      isCompleted: true,
      revisionNumber: r.revisionNumber,
      previousRevision: previous,
    });
  });
  return markers;
}

const fromKubernetesEvent = (e: api.InstanceEvent): Omit<api.TimelineEntry, 'isCurrent'> => ({
  timestamp: e.lastSeen,
  eventType: 'KubernetesEvent',
  status: e.type,
  ...(e.source ? { user: e.source } : {}),
  message: `${e.object} ${e.reason}: ${e.message}`,
  isCompleted: true,
});

/** The timeline, oldest first (a stable sort: entries of one second keep the order they were recorded in); `isCurrent` on the last. */
export function timelineOf(recorded: RecordedTimeline | undefined, events: api.InstanceEvent[]): api.TimelineEntry[] {
  const entries = [
    ...(recorded ? [...recorded.doc.events.map(fromEvent), ...revisionMarkers(recorded)] : []),
    ...[...events].reverse().map(fromKubernetesEvent),
  ];
  const sorted = entries
    .map((entry, order) => ({ entry, order, at: Date.parse(entry.timestamp) || 0 }))
    .sort((a, b) => a.at - b.at || a.order - b.order)
    .map((e) => e.entry);
  return sorted.map((entry, i) => ({ ...entry, isCurrent: i === sorted.length - 1 }));
}

/**
 * One CSV cell: quoted when it holds a separator, a quote or a line break; a leading = + - @ (a spreadsheet
 * formula) is defused with a quote mark, so opening an export never runs what a user typed into a value.
 */
function cell(value: unknown): string {
  let text = value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The history as CSV, with the columns of contract §11.2. */
export function historyCsv(history: api.InstanceHistory): string {
  const rows = history.events.map((e) =>
    [e.timestamp, e.eventType, e.status, e.user, e.deploymentMode, e.gitCommitSha, e.gitRepository, e.gitBranch, e.message, e.details].map(cell).join(','),
  );
  return `${[api.historyCsvColumns.join(','), ...rows].join('\r\n')}\r\n`;
}
