/**
 * The Casbin-line spelling of a role policy, as clients in the field write it (contract §11.8):
 * `p, proj:<project>:<role>, <resource>, <action>, <object>, <effect>`. It is stored as written; for the
 * compiler it stands for a project-relative triple (`<resource>/<relative object>, <action>, <effect>`), read
 * the way the field reads the object, or for an error saying why it cannot be mapped. Nothing here is guessed:
 * an object that names another project, every project, or a shape Portico has no objects for is refused, so a
 * stored line never grants anything but what its text says.
 */

/** Which role a policy is being compiled for; a Casbin line must name exactly this project and role. */
export interface PolicyOwner {
  project: string;
  role: string;
}

const lineShape = 'p, proj:<project>:<role>, <resource>, <action>, <object>, <effect>';

/**
 * The field's object of a line, relative to the project:
 * - `*`, `<project>`, `<project>/*`: the whole project (`projects`: the project itself; `*` there would name every project);
 * - `<project>/<part>/…`: the resource's path parts in order (`<namespace>/<kind>/<name>` for instances), trailing parts optional;
 * - `*\/<project>/<name>` (instances, any category): the project's instances called `<name>`, in any namespace and kind.
 */
function relativeObject(project: string, resource: string, object: string): { object: string } | { error: string } {
  const whole = `${resource}/*`;
  if (object === '') return { error: 'the object is empty' };
  if (object === project || object === `${project}/*`) return { object: whole };
  if (object === '*') {
    if (resource === 'projects') return { error: `object "*" would name every project; a policy of project "${project}" names it as "${project}"` };
    return { object: whole };
  }
  const [head, ...rest] = object.split('/');
  if (head === project) return { object: [resource, ...rest].join('/') };
  const named = head === '*' ? rest[0] : head;
  if (head === '*' && named === project) {
    if (resource === 'instances' && rest.length === 2) return { object: rest[1] === '*' ? whole : `instances/*/*/${rest[1]}` };
    const forms = resource === 'instances' ? `"${project}/<namespace>/<kind>/<name>" or "*/${project}/<name>"` : `"${project}" or "${project}/…"`;
    return { error: `object "${object}" cannot be mapped onto a Portico object of ${resource}: write ${forms}` };
  }
  if (named === undefined || named === '' || named.includes('*')) {
    return { error: `object "${object}" would reach other projects; a policy of project "${project}" names only "${project}/…"` };
  }
  return { error: `object "${object}" names project "${named}"; a policy of project "${project}" names only "${project}/…"` };
}

/**
 * The project-relative triple a policy stands for. A triple `<object>, <action>, <effect>` is itself; a Casbin
 * line must name the project and role being edited, and its object is read as the field reads it
 * (`relativeObject`); anything else is an error naming the reason.
 */
export function policyTriple(owner: PolicyOwner, policy: string): { triple: string } | { error: string } {
  const parts = policy.split(',').map((p) => p.trim());
  if (parts[0] !== 'p') return { triple: policy };
  if (parts.length !== 6) return { error: `expected "${lineShape}" (6 comma-separated parts), got ${parts.length}` };
  const [, subject, resource, action, object, effect] = parts as [string, string, string, string, string, string];
  const match = /^proj:([^:]+):([^:]+)$/.exec(subject);
  if (!match) return { error: `subject "${subject}" must be proj:${owner.project}:${owner.role}` };
  if (match[1] !== owner.project) return { error: `the line names project "${match[1]}"; only policies of project "${owner.project}" may be written here` };
  if (match[2] !== owner.role) return { error: `the line names role "${match[2]}"; only policies of role "${owner.role}" may be written here` };
  if (resource === '' || resource.includes('/')) return { error: `resource "${resource}" must be one word (instances, secrets, …)` };
  const relative = relativeObject(owner.project, resource, object);
  return 'error' in relative ? relative : { triple: `${relative.object}, ${action}, ${effect}` };
}
