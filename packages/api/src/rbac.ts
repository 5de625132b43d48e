import { z } from 'zod';
import { Timestamp } from './common.js';

/** Resources and actions a policy and can-i speak of (§5). */
export const rbacResources = ['projects', 'instances', 'secrets', 'rgds', 'members', 'roles'] as const;
export const rbacActions = ['get', 'list', 'create', 'update', 'delete'] as const;
export type RbacResource = (typeof rbacResources)[number];
export type RbacAction = (typeof rbacActions)[number];

export const CanIParams = z.object({
  resource: z.enum(rbacResources),
  action: z.enum([...rbacActions, '*']),
  object: z.string().min(1).max(253).regex(/^(\*|-|[a-z0-9]([-a-z0-9]*[a-z0-9])?)$/, 'must be a project name, "*" or "-"'),
});
export type CanIParams = z.infer<typeof CanIParams>;

export const CanIValue = z.object({ value: z.enum(['yes', 'no']) });
export type CanIValue = z.infer<typeof CanIValue>;

export const CanISummary = z.object({
  serverAdmin: z.boolean(),
  projects: z.record(
    z.string(),
    z.object({ role: z.string(), roles: z.array(z.string()), permissions: z.record(z.string(), z.boolean()) }),
  ),
});
export type CanISummary = z.infer<typeof CanISummary>;

export const AccountInfo = z.object({
  userID: z.string(),
  email: z.string(),
  displayName: z.string(),
  groups: z.array(z.string()),
  casbinRoles: z.array(z.string()),
  serverAdmin: z.boolean(),
  projects: z.array(z.string()),
  roles: z.record(z.string(), z.string()),
  issuer: z.string(),
  tokenIssuedAt: Timestamp,
  tokenExpiresAt: Timestamp,
});
export type AccountInfo = z.infer<typeof AccountInfo>;
