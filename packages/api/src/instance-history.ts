import { z } from 'zod';
import { Timestamp } from './common.js';

/**
 * Contract §11.2: what an instance page shows besides the instance. The shapes are the ones browser consoles in
 * the field render; every list is `[]` when empty, never null or absent.
 */

/** A Kubernetes Event about the instance or one of its child resources; `object` is `<Kind>/<name>`. */
export const InstanceEvent = z.object({
  lastSeen: Timestamp,
  type: z.enum(['Normal', 'Warning']),
  reason: z.string(),
  object: z.string(),
  message: z.string(),
  count: z.number().int(),
  firstSeen: Timestamp,
  source: z.string(),
});
export type InstanceEvent = z.infer<typeof InstanceEvent>;

/** Newest `lastSeen` first. */
export const InstanceEventList = z.object({ events: z.array(InstanceEvent) });
export type InstanceEventList = z.infer<typeof InstanceEventList>;

/** How a child resource (or a group of them) is doing; `None` for kinds that have no health (ConfigMap, Service, RBAC). */
export const ChildHealth = z.enum(['Healthy', 'Degraded', 'Unhealthy', 'Progressing', 'Unknown', 'None']);
export type ChildHealth = z.infer<typeof ChildHealth>;

export const ChildResource = z.object({
  name: z.string(),
  namespace: z.string(),
  kind: z.string(),
  apiVersion: z.string(),
  nodeId: z.string(),
  health: ChildHealth,
  phase: z.string().optional(),
  status: z.string().optional(),
  createdAt: Timestamp,
});
export type ChildResource = z.infer<typeof ChildResource>;

/** The children of one `spec.resources` id; `health` is the worst of those that have one, `readyCount` the Healthy ones. */
export const ChildGroup = z.object({
  nodeId: z.string(),
  kind: z.string(),
  apiVersion: z.string(),
  count: z.number().int(),
  readyCount: z.number().int(),
  health: ChildHealth,
  resources: z.array(ChildResource),
});
export type ChildGroup = z.infer<typeof ChildGroup>;

export const InstanceChildren = z.object({
  instanceName: z.string(),
  instanceNamespace: z.string(),
  instanceKind: z.string(),
  totalCount: z.number().int(),
  groups: z.array(ChildGroup),
  clusterUnreachable: z.boolean(),
  unreachableClusters: z.array(z.string()),
});
export type InstanceChildren = z.infer<typeof InstanceChildren>;

/** The event types of a deployment history and its timeline, as the field names them. */
export const HistoryEventType = z.enum([
  'Created',
  'ManifestGenerated',
  'PushedToGit',
  'WaitingForSync',
  'Synced',
  'Creating',
  'Ready',
  'Degraded',
  'Failed',
  'Deleted',
  'Updated',
  'StatusChanged',
  'RevisionChanged',
  'KubernetesEvent',
]);
export type HistoryEventType = z.infer<typeof HistoryEventType>;

export const TimelineEntry = z.object({
  timestamp: Timestamp,
  eventType: HistoryEventType,
  status: z.string(),
  user: z.string().optional(),
  message: z.string().optional(),
  gitCommitUrl: z.string().optional(),
  isCompleted: z.literal(true),
  isCurrent: z.boolean(),
  revisionNumber: z.number().int().optional(),
  previousRevision: z.number().int().optional(),
});
export type TimelineEntry = z.infer<typeof TimelineEntry>;

/** Oldest first; `isCurrent` is true on the last entry only. */
export const InstanceTimeline = z.object({ namespace: z.string(), kind: z.string(), name: z.string(), timeline: z.array(TimelineEntry) });
export type InstanceTimeline = z.infer<typeof InstanceTimeline>;

/** `deployment`: what Portico recorded (and RGD revision changes); `kubernetes`: the Kubernetes Events; neither: both. */
export const TimelineQuery = z.object({ source: z.enum(['deployment', 'kubernetes']).optional() });
export type TimelineQuery = z.infer<typeof TimelineQuery>;

export const HistoryEvent = z.object({
  id: z.string(),
  timestamp: Timestamp,
  eventType: HistoryEventType,
  status: z.string(),
  user: z.string().optional(),
  deploymentMode: z.string().optional(),
  gitCommitSha: z.string().optional(),
  gitRepository: z.string().optional(),
  gitBranch: z.string().optional(),
  message: z.string().optional(),
  details: z.record(z.string(), z.unknown()).optional(),
});
export type HistoryEvent = z.infer<typeof HistoryEvent>;

/** An instance's deployment history; readable for 90 days after the instance is deleted. */
export const InstanceHistory = z.object({
  instanceId: z.string(),
  instanceName: z.string(),
  namespace: z.string(),
  rgdName: z.string(),
  createdAt: Timestamp,
  currentStatus: z.string(),
  deploymentMode: z.string(),
  lastGitCommit: z.string().optional(),
  events: z.array(HistoryEvent),
});
export type InstanceHistory = z.infer<typeof InstanceHistory>;

export const HistoryExportQuery = z.object({ format: z.enum(['json', 'csv']).default('json') });
export type HistoryExportQuery = z.infer<typeof HistoryExportQuery>;

/** The CSV columns of a history export, in order. */
export const historyCsvColumns = ['Timestamp', 'Event', 'Status', 'User', 'Deployment Mode', 'Git Commit', 'Git Repository', 'Git Branch', 'Message', 'Details'] as const;
