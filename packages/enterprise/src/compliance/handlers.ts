import type { EnterpriseRouteRow } from '@portico/api/enterprise';
import { tableHandlers } from '@portico/server';
import type { ComplianceService } from './service.js';

/** One handler per compliance route (one service call each), typed from its row; `/gatekeeper/*` names share them. */
export function complianceHandlers(compliance: ComplianceService) {
  const handlers = tableHandlers<EnterpriseRouteRow>();
  const { listViolations, listConstraints, listConstraintTemplates } = handlers({
    listViolations: ({ actor, query }) => compliance.violations(actor, query),
    listConstraints: ({ actor, query }) => compliance.constraints(actor, query),
    listConstraintTemplates: ({ actor, query }) => compliance.templates(actor, query),
  });
  return {
    ...handlers({
      complianceStatus: () => compliance.status(),
      complianceSummary: ({ actor }) => compliance.summary(actor),
      getConstraintTemplate: ({ actor, params }) => compliance.template(actor, params.name),
      getConstraint: ({ actor, params }) => compliance.constraint(actor, params.kind, params.name),
      createConstraint: ({ actor, body }) => compliance.createConstraint(actor, body),
      setConstraintEnforcement: ({ actor, params, body }) => compliance.setEnforcement(actor, params.kind, params.name, body),
      validateCompliance: ({ actor, body }) => compliance.validate(actor, body),
    }),
    listViolations,
    listConstraints,
    listConstraintTemplates,
    gatekeeperViolations: listViolations,
    gatekeeperConstraints: listConstraints,
    gatekeeperTemplates: listConstraintTemplates,
  };
}
