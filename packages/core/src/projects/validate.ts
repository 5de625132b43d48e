import { PorticoError } from '../errors.js';
import { compilePolicy, type PolicyError } from '../rbac/compile.js';

/**
 * Every role name unique and every policy compilable. Errors name the role and the policy (both in
 * `details.errors` and in `details.fields`, keyed `roles.<i>.policies.<j>`).
 */
export function validateRoles(project: string, roles: ReadonlyArray<{ name: string; policies?: readonly string[] }>): void {
  const fields: Record<string, string> = {};
  const errors: PolicyError[] = [];
  const seen = new Set<string>();
  roles.forEach((role, i) => {
    if (seen.has(role.name)) {
      const message = `role "${role.name}" is defined more than once`;
      fields[`roles.${i}.name`] = message;
      errors.push({ role: role.name, policy: '', message });
    }
    seen.add(role.name);
    (role.policies ?? []).forEach((policy, j) => {
      const result = compilePolicy(project, policy);
      if ('error' in result) {
        fields[`roles.${i}.policies.${j}`] = `role "${role.name}": policy "${policy}": ${result.error}`;
        errors.push({ role: role.name, policy, message: result.error });
      }
    });
  });
  if (errors.length === 0) return;
  const first = errors[0];
  const message = first.policy
    ? `invalid policy "${first.policy}" in role "${first.role}": ${first.message}`
    : `invalid role "${first.role}": ${first.message}`;
  throw new PorticoError('VALIDATION_FAILED', message, { fields, errors });
}

export { parseInput } from '../validation.js';
