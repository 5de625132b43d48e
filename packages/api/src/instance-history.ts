import { z } from 'zod';
import { Timestamp } from './common.js';

/** A Kubernetes Event about an instance or one of its child resources. */
export const InstanceEvent = z.object({
  type: z.enum(['Normal', 'Warning']),
  reason: z.string(),
  message: z.string(),
  source: z.string(),
  firstTimestamp: Timestamp,
  lastTimestamp: Timestamp,
  count: z.number().int(),
  involvedObject: z.object({ kind: z.string(), name: z.string(), namespace: z.string() }),
});
export type InstanceEvent = z.infer<typeof InstanceEvent>;

export const InstanceEventList = z.object({ items: z.array(InstanceEvent) });
export type InstanceEventList = z.infer<typeof InstanceEventList>;

export const TimelineEntryType = z.enum(['created', 'updated', 'status', 'deleted', 'deploy']);

export const TimelineEntry = z.object({
  timestamp: Timestamp,
  type: TimelineEntryType,
  actor: z.string().optional(),
  message: z.string(),
  fromState: z.string().optional(),
  toState: z.string().optional(),
  resourceVersion: z.string().optional(),
});
export type TimelineEntry = z.infer<typeof TimelineEntry>;

export const InstanceTimeline = z.object({ items: z.array(TimelineEntry) });
export type InstanceTimeline = z.infer<typeof InstanceTimeline>;

export const InstanceChild = z.object({
  id: z.string(),
  apiVersion: z.string(),
  kind: z.string(),
  name: z.string(),
  namespace: z.string(),
  ready: z.boolean(),
  status: z.string(),
  message: z.string().optional(),
});
export type InstanceChild = z.infer<typeof InstanceChild>;

export const InstanceChildren = z.object({ items: z.array(InstanceChild), totalCount: z.number().int() });
export type InstanceChildren = z.infer<typeof InstanceChildren>;
