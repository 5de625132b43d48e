import { PorticoError } from '../errors.js';
import { policyTriple } from './casbin-line.js';
import { itemObject, ossRbacVocabulary, rbacObject, rbacSubject, resourceObject, type RbacResourceRow, type RbacVocabulary } from '@portico/api';

/**
 * The policy compiler: project-relative triples (`instances/*, get, allow`), and the Casbin lines the field
 * writes (casbin-line.ts), become Casbin lines scoped to the project (`proj:alpha:viewer, instances/alpha/*, get,
 * allow`). Policies are stored as written and compiled from that text wherever they are read. Only the
 * vocabulary's policy rows can be named (`policy: true` in @portico/api's rbac-vocabulary, and its
 * `projectPolicyOnlyRows`), and each compiles under its fixed project base, so no policy can reach another
 * project, `projects/*`, or the role-modify object `projects/<p>/roles`.
 */

/** Every action a policy may name: `*` and the actions of the policy rows (`reveal` of secrets included). */
export const policyActions = (vocabulary: RbacVocabulary = ossRbacVocabulary): string[] => ['*', ...vocabulary.policyActions];
export const policyEffects = ['allow', 'deny'] as const;

export interface PolicyError {
  role: string;
  policy: string;
  message: string;
}



export interface CompiledProject {
  /** Names of the roles that compiled (valid, not duplicated), in the project's order. */
  roles: string[];
  /**
   * Casbin `p` lines: `[subject, object, action, effect, scope]`. `scope` is `*`, or for a role with
   * `destinations` the namespace pattern its line is confined to (`instances/alpha/dev`): a request must match
   * the object AND the scope, so the role's permissions hold only in those namespaces.
   */
  policies: string[][];
  /** `user:<u>` / `group:<g>` → the role subjects (`proj:<p>:<role>`) bound to it, in role order. */
  bindings: Map<string, string[]>;
  errors: PolicyError[];
  /** Where each error sits in the input, index for index: `roles.<i>.name` or `roles.<i>.policies.<j>`. */
  errorFields: string[];
}

export interface PolicySource {
  name: string;
  roles: ReadonlyArray<{
    name: string;
    policies?: readonly string[];
    groups?: readonly string[];
    users?: readonly string[];
    /** Namespace patterns (`*`, `prefix*`, `*suffix`, a name) the role's permissions are confined to. */
    destinations?: readonly string[];
  }>;
}

const objectChars = /^[A-Za-z0-9._*/-]+$/;
const roleName = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Compiles one project-relative object against the policy rows of the vocabulary, or says what is wrong. */
function compileObject(project: string, object: string, vocabulary: RbacVocabulary): { object: string; row: RbacResourceRow } | { error: string } {
  if (object === '') return { error: 'the object is empty' };
  if (!objectChars.test(object)) return { error: `object "${object}" contains characters outside [A-Za-z0-9._*/-]` };
  if (object.includes('..')) return { error: `object "${object}" must not contain ".."` };
  const [resource, ...rest] = object.split('/');
  if (rest.some((s) => s === '')) return { error: `object "${object}" has an empty path segment` };
  if (rest.some((s) => s === '.')) return { error: `object "${object}" must not contain "." segments` };
  const { policyRows } = vocabulary;
  const row = policyRows.find((r) => r.resource === resource);
  if (!row) {
    const names = policyRows.map((r) => r.resource);
    const list = names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names.at(-1)}` : names.join('');
    return { error: `unknown resource "${resource}": a project policy may name ${list}` };
  }
  if (row.segments.length === 0) {
    if (rest.length === 0 || (rest.length === 1 && rest[0] === '*')) return { object: resourceObject(row, project), row };
    return { error: `${resource} takes no path: write "${resource}/*"` };
  }
  if (rest.length === 0 || rest.length > row.segments.length) {
    const shape = [resource, ...row.segments.map((s) => `<${s}>`)].join('/');
    return { error: `${resource} objects have the form ${shape} (use * for any part, e.g. ${resource}/*)` };
  }
  // Trailing parts left out mean any: `instances/dev` is every instance in dev, not an object called `dev`.
  const parts = rest.length < row.segments.length && rest.at(-1) !== '*' ? [...rest, '*'] : rest;
  return { object: itemObject(row, project, parts), row };
}

/**
 * Parses `"<object>, <action>, <effect>"` (whitespace-tolerant) into compiled `[object, action, effect]` lines:
 * one, or for `*` on a resource a policy may grant only some actions of (`projects`: get, update) one per action.
 */
export function compilePolicy(project: string, policy: string, vocabulary: RbacVocabulary = ossRbacVocabulary): { lines: [string, string, string][] } | { error: string } {
  const compiled = compileTriple(project, policy, vocabulary);
  return 'error' in compiled ? compiled : { lines: compiled.lines };
}

type Line = [string, string, string];

function compileTriple(project: string, policy: string, vocabulary: RbacVocabulary): { lines: Line[]; row: RbacResourceRow } | { error: string } {
  const parts = policy.split(',').map((p) => p.trim());
  if (parts.length !== 3) {
    return { error: `expected "<object>, <action>, <effect>" (3 comma-separated parts), got ${parts.length}` };
  }
  const [object, action, effect] = parts as [string, string, string];
  const compiled = compileObject(project, object, vocabulary);
  if ('error' in compiled) return compiled;
  const { row } = compiled;
  const grantable = row.policyActions ?? row.actions;
  if (action !== '*' && !grantable.includes(action)) {
    const limited = row.policyActions && row.actions.includes(action) ? ` (a project policy may grant only ${grantable.join(' and ')} of ${row.resource})` : '';
    return { error: `unknown action "${action}" for ${row.resource}${limited}: use one of *, ${grantable.join(', ')}` };
  }
  if (!(policyEffects as readonly string[]).includes(effect)) {
    return { error: `unknown effect "${effect}": use allow or deny` };
  }
  // A Casbin `*` matches every action asked; where a policy may grant only some, it is spelt out action by action.
  const actions = action === '*' && row.policyActions ? row.policyActions : [action];
  return { lines: actions.map((a): Line => [compiled.object, a, effect]), row };
}

const destinationPattern = /^(\*|[a-z0-9][-a-z0-9]*\*|\*[-a-z0-9]*[a-z0-9]|[a-z0-9]([-a-z0-9]*[a-z0-9])?)$/;

/**
 * The scopes a role's line is confined to: `*` (everywhere) unless the role has destinations and the line's
 * resource has a namespace segment; then one scope per destination, `<base>/<pattern>` (`instances/alpha/dev`).
 */
function scopesOf(project: string, row: RbacResourceRow, destinations: readonly string[] | undefined): string[] {
  const at = row.segments.indexOf('namespace');
  if (!destinations || destinations.length === 0 || at < 0) return ['*'];
  const base = itemObject(row, project, []);
  return destinations.map((pattern) => [base, ...Array(at).fill('*'), pattern].join('/'));
}

/** Why a role counts for nothing (no lines, no bindings): a name that is not a DNS-1123 label, or taken already. */
function roleNameErrors(project: PolicySource): (string | undefined)[] {
  const seen = new Set<string>();
  return project.roles.map((role) => {
    if (!roleName.test(role.name) || role.name.length > 63) return 'the role name must be a DNS-1123 label';
    if (seen.has(role.name)) return `role "${role.name}" is defined more than once`;
    seen.add(role.name);
    return undefined;
  });
}

/**
 * Who holds which role: `user:<u>` / `group:<g>` → the role subjects (`proj:<p>:<role>`) bound to it, in role order.
 * Only roles that count bind; the rest of the compile does not depend on who is bound, so a binding change can
 * be compiled with this alone.
 */
export function compileProjectBindings(project: PolicySource, nameErrors = roleNameErrors(project)): Map<string, string[]> {
  const bindings = new Map<string, string[]>();
  const bind = (subject: string, role: string) => {
    const roles = bindings.get(subject);
    if (!roles) bindings.set(subject, [role]);
    else if (!roles.includes(role)) roles.push(role);
  };
  project.roles.forEach((role, i) => {
    if (nameErrors[i] !== undefined) return;
    const subject = rbacSubject.role(project.name, role.name);
    for (const user of role.users ?? []) bind(rbacSubject.user(user), subject);
    for (const group of role.groups ?? []) bind(rbacSubject.group(group), subject);
  });
  return bindings;
}

/**
 * Compiles every role of a project. Invalid policies are reported and left out; the valid ones are kept.
 * Every role also gets `projects/<p>, get, allow`: members of any role see the project and its bindings.
 */
export function compileProjectPolicies(project: PolicySource, vocabulary: RbacVocabulary = ossRbacVocabulary): CompiledProject {
  const policies: string[][] = [];
  const errors: PolicyError[] = [];
  const errorFields: string[] = [];
  const fail = (field: string, error: PolicyError) => {
    errorFields.push(field);
    errors.push(error);
  };
  const roles: string[] = [];
  const nameErrors = roleNameErrors(project);

  project.roles.forEach((role, i) => {
    const nameError = nameErrors[i];
    if (nameError !== undefined) {
      fail(`roles.${i}.name`, { role: role.name, policy: '', message: nameError });
      return;
    }
    roles.push(role.name);
    const subject = rbacSubject.role(project.name, role.name);
    policies.push([subject, rbacObject.project(project.name), 'get', 'allow', '*']);
    const badDestination = (role.destinations ?? []).find((d) => !destinationPattern.test(d));
    if (badDestination !== undefined) {
      fail(`roles.${i}.destinations`, {
        role: role.name,
        policy: '',
        message: `destination "${badDestination}" must be a namespace name or a pattern "*", "prefix*" or "*suffix"`,
      });
    }
    (role.policies ?? []).forEach((policy, j) => {
      const triple = policyTriple({ project: project.name, role: role.name }, policy);
      const result = 'error' in triple ? triple : compileTriple(project.name, triple.triple, vocabulary);
      if ('error' in result) fail(`roles.${i}.policies.${j}`, { role: role.name, policy, message: result.error });
      else for (const line of result.lines) for (const scope of scopesOf(project.name, result.row, role.destinations)) policies.push([subject, ...line, scope]);
    });
  });
  return { roles, policies, bindings: compileProjectBindings(project, nameErrors), errors, errorFields };
}

/** `role "dev": policy "roles/*, get, allow": unknown resource …` — one line per error, for messages and logs. */
export const describePolicyError = (e: PolicyError) =>
  e.policy ? `role "${e.role}": policy "${e.policy}": ${e.message}` : `role "${e.role}": ${e.message}`;

/**
 * The one validator for role policies (the API's create and update): everything the compiler would drop is
 * refused instead, naming the role and the policy (in `details.errors`, and in `details.fields` keyed
 * `roles.<i>.name` / `roles.<i>.policies.<j>`).
 */
export function validateRoles(project: string, roles: PolicySource['roles'], vocabulary: RbacVocabulary = ossRbacVocabulary): void {
  const { errors, errorFields } = compileProjectPolicies({ name: project, roles }, vocabulary);
  if (errors.length === 0) return;
  const fields = Object.fromEntries(errors.map((e, i) => [errorFields[i], e.policy ? describePolicyError(e) : e.message]));
  const first = errors[0]!;
  const message = first.policy
    ? `invalid policy "${first.policy}" in role "${first.role}": ${first.message}`
    : `invalid role "${first.role}": ${first.message}`;
  throw new PorticoError('VALIDATION_FAILED', message, { fields, errors });
}
