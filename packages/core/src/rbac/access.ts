import * as api from '@portico/api';
import type { Actor } from '../actor.js';
import { describeActor } from '../auth/describe.js';
import type { Informer } from '../cluster/informer-types.js';
import type { PorticoConfig } from '../config.js';
import { badRequest, notFound } from '../errors.js';
import { withJsonText } from '../json-text.js';
import { setBounded } from '../bounded-map.js';
import type { AccessService, Authorizer } from '../types.js';

export interface AccessDeps {
  authz: Authorizer;
  projects: Informer;
  config: Pick<PorticoConfig, 'kubernetes'>;
  /** This Portico's vocabulary (its plugins' rows included); the OSS one by default. */
  vocabulary?: api.RbacVocabulary;
}

/** What the permission summary reports per project, from the vocabulary rows: key, action, row. */
const summaryChecksOf = (vocabulary: api.RbacVocabulary) =>
  vocabulary.rows.flatMap((row) => (row.summary ?? []).map((action) => ({ key: `${row.summaryKey ?? row.resource}:${action}`, action, row })));

const oneOf = (list: readonly string[]) => list.join(', ');

const anyProject = (object: string) => object === '*' || object === '-';

/** Can-i answers kept per actor (a token's), between two policy changes. */
const REMEMBERED_ANSWERS = 256;

/** The two answers of can-i, made once: frozen, each carrying its JSON text. */
const answers = {
  yes: Object.freeze(withJsonText<api.CanIValue>({ value: 'yes' }, '{"value":"yes"}')),
  no: Object.freeze(withJsonText<api.CanIValue>({ value: 'no' }, '{"value":"no"}')),
};

const unixSeconds = (at: Date) => Math.floor(at.getTime() / 1000);

/**
 * Who vouched for the caller, as consoles in the field show it (§11.9): `Local` for a local account, else the
 * identity provider's name, which an OIDC actor's id carries (`oidc:<provider>:<sub>`).
 */
function issuerOf(actor: Actor): string {
  if (actor.local) return 'Local';
  const provider = /^oidc:([^:]+):/.exec(actor.id)?.[1];
  return provider ?? actor.issuer;
}

/**
 * "What may I do?" answers (contract §5), all decided by the authorizer on the project-wide objects
 * (`instances/<p>/*`, …): a narrower grant such as `instances/dev/*` does not make the project-wide answer
 * yes, and a narrower deny does not make it no.
 *
 * Visibility: asking about a project the caller may not `get` is NOT_FOUND, exactly like one that does not
 * exist, so can-i cannot be used to enumerate project names; a member gets a plain "no" (200).
 */
export function createAccess(deps: AccessDeps): AccessService {
  const namespace = deps.config.kubernetes.namespace;
  const { authz } = deps;
  const vocabulary = deps.vocabulary ?? api.ossRbacVocabulary;
  const summaryChecks = summaryChecksOf(vocabulary);
  const actions = new Set(vocabulary.actions);

  const allProjects = () =>
    deps.projects
      .list()
      .filter((o) => o.metadata.namespace === namespace)
      .map((o) => o.metadata.name)
      .sort();

  const visibleProjects = (actor: Actor) => (authz.isServerAdmin(actor) ? allProjects() : authz.memberProjects(actor));

  /** The role shown for a project: the first role held there, else the first global role, else ''. */
  const displayRole = (actor: Actor, roles: string[]) => roles[0] ?? authz.globalRoles(actor)[0] ?? '';

  /** A can-i answer worked out from the vocabulary, the policy and the projects as they are now. */
  const decide = (actor: Actor, { resource, action, object }: api.CanIParams): api.CanIValue => {
    // The route validated the shape; which resources and actions exist is this Portico's vocabulary.
    const row = vocabulary.row(resource);
    if (!row) throw badRequest(`invalid resource: must be one of ${oneOf(vocabulary.names)}`, { parameter: 'resource' });
    if (action !== '*' && !actions.has(action)) throw badRequest(`invalid action: must be one of *, ${oneOf(vocabulary.actions)}`, { parameter: 'action' });
    if (!/^(\*|-|[a-z0-9]([-a-z0-9]*[a-z0-9])?)$/.test(object) || object.length > 253) {
      throw badRequest('invalid object: must be a project name, "*" or "-"', { parameter: 'object' });
    }
    const objectIn = (project: string) => api.resourceObject(row, project);
    const yes = (allowed: boolean): api.CanIValue => (allowed ? answers.yes : answers.no);
    // A global row (its objects outside every project) is asked as it is; the object names no project.
    if (!api.isProjectScoped(row)) return yes(authz.can(actor, action, objectIn('*')));
    if (anyProject(object)) {
      // A row with its own any-project object (`projects/*`: create and list projects) asks that alone.
      if (row.anyProject !== undefined) return yes(authz.can(actor, action, row.anyProject));
      // `instances/*/*` names no project: only a global grant (Server Admin) covers it.
      if (authz.can(actor, action, objectIn('*'))) return yes(true);
      return yes(authz.memberProjects(actor).some((p) => authz.can(actor, action, objectIn(p))));
    }
    // A project the caller may not see is NOT_FOUND exactly like a missing one: can-i enumerates nothing.
    const exists = deps.projects.get(object, namespace) !== undefined;
    if (!authz.can(actor, 'get', api.rbacObject.project(object)) || !exists) throw notFound('project', object);
    return yes(authz.can(actor, action, objectIn(object)));
  };

  // Every decision above reads the policy and the project list, and each change of either is told through
  // onChange (synchronously, once the authorizer has the new policy): answers are kept per actor until the next.
  let revision = 0;
  authz.onChange(() => void revision++);
  const keptFor = new WeakMap<Actor, { revision: number; answers: Map<string, api.CanIValue> }>();
  const keptAnswers = (actor: Actor): Map<string, api.CanIValue> => {
    let kept = keptFor.get(actor);
    if (kept?.revision !== revision) keptFor.set(actor, (kept = { revision, answers: new Map() }));
    return kept.answers;
  };

  return {
    canISummary(actor) {
      const projects: api.CanISummary['projects'] = {};
      for (const project of visibleProjects(actor)) {
        const roles = authz.rolesIn(actor, project);
        const permissions: Record<string, boolean> = {};
        for (const { key, action, row } of summaryChecks) permissions[key] = authz.can(actor, action, api.resourceObject(row, project));
        projects[project] = { role: displayRole(actor, roles), roles, permissions };
      }
      return { serverAdmin: authz.isServerAdmin(actor), projects };
    },

    canI(actor, params) {
      // Answered before, with no policy change since: the same answer (refusals are worked out every time).
      const key = `${params.resource} ${params.action} ${params.object}`;
      const kept = keptAnswers(actor);
      return kept.get(key) ?? setBounded(kept, REMEMBERED_ANSWERS, key, decide(actor, params));
    },

    accountInfo(actor) {
      // The same user description a sign-in returns, plus the token facts.
      const { id, email, displayName, groups, casbinRoles, projects, roles } = describeActor(authz, actor);
      return {
        userID: id,
        email,
        displayName,
        groups,
        casbinRoles,
        serverAdmin: authz.isServerAdmin(actor),
        projects,
        roles,
        issuer: issuerOf(actor),
        tokenIssuedAt: unixSeconds(actor.issuedAt),
        tokenExpiresAt: unixSeconds(actor.expiresAt),
      };
    },
  };
}
