import { z } from 'zod';

export * from './rbac-vocabulary.js';

/** A resource name of the vocabulary (the rows in force, plugins' included). */
export type RbacResource = string;

// Which resources and actions exist is the answering Portico's vocabulary (its plugins' rows included), so
// the wire schema checks the shape and core checks membership.
export const CanIParams = z.object({
  resource: z
    .string()
    .max(63)
    .regex(/^[a-z][a-z0-9-]*$/, 'must be a resource of the RBAC vocabulary')
    .meta({ description: 'A resource of the RBAC vocabulary (see docs/rbac.md)' }),
  action: z
    .string()
    .max(63)
    .regex(/^(\*|[a-z][a-z_-]*)$/, 'must be an action of the RBAC vocabulary or *')
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
  /** `Local` for a local account, the identity provider's name otherwise. */
  issuer: z.string(),
  /** Unix seconds, as consoles in the field read them (§11.9). */
  tokenIssuedAt: z.number().int(),
  tokenExpiresAt: z.number().int(),
});
export type AccountInfo = z.infer<typeof AccountInfo>;
