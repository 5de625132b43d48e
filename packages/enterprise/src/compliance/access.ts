import type { RbacVocabulary } from '@portico/api';
import { forbidden, type Actor, type Authorizer } from '@portico/core';

/**
 * Who sees what of compliance (§12.5): templates, constraints and every violation are for Server Admins and
 * holders of a `compliance` `get` policy; a project's members see the violations of their project's instances
 * (those they may `get`) and of other resources in the project's namespaces; writes (constraints, enforcement) need a Server Admin.
 */
export function createComplianceAccess(authz: Authorizer, vocabulary: Pick<RbacVocabulary, 'object'>) {
  /** The RBAC object of §12.5's templates and constraints (a global `compliance` policy grants reading them). */
  const complianceObject = vocabulary.object('compliance');
  const readsPolicies = (actor: Actor) => authz.isServerAdmin(actor) || authz.can(actor, 'get', complianceObject);
  return {
    readsPolicies,
    /**
     * A predicate over violations for one caller, membership decided once per call: a member sees a violation of
     * their project, and of an instance only if they may `get` that instance (a deny on it hides its violations).
     */
    violationFilter(actor: Actor): (v: { project?: string; object?: string }) => boolean {
      if (readsPolicies(actor)) return () => true;
      const member = new Set(authz.memberProjects(actor));
      return (v) => v.project !== undefined && member.has(v.project) && (v.object === undefined || authz.can(actor, 'get', v.object));
    },
    requirePolicyReader(actor: Actor) {
      if (!readsPolicies(actor)) throw forbidden('reading compliance templates and constraints needs a Server Admin or a `compliance` policy', { resource: complianceObject, action: 'get' });
    },
    requireAdmin(actor: Actor, action: string) {
      if (!authz.isServerAdmin(actor)) throw forbidden(`${action} needs a Server Admin`, { resource: complianceObject, action: 'update' });
    },
  };
}
export type ComplianceAccess = ReturnType<typeof createComplianceAccess>;
