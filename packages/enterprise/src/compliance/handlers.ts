import type * as ee from '@portico/api/enterprise';
import { pluginHandler as handler, type Handler } from '@portico/server';
import type { ComplianceService } from './service.js';

type KindName = { params: { kind: string; name: string } };

/** One handler per compliance route (one service call each); the Form A `/gatekeeper/*` names share them. */
export function complianceHandlers(compliance: ComplianceService): Record<ee.ComplianceRouteId, Handler> {
  const listViolations = handler<{ query: ee.ViolationListQuery }>(({ actor, query }) => compliance.violations(actor, query));
  const listConstraints = handler<{ query: ee.ConstraintListQuery }>(({ actor, query }) => compliance.constraints(actor, query));
  const listTemplates = handler<{ query: ee.CompliancePageQuery }>(({ actor, query }) => compliance.templates(actor, query));
  return {
    complianceStatus: handler(() => compliance.status()),
    complianceSummary: handler(({ actor }) => compliance.summary(actor)),
    listConstraintTemplates: listTemplates,
    getConstraintTemplate: handler<{ params: { name: string } }>(({ actor, params }) => compliance.template(actor, params.name)),
    listConstraints,
    getConstraint: handler<KindName>(({ actor, params }) => compliance.constraint(actor, params.kind, params.name)),
    createConstraint: handler<{ body: ee.CreateConstraintRequest }>(({ actor, body }) => compliance.createConstraint(actor, body)),
    setConstraintEnforcement: handler<KindName & { body: ee.SetEnforcementRequest }>(({ actor, params, body }) => compliance.setEnforcement(actor, params.kind, params.name, body)),
    listViolations,
    validateCompliance: handler<{ body: ee.ValidateRequest }>(({ actor, body }) => compliance.validate(actor, body)),
    gatekeeperViolations: listViolations,
    gatekeeperConstraints: listConstraints,
    gatekeeperTemplates: listTemplates,
  };
}
