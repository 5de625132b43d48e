import type * as api from '@portico/api/enterprise';
import { publishAll, type DomainEvent, type EventStream, type EventsService, type Logger, type Disposable } from '@portico/core';
import type { ComplianceAccess } from './access.js';
import type { ComplianceIndex, PolicyChange } from './compliance-index.js';
import { constraintKindOf, enforcementOf, totalViolationsOf } from './gatekeeper.js';
import type { ViolationChange } from './violation-changes.js';

export const complianceEventTypes = ['violation_update', 'template_update', 'constraint_update'] as const;

function violationEvent(change: ViolationChange): DomainEvent {
  const data: api.ViolationUpdate = {
    action: change.action,
    constraintKind: change.constraintKind,
    constraintName: change.constraintName,
    resource: change.resource,
    message: change.message,
    enforcementAction: change.enforcementAction,
    ...(change.project ? { project: change.project } : {}),
  };
  // No uid/resourceVersion: several violations of one constraint change travel together and must all arrive.
  // `object`: the instance the violation belongs to, so a member denied that instance does not receive it.
  return { type: 'violation_update', project: change.project, object: change.object, namespace: change.resource.namespace, name: change.resource.name, data };
}

function eventsOf(change: PolicyChange): DomainEvent[] {
  const { object } = change;
  const identity = { uid: object.metadata.uid, resourceVersion: object.metadata.resourceVersion, name: object.metadata.name };
  if (change.type === 'template') {
    const data: api.TemplateUpdate = { action: change.action, name: object.metadata.name, kind: constraintKindOf(object) };
    return [{ type: 'template_update', ...identity, data }];
  }
  const data: api.ConstraintUpdate = { action: change.action, kind: object.kind, name: object.metadata.name, enforcementAction: enforcementOf(object), violationCount: totalViolationsOf(object) };
  return [{ type: 'constraint_update', ...identity, data }, ...change.violations.map(violationEvent)];
}

/**
 * Publishes the index's changes on the event bus, once cluster-wide: every replica sees the same Gatekeeper
 * object change, and the one that wins its claim (`uid:resourceVersion:action`) sends it with the violation
 * changes it caused, in one message. Every replica's /ws then decides per socket who receives what.
 */
export function publishComplianceEvents(index: ComplianceIndex, events: EventsService, logger: Logger): Disposable {
  return index.onPolicyChange((change) => {
    const { uid, resourceVersion } = change.object.metadata;
    const claim = uid && resourceVersion ? `${uid}:${resourceVersion}:${change.type}:${change.action}` : undefined;
    publishAll(events, eventsOf(change), claim ? { claim } : {}).catch((err: unknown) => logger.warn({ err }, 'could not publish compliance events'));
  });
}

/**
 * The `violations` stream of /ws: a violation goes to those who may see it (§12.5: its project's members, Server
 * Admins, `compliance` policy holders), template and constraint changes to those who may read policies; decided
 * at send time from current policy.
 */
export function complianceEventStream(access: ComplianceAccess): EventStream {
  return {
    resourceType: 'violations',
    eventTypes: complianceEventTypes,
    visibleTo(actor, event) {
      if (event.type === 'violation_update') return access.violationFilter(actor)({ project: event.project, object: event.object });
      return access.readsPolicies(actor);
    },
  };
}
