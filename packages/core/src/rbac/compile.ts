import { rbacObject, roleSubject } from './objects.js';

/**
 * The policy compiler: project-relative triples (`instances/*, get, allow`) become Casbin lines scoped to the
 * project (`proj:alpha:viewer, instances/alpha/*, get, allow`). Only four resources can be named, and each
 * compiles under a fixed project prefix, so no policy can reach another project, `projects/*`, or the
 * role-modify object `projects/<p>/roles`.
 */

export const policyActions = ['*', 'get', 'list', 'create', 'update', 'delete'] as const;
export const policyEffects = ['allow', 'deny'] as const;

export interface PolicyError {
  role: string;
  policy: string;
  message: string;
}

export interface CompiledProject {
  /** Names of the roles that compiled (valid, not duplicated), in the project's order. */
  roles: string[];
  /** Casbin `p` lines: `[subject, object, action, effect]`. */
  policies: string[][];
  /** `user:<u>` / `group:<g>` → the role subjects (`proj:<p>:<role>`) bound to it, in role order. */
  bindings: Map<string, string[]>;
  errors: PolicyError[];
}

export interface PolicySource {
  name: string;
  roles: ReadonlyArray<{ name: string; policies?: readonly string[]; groups?: readonly string[]; users?: readonly string[] }>;
}

/** Max path segments after the resource: instances/<ns>/<kind>/<name>, secrets/<ns>/<name>, rgds/<category>/<name>. */
const scopedResources: Record<string, { segments: number; shape: string }> = {
  instances: { segments: 3, shape: 'instances/<namespace>/<kind>/<name>' },
  secrets: { segments: 2, shape: 'secrets/<namespace>/<name>' },
  rgds: { segments: 2, shape: 'rgds/<category>/<name>' },
};

const objectChars = /^[A-Za-z0-9._*/-]+$/;
const roleName = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Compiles one project-relative object, or says what is wrong with it. */
function compileObject(project: string, object: string): { object: string } | { error: string } {
  if (object === '') return { error: 'the object is empty' };
  if (!objectChars.test(object)) return { error: `object "${object}" contains characters outside [A-Za-z0-9._*/-]` };
  if (object.includes('..')) return { error: `object "${object}" must not contain ".."` };
  const [resource, ...rest] = object.split('/');
  if (rest.some((s) => s === '')) return { error: `object "${object}" has an empty path segment` };
  if (rest.some((s) => s === '.')) return { error: `object "${object}" must not contain "." segments` };
  if (resource === 'members') {
    if (rest.length === 0 || (rest.length === 1 && rest[0] === '*')) return { object: rbacObject.members(project) };
    return { error: `members takes no path: write "members/*"` };
  }
  const scoped = scopedResources[resource];
  if (!scoped) {
    return { error: `unknown resource "${resource}": a project policy may name instances, secrets, rgds or members` };
  }
  if (rest.length === 0 || rest.length > scoped.segments) {
    return { error: `${resource} objects have the form ${scoped.shape} (use * for any part, e.g. ${resource}/*)` };
  }
  return { object: `${resource}/${project}/${rest.join('/')}` };
}

/** Parses `"<object>, <action>, <effect>"` (whitespace-tolerant) into a compiled `[object, action, effect]`. */
export function compilePolicy(project: string, policy: string): { line: [string, string, string] } | { error: string } {
  const parts = policy.split(',').map((p) => p.trim());
  if (parts.length !== 3) {
    return { error: `expected "<object>, <action>, <effect>" (3 comma-separated parts), got ${parts.length}` };
  }
  const [object, action, effect] = parts;
  const compiled = compileObject(project, object);
  if ('error' in compiled) return compiled;
  if (!(policyActions as readonly string[]).includes(action)) {
    return { error: `unknown action "${action}": use one of ${policyActions.join(', ')}` };
  }
  if (!(policyEffects as readonly string[]).includes(effect)) {
    return { error: `unknown effect "${effect}": use allow or deny` };
  }
  return { line: [compiled.object, action, effect] };
}

/**
 * Compiles every role of a project. Invalid policies are reported and left out; the valid ones are kept.
 * Every role also gets `projects/<p>, get, allow`: members of any role see the project and its bindings.
 */
export function compileProjectPolicies(project: PolicySource): CompiledProject {
  const policies: string[][] = [];
  const bindings = new Map<string, string[]>();
  const errors: PolicyError[] = [];
  const seen = new Set<string>();
  const roles: string[] = [];
  const bind = (subject: string, role: string) => {
    const roles = bindings.get(subject);
    if (!roles) bindings.set(subject, [role]);
    else if (!roles.includes(role)) roles.push(role);
  };

  for (const role of project.roles) {
    if (!roleName.test(role.name) || role.name.length > 63) {
      errors.push({ role: role.name, policy: '', message: 'the role name must be a DNS-1123 label' });
      continue;
    }
    if (seen.has(role.name)) {
      errors.push({ role: role.name, policy: '', message: `role "${role.name}" is defined twice` });
      continue;
    }
    seen.add(role.name);
    roles.push(role.name);
    const subject = roleSubject(project.name, role.name);
    policies.push([subject, rbacObject.project(project.name), 'get', 'allow']);
    for (const policy of role.policies ?? []) {
      const result = compilePolicy(project.name, policy);
      if ('error' in result) errors.push({ role: role.name, policy, message: result.error });
      else policies.push([subject, ...result.line]);
    }
    for (const user of role.users ?? []) bind(`user:${user}`, subject);
    for (const group of role.groups ?? []) bind(`group:${group}`, subject);
  }
  return { roles, policies, bindings, errors };
}

/** `role "dev": policy "roles/*, get, allow": unknown resource …` — one line per error, for messages and logs. */
export const describePolicyError = (e: PolicyError) =>
  e.policy ? `role "${e.role}": policy "${e.policy}": ${e.message}` : `role "${e.role}": ${e.message}`;
