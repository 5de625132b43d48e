import { actorSubjects, type Actor } from '../actor.js';
import type { Informer } from '../cluster/informer-types.js';
import type { Logger } from '../logger.js';
import type { Disposable, KubeObject } from '../ports/cluster.js';
import type { Authorizer } from '../types.js';
import { ossRbacVocabulary, rbacSubject, type RbacVocabulary } from '@portico/api';
import { describePolicyError, type PolicySource } from './compile.js';
import { builtinPolicy } from './builtin-policy.js';
import { buildEnforcer } from './enforcer.js';
import { buildProjectPolicy, type ProjectPolicy } from './project-policy.js';

export interface AuthorizerDeps {
  /** The informer over the objects that carry project policies (`portico.dev/v1alpha1 Project`). */
  projects: Informer;
  /**
   * Reads the roles out of one of those objects. Injected, so the authorizer knows the policy source only
   * by this shape and nothing of the Project resource (core/projects provides `projectPolicySource`).
   */
  policyOf: (obj: KubeObject) => PolicySource;
  /** This Portico's vocabulary (which objects belong to a project, which resources policies may name); OSS by default. */
  vocabulary?: RbacVocabulary;
  /** `user:<name>` / `group:<name>` entries of SERVER_ADMINS (a bare name is taken as a user). */
  serverAdmins: string[];
  logger?: Logger;
  /** Only projects in this namespace count (the informer may watch more). Default: all. */
  namespace?: string;
}

export const serverAdminRole = rbacSubject.serverAdmin;

/**
 * The global policy: the built-in lines (`builtin-policy.csv`: `role:serveradmin` may do anything, the local
 * admin holds it) plus a `g` edge per SERVER_ADMINS entry. The edges are kept as a subject → roles index, the
 * same way the project bindings are, so the global enforcer uses the same model as the project ones.
 */
function buildGlobalPolicy(serverAdmins: string[], logger?: Logger) {
  const builtin = builtinPolicy();
  const grouping = new Map<string, string[]>();
  const bind = (subject: string, role: string) => grouping.set(subject, [...new Set([...(grouping.get(subject) ?? []), role])]);
  for (const [subject, role] of builtin.grouping) bind(subject, role);
  for (const raw of serverAdmins) {
    const entry = raw.trim();
    if (!entry) continue;
    const subject = entry.includes(':') ? entry : rbacSubject.user(entry);
    if (!/^(user|group):[^:\s]+/.test(subject)) {
      logger?.warn({ entry }, 'SERVER_ADMINS entry ignored: use user:<name> or group:<name>');
      continue;
    }
    bind(subject, serverAdminRole);
  }
  return { grouping, enforcer: buildEnforcer(builtin.policies) };
}

/** Objects are built from validated names; one with a `.` or `..` segment is malformed and denied to everyone. */
const hasDotSegment = (object: string) => (object.startsWith('.') || object.includes('/.')) && /(^|\/)\.\.?(\/|$)/.test(object);

/** The role subjects bound to any of `subjects` (a user and its groups) in one project's policy. */
function boundRoleSubjects(subjects: readonly string[], policy: ProjectPolicy): Set<string> {
  const found = new Set<string>();
  for (const subject of subjects) for (const role of policy.bindings.get(subject) ?? []) found.add(role);
  return found;
}

/** A project token's role subjects in one project's policy: its role, in its own project, while the policy defines it. */
function tokenRoleSubjects(actor: Actor, policy: ProjectPolicy): Set<string> {
  const token = actor.projectToken;
  return new Set(token && token.project === policy.name && policy.roleNames.includes(token.role) ? [actor.subject] : []);
}

/** The projects a project token is a member of: its own, while its role is defined there. */
const tokenProjects = (actor: Actor, policy: ProjectPolicy | undefined): readonly string[] =>
  policy && tokenRoleSubjects(actor, policy).size > 0 ? [policy.name] : [];

/**
 * The authorization engine. Scale design (1,000 projects × 3 roles × 12 bindings): Casbin scans every policy
 * line of an enforcer on each call, so instead of one enforcer with every line there is one small enforcer
 * per project (a decision about `instances/alpha/…` only ever consults alpha's dozen lines) and one global
 * enforcer, plus an index subject → projects rebuilt per project on change.
 *
 * Reload: each informer event rebuilds only that project's policy, synchronously, then swaps the references
 * (`Map.set`). Nothing awaits between build and swap, so no request can observe a half-built or empty
 * policy, and once the informer's cache holds a version, so does the authorizer (listeners run right after
 * the cache update).
 */
export function createAuthorizer(deps: AuthorizerDeps): Authorizer {
  const vocabulary = deps.vocabulary ?? ossRbacVocabulary;
  const global = buildGlobalPolicy(deps.serverAdmins, deps.logger);
  const policies = new Map<string, ProjectPolicy>();
  /** subject (`user:<u>` / `group:<g>`) → projects in which it is bound to at least one role. */
  const memberIndex = new Map<string, ReadonlySet<string>>();
  /**
   * Bumped on every reindex of a project (any change of its roles or bindings, or its removal), whether or not a
   * member set moved: what an actor worked out from memberIndex before may be stale after. Policy changes are
   * rare, so an actor's projects are at worst worked out again once per change.
   */
  let membership = 0;
  const listeners = new Set<() => void>();
  const inScope = (o: KubeObject) => deps.namespace === undefined || o.metadata.namespace === deps.namespace;

  function reindexMembers(project: string, before: ProjectPolicy | undefined, after: ProjectPolicy | undefined) {
    const subjects = new Set([...(before?.bindings.keys() ?? []), ...(after?.bindings.keys() ?? [])]);
    // Build every replacement set first, then swap them in.
    const replacements: [string, Set<string>][] = [];
    for (const subject of subjects) {
      const next = new Set(memberIndex.get(subject));
      if (after?.bindings.has(subject)) next.add(project);
      else next.delete(project);
      replacements.push([subject, next]);
    }
    if (after) policies.set(project, after);
    else policies.delete(project);
    membership++;
    for (const [subject, next] of replacements) {
      if (next.size > 0) memberIndex.set(subject, next);
      else memberIndex.delete(subject);
    }
  }

  /** Returns whether anything changed. */
  function apply(obj: KubeObject): boolean {
    const source = deps.policyOf(obj);
    const before = policies.get(source.name);
    const after = buildProjectPolicy(source, before, vocabulary);
    if (after === before) return false;
    if (after.errors.length > 0) {
      deps.logger?.warn(
        { project: source.name, errors: after.errors.map(describePolicyError) },
        'project has invalid policies; only its valid lines are in force',
      );
    }
    reindexMembers(source.name, before, after);
    return true;
  }

  function remove(name: string): boolean {
    const before = policies.get(name);
    if (!before) return false;
    reindexMembers(name, before, undefined);
    return true;
  }

  function notify() {
    for (const listener of listeners) {
      try {
        listener();
      } catch (error) {
        deps.logger?.error({ err: error }, 'authorizer change listener failed');
      }
    }
  }

  /** Brings the policies in line with the informer's whole cache (initial list, or after a relist). */
  function reconcile() {
    let changed = false;
    const present = new Set<string>();
    for (const obj of deps.projects.list()) {
      if (!inScope(obj)) continue;
      present.add(obj.metadata.name);
      changed = apply(obj) || changed;
    }
    for (const name of [...policies.keys()]) if (!present.has(name)) changed = remove(name) || changed;
    if (changed) notify();
  }

  deps.projects.on((event) => {
    if (!inScope(event.object)) return;
    const changed = event.type === 'DELETED' ? remove(event.object.metadata.name) : apply(event.object);
    if (changed) notify();
  });
  reconcile();

  let readyPromise: Promise<void> | undefined;

  // An actor (a token's, kept while the token is, or a socket's) never changes, and neither does the global
  // policy or a built project policy (a change builds a new one): what an actor holds in each is worked out once
  // per pair, in one record per actor, not on every decision, of which a list or an event makes one per item.
  interface Held {
    subjects: readonly string[];
    /** Global roles, sorted. */
    globalRoles?: ReadonlySet<string>;
    /** Role subjects per project policy, by the policy object. */
    inPolicy?: WeakMap<ProjectPolicy, ReadonlySet<string>>;
    /** The projects the actor is bound in, sorted, as of the `membership` count it was worked out at. */
    projects?: { membership: number; names: readonly string[] };
  }
  const heldBy = new WeakMap<Actor, Held>();
  const heldOf = (actor: Actor): Held => {
    let held = heldBy.get(actor);
    if (!held) heldBy.set(actor, (held = { subjects: actorSubjects(actor) }));
    return held;
  };
  const subjectsOf = (actor: Actor): readonly string[] => heldOf(actor).subjects;

  function globalRoleSet(actor: Actor): ReadonlySet<string> {
    const held = heldOf(actor);
    if (!held.globalRoles) {
      const roles = new Set<string>();
      // A project token holds nothing global, whatever the global policy were to say of its subject.
      if (!actor.projectToken) for (const subject of held.subjects) for (const role of global.grouping.get(subject) ?? []) roles.add(role);
      held.globalRoles = new Set([...roles].sort());
    }
    return held.globalRoles;
  }

  function globalRoles(actor: Actor): string[] {
    return [...globalRoleSet(actor)];
  }

  function globalAllows(actor: Actor, object: string, action: string): boolean {
    // Global lines name roles only, so the actor's global roles are its whole subject set there; without one,
    // no line can match and Casbin would answer no after scanning them (the common, non-admin case).
    const roles = globalRoleSet(actor);
    if (roles.size === 0) return false;
    return global.enforcer.decide(roles, object, action);
  }

  /** The actor's role subjects in one project: from the binding index, or a project token's own role (§14). */
  function roleSubjectsIn(actor: Actor, policy: ProjectPolicy): ReadonlySet<string> {
    const held = heldOf(actor);
    let roles = held.inPolicy?.get(policy);
    if (!roles) {
      const found = actor.projectToken ? tokenRoleSubjects(actor, policy) : boundRoleSubjects(held.subjects, policy);
      (held.inPolicy ??= new WeakMap()).set(policy, (roles = found));
    }
    return roles;
  }

  return {
    can(actor, action, object) {
      if (hasDotSegment(object)) return false;
      if (globalAllows(actor, object, action)) return true;
      const project = vocabulary.projectOf(object);
      const policy = project === undefined ? undefined : policies.get(project);
      if (!policy) return false;
      const roles = roleSubjectsIn(actor, policy);
      // Without a role subject no line can match; Casbin would answer no after scanning them all.
      if (roles.size === 0) return false;
      return policy.decide(roles, object, action);
    },

    isServerAdmin: (actor) => globalAllows(actor, '*', '*'),

    globalRoles,

    memberProjects(actor) {
      if (actor.projectToken) return tokenProjects(actor, policies.get(actor.projectToken.project));
      const held = heldOf(actor);
      if (held.projects?.membership !== membership) {
        const projects = new Set<string>();
        for (const subject of held.subjects) for (const p of memberIndex.get(subject) ?? []) projects.add(p);
        held.projects = { membership, names: Object.freeze([...projects].sort()) };
      }
      return held.projects.names;
    },

    instanceReach(actor, project) {
      if (globalAllows(actor, '*', '*')) return 'all';
      const policy = policies.get(project);
      if (!policy) return 'none';
      const roles = roleSubjectsIn(actor, policy);
      return roles.size === 0 ? 'none' : policy.instanceReach(roles);
    },

    rolesIn(actor, project) {
      const policy = policies.get(project);
      if (!policy) return [];
      const held = roleSubjectsIn(actor, policy);
      return policy.roleNames.filter((role) => held.has(rbacSubject.role(project, role)));
    },

    ready() {
      readyPromise ??= deps.projects.start().then(reconcile);
      return readyPromise;
    },

    onChange(listener): Disposable {
      listeners.add(listener);
      return { close: () => listeners.delete(listener) };
    },
  };
}
