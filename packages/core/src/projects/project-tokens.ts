import { randomUUID } from 'node:crypto';
import * as api from '@portico/api';
import type { Actor } from '../actor.js';
import type { ProjectTokenAuth } from '../auth/create-auth.js';
import type { ProjectTokenCheck } from '../auth/tokens.js';
import type { Informer } from '../cluster/informer-types.js';
import { retryOnConflict } from '../cluster/retry.js';
import { setBounded } from '../bounded-map.js';
import { badRequest, forbidden, isPorticoError, notFound } from '../errors.js';
import type { Logger } from '../logger.js';
import { resources, type Cluster, type KubeObject } from '../ports/cluster.js';
import type { KeyValue } from '../ports/keyvalue.js';
import type { Authorizer, ProjectTokensService } from '../types.js';
import { parseInput } from '../validation.js';
import { holdsToken, recordsPatch, tokenView, type TokenRecord } from './token-records.js';
import { waitForInformer } from './wait-for-informer.js';

export interface ProjectTokensDeps {
  cluster: Cluster;
  /** The informer over Project resources. */
  projects: Informer;
  /** Portico's namespace, where projects live. */
  namespace: string;
  authz: Authorizer;
  kv: KeyValue;
  /** Set once auth exists (it needs this module's check first): signing and revoking. */
  auth: () => ProjectTokenAuth;
  logger?: Logger;
  now?: () => number;
}

/** At most this many tokens per project: their records share one annotation of the Project. */
export const MAX_TOKENS_PER_PROJECT = 200;
/** `lastUsedAt` is written at most this often per token and replica. */
const TOUCH_EVERY_MS = 60_000;
/** And kept this long after the last use (past the longest lifetime a token may have). */
const LAST_USED_TTL_MS = 400 * 24 * 3600 * 1000;
/** Tokens whose last write this replica remembers; one forgotten is written again at its next use. */
const TOUCHED_REMEMBERED = 10_000;
/**
 * A token issued this recently may be used on a replica whose copy of the project does not show its record yet:
 * there, the project is read from the cluster before the token is refused.
 */
const RECENT_MS = 15_000;

const lastUsedKey = (id: string) => `project-token-used:${id}`;
const seconds = (ms: number) => Math.floor(ms / 1000);
const iso = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString();

/**
 * Project tokens (§14): tokens that act as one role of one project, for CI pipelines. Records live on the Project
 * (token-records.ts); the token is signed by auth and shown once. Server Admins and roles with `members/*` of the
 * project manage them; a project token never does, whatever its role permits.
 */
export function createProjectTokens(deps: ProjectTokensDeps): ProjectTokensService & { valid: ProjectTokenCheck } {
  const { cluster, authz, kv, namespace } = deps;
  const now = deps.now ?? Date.now;
  const cached = (project: string) => deps.projects.get(project, namespace);
  const touched = new Map<string, number>();

  /** The project and role a manager may act on: 404 for a project the caller may not see or a role it lacks. */
  function manageable(actor: Actor, project: string, role: string, actions: readonly string[]): KubeObject {
    if (actor.projectToken) throw forbidden('a project token cannot create, list or revoke tokens');
    const obj = cached(project);
    const visible = authz.can(actor, 'get', api.rbacObject.project(project));
    if (!obj || !visible) throw notFound('project', project);
    const members = api.rbacObject.members(project);
    if (!actions.some((action) => authz.can(actor, action, members))) {
      throw forbidden(`permission denied: ${actions.join(' or ')} on ${members}`, { action: actions[0], object: members });
    }
    if (!tokenView(obj).roles.has(role)) throw notFound('role', `${project}/${role}`);
    return obj;
  }

  /** Rewrites the project's records; the first attempt works on the cached copy, a retry re-reads the cluster. */
  async function changeRecords(project: string, change: (records: TokenRecord[], obj: KubeObject) => TokenRecord[]): Promise<void> {
    let attempt = 0;
    await retryOnConflict(async () => {
      attempt += 1;
      const obj = attempt === 1 ? cached(project) : await cluster.get(resources.project, project, namespace);
      if (!obj) throw notFound('project', project);
      const records = change([...tokenView(obj).records.values()], obj);
      const updated = await cluster
        .patch(resources.project, project, recordsPatch(records), { namespace, resourceVersion: obj.metadata.resourceVersion ?? '' })
        .catch((e: unknown) => {
          if (isPorticoError(e) && e.code === 'NOT_FOUND') throw notFound('project', project);
          throw e;
        });
      // The next request of the token, on this replica, must find its record.
      const shown = await waitForInformer(deps.projects, project, namespace, { resourceVersion: updated.metadata.resourceVersion ?? '' });
      if (!shown) deps.logger?.warn({ project }, 'project tokens written but not yet visible in the informer cache');
    });
  }

  /** Records a use, at most once a minute per token on this replica; a failure only costs the date. */
  function touch(id: string) {
    const at = now();
    if (at - (touched.get(id) ?? 0) < TOUCH_EVERY_MS) return;
    setBounded(touched, TOUCHED_REMEMBERED, id, at);
    kv.set(lastUsedKey(id), new Date(at).toISOString(), { ttlMs: LAST_USED_TTL_MS }).catch((err: unknown) =>
      deps.logger?.warn({ err }, 'could not record when a project token was last used'),
    );
  }

  const valid: ProjectTokenCheck = (actor) => {
    const scope = actor.projectToken;
    if (!scope) return false;
    const obj = cached(scope.project);
    if (obj && holdsToken(obj, actor.tokenId, scope.role)) {
      touch(actor.tokenId);
      return true;
    }
    if (now() - actor.issuedAt.getTime() > RECENT_MS) return false;
    return cluster.get(resources.project, scope.project, namespace).then((fresh) => !!fresh && holdsToken(fresh, actor.tokenId, scope.role));
  };

  return {
    valid,

    async create(actor, project, role, input) {
      manageable(actor, project, role, ['create']);
      const body = parseInput(api.CreateProjectTokenRequest, input);
      const issuedAt = seconds(now());
      const lifetime = body.expiresIn === undefined ? undefined : api.tokenLifetimeSeconds(body.expiresIn);
      const expiresAt = lifetime === undefined ? undefined : issuedAt + lifetime;
      const record: TokenRecord = { id: randomUUID(), role, description: body.description ?? '', issuedAt: iso(issuedAt), createdBy: actor.id };
      if (expiresAt !== undefined) record.expiresAt = iso(expiresAt);
      await changeRecords(project, (records) => {
        // Expired tokens are refused anyway; their records make room.
        const live = records.filter((r) => !r.expiresAt || Date.parse(r.expiresAt) > now());
        if (live.length >= MAX_TOKENS_PER_PROJECT) throw badRequest(`project "${project}" has ${MAX_TOKENS_PER_PROJECT} tokens: revoke some first`);
        return [...live, record];
      });
      const token = await deps.auth().issue({ id: record.id, project, role, issuedAt, expiresAt });
      const created: api.CreatedProjectToken = { id: record.id, token, issuedAt: record.issuedAt };
      if (record.expiresAt) created.expiresAt = record.expiresAt;
      return created;
    },

    async list(actor, project, role) {
      const obj = manageable(actor, project, role, ['create', 'delete']);
      const records = [...tokenView(obj).records.values()].filter((r) => r.role === role).sort((a, b) => a.issuedAt.localeCompare(b.issuedAt));
      const items = await Promise.all(
        records.map(async (r): Promise<api.ProjectTokenInfo> => {
          const info: api.ProjectTokenInfo = { id: r.id, description: r.description, issuedAt: r.issuedAt, createdBy: r.createdBy };
          if (r.expiresAt) info.expiresAt = r.expiresAt;
          const lastUsedAt = await kv.get(lastUsedKey(r.id));
          if (lastUsedAt) info.lastUsedAt = lastUsedAt;
          return info;
        }),
      );
      return { items };
    },

    async delete(actor, project, role, id) {
      const obj = manageable(actor, project, role, ['delete']);
      const record = tokenView(obj).records.get(id);
      if (record?.role !== role) throw notFound('token', `${project}/${role}/${id}`);
      // Refused everywhere first (the shared store), then the record goes for good.
      await deps.auth().revoke(id, record.expiresAt ? new Date(record.expiresAt) : undefined);
      await changeRecords(project, (records) => records.filter((r) => r.id !== id));
      await kv.del(lastUsedKey(id)).catch(() => undefined);
    },
  };
}
