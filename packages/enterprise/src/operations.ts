import type * as ee from '@portico/api/enterprise';
import type { Actor, OperationRow } from '@portico/core';
import type { AuditService } from './audit/service.js';
import type { CategoriesService } from './categories/service.js';
import type { ComplianceService } from './compliance/service.js';
import type { LicenseService } from './license/service.js';
import type { ViewsService } from './views/service.js';

/**
 * Where each Enterprise operation's object comes from, method by method (action and resource are the
 * operation's row in `enterpriseOperations`). Each service is wrapped with `portico.operations.wrap`, so its
 * writes run inside the same hooks as core's, whoever calls them.
 */
type Table<S> = { readonly [K in keyof S]?: S[K] extends (...args: infer A) => infer R ? OperationRow<A, Awaited<R>> : never };

export const licenseOperations: Table<LicenseService> = {
  apply: { id: 'license.apply', actor: 0, subject: () => ({ name: 'license' }) },
};

const bySlug = (_a: Actor, slug: string) => ({ name: slug });
const slugOnly = (_a: Actor, slug: string) => ({ slug });

export const categoryOperations: Table<CategoriesService> = {
  create: { id: 'categories.create', actor: 0, subject: (_a: Actor, body: ee.CreateCategoryRequest) => ({ name: body.slug }) },
  update: { id: 'categories.update', actor: 0, subject: bySlug },
  delete: { id: 'categories.delete', actor: 0, subject: bySlug, input: slugOnly },
};

export const viewOperations: Table<ViewsService> = {
  create: { id: 'views.create', actor: 0, subject: (_a: Actor, body: ee.CreateViewRequest) => ({ name: body.slug }) },
  update: { id: 'views.update', actor: 0, subject: bySlug },
  delete: { id: 'views.delete', actor: 0, subject: bySlug, input: slugOnly },
};

export const auditOperations: Table<AuditService> = {
  putConfig: { id: 'audit.config', actor: 0, subject: () => ({ name: 'config' }) },
  erase: { id: 'audit.erase', actor: 0, subject: (_a: Actor, id: string) => ({ name: id }), input: (_a: Actor, id: string, reason: string) => ({ id, reason }) },
};

export const complianceOperations: Table<ComplianceService> = {
  createConstraint: { id: 'constraints.create', actor: 0, subject: (_a: Actor, body: ee.CreateConstraintRequest) => ({ name: body.name }) },
  setEnforcement: {
    id: 'constraints.enforcement', actor: 0,
    subject: (_a: Actor, _kind: string, name: string) => ({ name }),
    input: (_a: Actor, kind: string, name: string, body: ee.SetEnforcementRequest) => ({ kind, name, ...body }),
  },
};
