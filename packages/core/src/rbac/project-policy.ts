import { buildEnforcer, type PolicyEnforcer } from './enforcer.js';
import { compileProjectBindings, compileProjectPolicies, type PolicyError, type PolicySource } from './compile.js';
import type { RbacVocabulary } from '@portico/api';

/**
 * Everything the authorizer knows about one project, built in full before it replaces the previous one.
 * Immutable once built, except for the decision memo, which belongs to this version of the lines only (a version
 * with other lines starts with an empty memo, so a policy change can never be answered from an old decision).
 */
export interface ProjectPolicy {
  readonly name: string;
  /** Valid role names, in the project's order. */
  readonly roleNames: readonly string[];
  /** `user:<u>` / `group:<g>` → role subjects (`proj:<p>:<role>`). */
  readonly bindings: ReadonlyMap<string, readonly string[]>;
  readonly enforcer: PolicyEnforcer;
  readonly errors: readonly PolicyError[];
  /** What the lines were compiled from (not who is bound); a version with the same lines keeps `decide`'s memo. */
  readonly linesKey: string;
  /** Who is bound; with `linesKey`, all the policy is compiled from: an event that leaves both alone needs no rebuild. */
  readonly bindingsKey: string;
  decide(roleSubjects: ReadonlySet<string>, object: string, action: string): boolean;
  /**
   * Which of the project's instances these roles may `get`, read from the compiled lines: `all` (an allow of the
   * whole project and no deny), `none` (no allow at all), or `some` (item-level rules: decide per instance).
   */
  instanceReach(roleSubjects: ReadonlySet<string>): InstanceReach;
}

export type InstanceReach = 'all' | 'some' | 'none';

const readsInstances = (action: string) => action === 'get' || action === '*';

function instanceReachOf(project: string, lines: readonly string[][], roleSubjects: ReadonlySet<string>): InstanceReach {
  const whole = `instances/${project}/*`;
  let allowsWhole = false;
  let allowsSome = false;
  for (const [subject, object, action, effect, scope = '*'] of lines) {
    if (!roleSubjects.has(subject) || !readsInstances(action) || !object.startsWith(`instances/${project}/`)) continue;
    if (effect === 'deny') return 'some';
    // A line confined to some namespaces (a role's destinations) reaches part of the project only.
    if (object === whole && scope === '*') allowsWhole = true;
    else allowsSome = true;
  }
  return allowsWhole ? 'all' : allowsSome ? 'some' : 'none';
}

/** Decisions are memoised per version of the lines; a busy list or event stream asks the same questions again and again. */
const maxMemo = 10_000;

/** The part of a project policy that depends on its lines only: the enforcer and what it has decided so far. */
interface Decider {
  readonly enforcer: PolicyEnforcer;
  decide(roleSubjects: ReadonlySet<string>, object: string, action: string): boolean;
  instanceReach(roleSubjects: ReadonlySet<string>): InstanceReach;
}

function createDecider(project: string, lines: readonly string[][]): Decider {
  const enforcer = buildEnforcer(lines);
  // roles → action → object → decision: nested maps, so a hit builds no key string (lists ask per item).
  const memo = new Map<string, Map<string, Map<string, boolean>>>();
  let memoSize = 0;
  const reach = new Map<string, InstanceReach>();
  const rolesKeyOf = (roleSubjects: ReadonlySet<string>) =>
    roleSubjects.size === 1 ? (roleSubjects.values().next().value as string) : [...roleSubjects].sort().join(',');
  return {
    enforcer,
    decide(roleSubjects, object, action) {
      const rolesKey = rolesKeyOf(roleSubjects);
      let byAction = memo.get(rolesKey);
      let byObject = byAction?.get(action);
      let allowed = byObject?.get(object);
      if (allowed === undefined) {
        allowed = enforcer.decide(roleSubjects, object, action);
        if (memoSize >= maxMemo) {
          memo.clear();
          memoSize = 0;
          byAction = byObject = undefined;
        }
        if (!byAction) memo.set(rolesKey, (byAction = new Map()));
        if (!byObject) byAction.set(action, (byObject = new Map()));
        byObject.set(object, allowed);
        memoSize += 1;
      }
      return allowed;
    },
    instanceReach(roleSubjects) {
      const rolesKey = rolesKeyOf(roleSubjects);
      let answer = reach.get(rolesKey);
      if (answer === undefined) reach.set(rolesKey, (answer = instanceReachOf(project, lines, roleSubjects)));
      return answer;
    },
  };
}

/**
 * Builds a project's policy. With `previous` (the version it replaces): an event that changes nothing the policy is
 * compiled from gets `previous` itself back; a change that leaves the lines alone (a user or group bound or
 * unbound, the most common change of all) compiles only the bindings and keeps the rest: the roles, errors,
 * enforcer and its decisions, which are asked in role subjects, never in users. Compiling the lines and building
 * the enforcer (Casbin parsing the model and adding every line) are most of what a policy costs to build, and a
 * binding needs neither.
 */
export function buildProjectPolicy(project: PolicySource, previous?: ProjectPolicy, vocabulary?: RbacVocabulary): ProjectPolicy {
  const linesKey = policyLinesKey(project);
  const bindingsKey = policyBindingsKey(project);
  const kept = previous?.name === project.name && previous.linesKey === linesKey ? previous : undefined;
  if (kept?.bindingsKey === bindingsKey) return kept;
  if (kept) return { ...kept, bindings: compileProjectBindings(project), bindingsKey };
  const compiled = compileProjectPolicies(project, vocabulary);
  const decider = createDecider(project.name, compiled.policies);
  return {
    name: project.name,
    roleNames: compiled.roles,
    bindings: compiled.bindings,
    enforcer: decider.enforcer,
    errors: compiled.errors,
    linesKey,
    bindingsKey,
    decide: decider.decide,
    instanceReach: decider.instanceReach,
  };
}

/** What a project's lines are compiled from: its roles' names, policies and destinations, not who is bound. */
const policyLinesKey = (project: PolicySource) => JSON.stringify(project.roles.map((r) => [r.name, r.policies ?? [], r.destinations ?? []]));
/** Who is bound, role by role: with the lines' key, all a policy is compiled from. */
const policyBindingsKey = (project: PolicySource) => JSON.stringify(project.roles.map((r) => [r.users ?? [], r.groups ?? []]));
