import { forbidden, type AdmissionRequest, type KubeObject, type ResourceRef } from '@portico/core';
import { judgeSubject, toStatusViolation } from './audit.js';
import type { SimulatorState } from './state.js';
import { admissionSubject } from './subjects.js';

/**
 * The admission webhook, for CREATE and UPDATE alike (Gatekeeper's webhook reviews both): throws FORBIDDEN, as
 * Gatekeeper's `validation.gatekeeper.sh` answers, when `deny` constraints reject the object as it would be
 * written (or its rendered children). An object already being deleted passes, so the controllers' last writes
 * (finalizers) land.
 */
export function createAdmission(state: SimulatorState) {
  return function admit(ref: ResourceRef, obj: KubeObject, _request?: AdmissionRequest): void {
    const deny = state.constraints.deny;
    if (deny.size === 0 || obj.metadata.deletionTimestamp) return;
    const findings = judgeSubject(deny, admissionSubject(state, ref, obj));
    if (findings.length === 0) return;
    const messages = findings.map((f) => `[${f.constraint.name}] ${f.message}`);
    throw forbidden(`admission webhook "validation.gatekeeper.sh" denied the request: ${messages.join('; ')}`, {
      violations: findings.map((f) => ({ constraintKind: f.constraint.kind, constraintName: f.constraint.name, ...toStatusViolation(f) })),
    });
  };
}
