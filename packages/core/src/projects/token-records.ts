import type { KubeObject } from '../ports/cluster.js';
import { projectSpecOf } from './project-resource.js';

/**
 * Where a project's tokens are recorded (§14): one annotation of its Project resource, a JSON list of what is
 * known of each token (never the token itself). On the Project, every replica sees the records through the
 * informer it already has, and they go with the project when it is deleted.
 */
export const TOKENS_ANNOTATION = 'portico.dev/tokens';

export interface TokenRecord {
  id: string;
  role: string;
  description: string;
  issuedAt: string;
  expiresAt?: string;
  createdBy: string;
}

const isString = (v: unknown): v is string => typeof v === 'string';

function recordOf(raw: unknown): TokenRecord | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const r = raw as Record<string, unknown>;
  if (!isString(r.id) || !isString(r.role) || !isString(r.issuedAt)) return undefined;
  const record: TokenRecord = {
    id: r.id,
    role: r.role,
    description: isString(r.description) ? r.description : '',
    issuedAt: r.issuedAt,
    createdBy: isString(r.createdBy) ? r.createdBy : '',
  };
  if (isString(r.expiresAt)) record.expiresAt = r.expiresAt;
  return record;
}

/** What a Project version says of its tokens: the records by id, and the roles it defines. */
interface TokenView {
  records: ReadonlyMap<string, TokenRecord>;
  roles: ReadonlySet<string>;
}

/** Parsed once per object version: the check runs on every request of a project token. */
const views = new WeakMap<KubeObject, TokenView>();

export function tokenView(obj: KubeObject): TokenView {
  let view = views.get(obj);
  if (!view) {
    let parsed: unknown = [];
    try {
      parsed = JSON.parse(obj.metadata.annotations?.[TOKENS_ANNOTATION] ?? '[]');
    } catch {
      // An annotation edited into something unreadable records no token: every token of the project is refused.
    }
    const records = (Array.isArray(parsed) ? parsed : []).map(recordOf).filter((r): r is TokenRecord => r !== undefined);
    view = { records: new Map(records.map((r) => [r.id, r])), roles: new Set(projectSpecOf(obj).roles.map((r) => r.name)) };
    views.set(obj, view);
  }
  return view;
}

/** Whether this version of the project still holds token `id` of `role`, and the role itself. */
export function holdsToken(obj: KubeObject, id: string, role: string): boolean {
  const view = tokenView(obj);
  return view.records.get(id)?.role === role && view.roles.has(role);
}

/** The merge patch of the annotation holding `records` (removed when there are none). */
export const recordsPatch = (records: readonly TokenRecord[]) => ({
  metadata: { annotations: { [TOKENS_ANNOTATION]: records.length ? JSON.stringify(records) : null } },
});

/**
 * The annotation patch that drops the records of roles not in `roles` (a role removed by a project update), or
 * undefined when none is dropped. A role created again under the same name so starts with no tokens.
 */
export function recordsOfRolesOnly(obj: KubeObject, roles: readonly string[]): Record<string, string | null> | undefined {
  const all = [...tokenView(obj).records.values()];
  const kept = all.filter((r) => roles.includes(r.role));
  if (kept.length === all.length) return undefined;
  return recordsPatch(kept).metadata.annotations;
}
