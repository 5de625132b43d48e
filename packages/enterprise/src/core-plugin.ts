import type { RbacResourceRow } from '@portico/api';
import { enterpriseOperations } from '@portico/api/enterprise';
import type { Logger, PorticoPlugin } from '@portico/core';
import type { Pool } from 'pg';
import { createAuditRecorder } from './audit/recorder.js';

/** The Enterprise rows of the RBAC vocabulary (can-i, docs table), each in place of the field's placeholder. */
export const enterpriseRbacResources: readonly RbacResourceRow[] = [
  { resource: 'license', base: 'license', segments: [], actions: ['get', 'update'], policy: false, grantedBy: 'get: every signed-in user; update (install a license): Server Admin' },
  {
    resource: 'categories', base: 'categories', segments: ['slug'], actions: ['get', 'list', 'create', 'update', 'delete'], policy: false,
    grantedBy: 'get, list: every signed-in user (counts follow `rgds/*`); create, update, delete: Server Admin',
  },
  { resource: 'views', base: 'views/shared', segments: [], actions: ['create', 'update', 'delete'], policy: false, grantedBy: 'own views: their owner; shared views: Server Admin' },
  {
    resource: 'audit', base: 'audit', segments: [], actions: ['get', 'update'], policy: false,
    grantedBy: 'Server Admin (get: read, export, verify; update: configuration, erasure); grantable by global policy',
  },
  {
    resource: 'compliance', base: 'compliance', segments: [], actions: ['get', 'list', 'create', 'update'], policy: false,
    grantedBy: 'get, list (templates, constraints, every violation): Server Admin or a global `compliance` policy; a project\'s violations: its members; create, update (constraints, enforcement): Server Admin',
  },
];

/**
 * What the Enterprise edition gives `createPortico` before anything starts: its RBAC rows, its operations, and
 * the audit trail's hook around every operation (core's and its own), over the edition's PostgreSQL pool.
 */
export const enterpriseCorePlugin = (deps: { pool: Pool; logger: Logger }): PorticoPlugin => ({
  name: 'enterprise',
  rbacResources: enterpriseRbacResources,
  operations: enterpriseOperations,
  hooks: [createAuditRecorder(deps)],
});
