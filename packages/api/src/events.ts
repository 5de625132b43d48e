import { z } from 'zod';
import { Instance } from './instances.js';
import { Rgd } from './rgds.js';

export const SubscriptionResourceType = z.enum(['instances', 'rgds', 'projects', 'all']);
export type SubscriptionResourceType = z.infer<typeof SubscriptionResourceType>;

/**
 * A built-in resourceType, or one an edition adds (Enterprise: `violations`); the server answers
 * INVALID_RESOURCE_TYPE for one it does not serve.
 */
export const AnyResourceType = z.union([SubscriptionResourceType, z.string().regex(/^[a-z][a-z-]{0,31}$/, 'must be a resource type name')]);

export const SubscriptionFilter = z.object({
  resourceType: AnyResourceType,
  project: z.string().max(63).optional(),
  namespace: z.string().max(63).optional(),
  name: z.string().max(253).optional(),
});
export type SubscriptionFilter = z.infer<typeof SubscriptionFilter>;

/** Frames a client sends over /ws. */
export const ClientMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('subscribe'), data: SubscriptionFilter }),
  z.object({ type: z.literal('unsubscribe'), data: SubscriptionFilter }),
  z.object({ type: z.literal('ping'), data: z.unknown().optional() }),
]);
export type ClientMessage = z.infer<typeof ClientMessage>;

export const InstanceUpdate = z.object({
  action: z.enum(['add', 'update', 'delete']),
  namespace: z.string(),
  kind: z.string(),
  name: z.string(),
  project: z.string(),
  instance: Instance,
});
export type InstanceUpdate = z.infer<typeof InstanceUpdate>;

export const DeployProgress = z.object({
  instanceId: z.string(),
  project: z.string(),
  namespace: z.string(),
  kind: z.string(),
  name: z.string(),
  phase: z.string(),
  totalResources: z.number().int(),
  readyResources: z.number().int(),
  message: z.string(),
});
export type DeployProgress = z.infer<typeof DeployProgress>;

/** §13: a Git-mode instance's live spec began or ceased to differ from the spec in Git. */
export const DriftUpdate = z.object({ namespace: z.string(), kind: z.string(), name: z.string(), drifted: z.boolean(), projectId: z.string() });
export type DriftUpdate = z.infer<typeof DriftUpdate>;

export const RgdUpdate = z.object({ action: z.enum(['add', 'update', 'delete']), name: z.string(), rgd: Rgd });
export type RgdUpdate = z.infer<typeof RgdUpdate>;

/** A revision of an RGD was recorded (or removed with its RGD): sent to those who may see the RGD (§11.1). */
export const RevisionUpdate = z.object({
  action: z.enum(['add', 'update', 'delete']),
  rgdName: z.string(),
  revision: z.number().int(),
  projectId: z.string().optional(),
});
export type RevisionUpdate = z.infer<typeof RevisionUpdate>;

export const CountsUpdate = z.object({ rgdCount: z.number().int(), instanceCount: z.number().int() });
export type CountsUpdate = z.infer<typeof CountsUpdate>;

export const WsError = z.object({ code: z.string(), message: z.string() });

/**
 * The server may have missed changes it would have sent (a gap in its event stream): the client should
 * refetch what it shows. `resourceVersion`, when present, is the newest change delivered before the gap: state
 * refetched now is at least that new.
 */
export const Resync = z.object({ reason: z.string(), resourceVersion: z.string().optional() });
export type Resync = z.infer<typeof Resync>;

/** Every server → client frame, keyed by `type`. */
export const serverEventData = {
  /** The filter as stored, with `success: true` (clients written for the original server check it). */
  subscribed: SubscriptionFilter.extend({ success: z.literal(true) }),
  unsubscribed: SubscriptionFilter,
  pong: z.object({}).passthrough(),
  error: WsError,
  instance_update: InstanceUpdate,
  deploy_progress: DeployProgress,
  drift_update: DriftUpdate,
  rgd_update: RgdUpdate,
  revision_update: RevisionUpdate,
  counts_update: CountsUpdate,
  resync: Resync,
  /** Enterprise (§12.5): the shapes are in `@portico/api/enterprise` (complianceEventData). */
  violation_update: z.record(z.string(), z.unknown()),
  template_update: z.record(z.string(), z.unknown()),
  constraint_update: z.record(z.string(), z.unknown()),
} as const;
export type ServerEventType = keyof typeof serverEventData;

export const ServerMessage = z.discriminatedUnion(
  'type',
  (Object.keys(serverEventData) as ServerEventType[]).map((type) =>
    z.object({ type: z.literal(type), timestamp: z.string(), data: serverEventData[type] }),
  ) as unknown as [z.ZodObject, ...z.ZodObject[]],
);
export type ServerMessage = {
  [K in ServerEventType]: { type: K; timestamp: string; data: z.infer<(typeof serverEventData)[K]> };
}[ServerEventType];

/** WebSocket close codes the server uses. */
export const wsCloseCodes = { normal: 1000, goingAway: 1001, policyViolation: 1008, tryAgainLater: 1013, sessionRevoked: 4401 } as const;
