import { z } from 'zod';
import { Timestamp } from './common.js';

import { rbacAllActions, rbacResourceNames, rbacResourceRow } from './rbac-vocabulary.js';

export * from './rbac-vocabulary.js';

/** A resource name of the vocabulary (the rows in force, plugins' included). */
export type RbacResource = string;

export const CanIParams = z.object({
  resource: z
    .string()
    .refine((name) => rbacResourceRow(name) !== undefined, { error: () => `must be one of ${rbacResourceNames().join(', ')}` })
    .meta({ description: 'A resource of the RBAC vocabulary (see docs/rbac.md)' }),
  action: z
    .string()
    .refine((action) => action === '*' || rbacAllActions().includes(action), { error: () => `must be one of *, ${rbacAllActions().join(', ')}` })
    .meta({ description: 'An action of the RBAC vocabulary (get, list, create, update, delete, reveal) or *' }),
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
