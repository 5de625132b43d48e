import type * as api from '@portico/api/enterprise';
import { forbidden, type Cluster, type KubeObject, resources } from '@portico/core';
import { judgeSubject } from './simulator/audit.js';
import { compileConstraint, createConstraintSet, type CompiledConstraint, type ConstraintSet, type Finding } from './constraint-set.js';
import type { ComplianceIndex } from './compliance-index.js';
import { groupOf } from './match.js';

/**
 * The checks before deploy: what the constraints in force say about an instance and the objects kro would
 * create for it (its RGD's templates rendered with its values). Only `deny` and `warn` constraints speak here;
 * `dryrun` ones only report in the audit. Constraints of template kinds Portico does not implement natively
 * are Gatekeeper's alone (its admission webhook still applies them in a real cluster).
 */
export function createPolicyChecks(deps: { index: ComplianceIndex; cluster: Cluster }) {
  let inForce: ConstraintSet | undefined;
  deps.index.onPolicyChange((change) => {
    if (change.type === 'constraint' && change.action === 'update') {
      const obj = change.object;
      // A status write of the audit leaves the constraints in force as they were.
      if (inForce && (change.object.metadata.generation ?? 0) === generations.get(`${obj.kind}/${obj.metadata.name}`)) return;
    }
    inForce = undefined;
  });
  const generations = new Map<string, number>();
  const constraintSet = () => {
    if (!inForce) {
      generations.clear();
      const compiled: CompiledConstraint[] = [];
      for (const obj of deps.index.constraints()) {
        generations.set(`${obj.kind}/${obj.metadata.name}`, obj.metadata.generation ?? 0);
        const c = compileConstraint(obj);
        if (c && c.enforcementAction !== 'dryrun') compiled.push(c);
      }
      inForce = createConstraintSet(compiled);
    }
    return inForce;
  };

  /** Findings for an instance manifest about to be created (nothing when Gatekeeper is not installed). */
  async function findingsFor(rgdName: string, manifest: KubeObject): Promise<Finding[]> {
    if (deps.index.state() === 'not_installed') return [];
    const set = constraintSet();
    if (set.size === 0) return [];
    const rgd = await deps.cluster.get(resources.rgd, rgdName);
    return judgeSubject(set, { object: manifest, rgd });
  }

  return {
    findingsFor,
    /** The answer of POST /compliance/validate. */
    async validate(rgdName: string, manifest: KubeObject): Promise<api.ValidateResponse> {
      const violations = (await findingsFor(rgdName, manifest)).map(toPolicyFinding);
      const result = violations.some((v) => v.severity === 'error') ? 'block' : violations.length > 0 ? 'warning' : 'pass';
      return { result, violations };
    },
    /** The instance-create admission: 403 with every deny finding, else the warn ones as warnings. */
    async admit(rgdName: string, manifest: KubeObject, project: string): Promise<{ warnings: api.PolicyFinding[] }> {
      const findings = await findingsFor(rgdName, manifest);
      const denied = findings.filter((f) => f.constraint.enforcementAction === 'deny');
      if (denied.length > 0) {
        throw forbidden(`the instance violates ${denied.length === 1 ? 'a deny policy' : `${denied.length} deny policies`}: ${denied.map((f) => `[${f.constraint.kind}/${f.constraint.name}] ${f.message}`).join('; ')}`, {
          violations: denied.map((f) => toViolation(f, project)),
        });
      }
      return { warnings: findings.map(toPolicyFinding) };
    },
  };
}
export type PolicyChecks = ReturnType<typeof createPolicyChecks>;

const toPolicyFinding = (f: Finding): api.PolicyFinding => ({
  policy: `${f.constraint.kind}/${f.constraint.name}`,
  severity: f.constraint.enforcementAction === 'deny' ? 'error' : 'warning',
  message: f.message,
  field: `${f.object.kind}/${f.object.metadata.name}`,
});

const toViolation = (f: Finding, project: string): api.Violation => ({
  constraintName: f.constraint.name,
  constraintKind: f.constraint.kind,
  resource: { kind: f.object.kind, namespace: f.object.metadata.namespace ?? '', name: f.object.metadata.name, apiGroup: groupOf(f.object.apiVersion) },
  message: f.message,
  enforcementAction: f.constraint.enforcementAction,
  project,
});
