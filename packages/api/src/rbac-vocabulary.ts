/**
 * The RBAC vocabulary of Portico as data (Argo CD keeps its resources and actions the same way beside one
 * model file): one row per resource. The policy compiler, the object builders, can-i (its accepted resources
 * and its permission summary), the CLI's can-i and the docs table in docs/rbac.md all read these rows, so a
 * new resource is one row — added here, or contributed at start-up by a plugin with `registerRbacResources`.
 */

export const rbacActions = ['get', 'list', 'create', 'update', 'delete'] as const;
export type RbacAction = (typeof rbacActions)[number];

export interface RbacResourceRow {
  /** The name can-i, the CLI and (for `policy` rows) project policies use: `instances`. */
  resource: string;
  /**
   * The object's first segments, `{project}` standing for the project name: `instances/{project}`,
   * `projects/{project}/members`. A row without `{project}` is global (its objects sit outside every project).
   */
  base: string;
  /** Path segments below the base, in order: `['namespace', 'kind', 'name']`. */
  segments: readonly string[];
  actions: readonly string[];
  /** Whether a project role's policy may name it (it then compiles under the project's base). */
  policy: boolean;
  /** Actions reported per project in the can-i summary, under `<summaryKey ?? resource>:<action>`. */
  summary?: readonly string[];
  summaryKey?: string;
  /**
   * The object of a question about any project (`projects/*`: create and list projects), answered by a global
   * grant alone. Without it, "any project" means "some project the caller is a member of".
   */
  anyProject?: string;
  /** Who grants it, for the docs table. */
  grantedBy: string;
  /**
   * A resource of the field's vocabulary that this build does not serve: it stands in the table so can-i
   * answers it from policy, and a plugin that does serve it replaces the row with its own.
   */
  placeholder?: boolean;
}

/** The OSS rows (contract §5), in the order can-i, the CLI and the docs list them. */
export const ossRbacResources: readonly RbacResourceRow[] = [
  {
    resource: 'projects', base: 'projects/{project}', segments: [], actions: ['create', 'list', 'get', 'update', 'delete'], policy: false,
    anyProject: 'projects/*',
    summary: ['get', 'update', 'delete'], summaryKey: 'project',
    grantedBy: 'create, list (`projects/*`): Server Admin; get: every role of the project (implicit); update, delete: Server Admin',
  },
  {
    resource: 'instances', base: 'instances/{project}', segments: ['namespace', 'kind', 'name'], actions: rbacActions, policy: true,
    summary: rbacActions, grantedBy: 'project role policies (`_` as namespace for cluster-scoped kinds)',
  },
  {
    resource: 'secrets', base: 'secrets/{project}', segments: ['namespace', 'name'], actions: [...rbacActions, 'reveal'], policy: true,
    summary: [...rbacActions, 'reveal'], grantedBy: 'project role policies; `reveal` (read the values) is its own action, never implied by `get`',
  },
  {
    resource: 'rgds', base: 'rgds/{project}', segments: ['category', 'name'], actions: ['get', 'list'], policy: true,
    summary: ['get', 'list'], grantedBy: 'project role policies',
  },
  {
    resource: 'members', base: 'projects/{project}/members', segments: [], actions: ['create', 'delete'], policy: true,
    summary: ['create', 'delete'], grantedBy: 'Server Admin; roles with `members/*` (bind / unbind users and groups)',
  },
  {
    resource: 'roles', base: 'projects/{project}/roles', segments: [], actions: ['update'], policy: false,
    summary: ['update'], grantedBy: 'Server Admin only — no project policy can grant it (change what roles permit)',
  },
  ...globalRows(
    ['repositories', 'settings', 'users', 'applications', 'clusters', 'compliance', 'audit', 'license', 'categories', 'views'],
  ),
];

/**
 * The rest of the vocabulary clients in the field ask can-i about. Portico manages few of them (an Enterprise
 * module may serve some), but each is a resource like any other: a question about it is decided by policy
 * (the global enforcer: Server Admin's `*`, or a global line naming it), never refused as unknown.
 */
function globalRows(names: readonly string[]): RbacResourceRow[] {
  return names.map((resource) => ({
    resource, base: resource, segments: [], actions: rbacActions, policy: false,
    grantedBy: 'Server Admin (global policy)', placeholder: true,
  }));
}

const rows: RbacResourceRow[] = [...ossRbacResources];

/** The rows in force: the OSS ones, then those registered by plugins, in registration order. */
export const rbacResourceRows = (): readonly RbacResourceRow[] => rows;

// Derived lists, recomputed only when rows are registered or removed: can-i validates its action against
// them on every request.
let derived: { all: readonly string[]; policy: readonly string[] } | undefined;
const derive = () =>
  (derived ??= {
    all: Object.freeze([...new Set(rows.flatMap((r) => r.actions))]),
    policy: Object.freeze([...new Set(rows.filter((r) => r.policy).flatMap((r) => r.actions))]),
  });

/** Every action of the rows in force (`get` … `delete`, `reveal`), in first-seen order. */
export const rbacAllActions = (): readonly string[] => derive().all;

/** Every action a project policy may name, from the policy rows. */
export const rbacPolicyActions = (): readonly string[] => derive().policy;

/** The resource names can-i and the CLI accept. */
export const rbacResourceNames = (): string[] => rows.map((r) => r.resource);

export const rbacResourceRow = (resource: string): RbacResourceRow | undefined => rows.find((r) => r.resource === resource);

/**
 * Adds rows (an Enterprise module's resources). Call at start-up, before policies are compiled; returns a
 * function that removes them again (tests). A name already in the table is refused, unless its row is a
 * placeholder of the field's vocabulary, which the new row replaces in place.
 */
export function registerRbacResources(extra: readonly RbacResourceRow[]): () => void {
  for (const row of extra) {
    const existing = rbacResourceRow(row.resource);
    if (existing && !existing.placeholder) throw new Error(`RBAC resource "${row.resource}" is already in the vocabulary`);
  }
  const replaced: { row: RbacResourceRow; by: RbacResourceRow }[] = [];
  for (const row of extra) {
    const at = rows.findIndex((r) => r.resource === row.resource);
    if (at >= 0) {
      replaced.push({ row: rows[at], by: row });
      rows[at] = row;
    } else rows.push(row);
  }
  derived = undefined;
  return () => {
    derived = undefined;
    for (const row of extra) {
      const at = rows.indexOf(row);
      if (at < 0) continue;
      const original = replaced.find((r) => r.by === row)?.row;
      if (original) rows[at] = original;
      else rows.splice(at, 1);
    }
  };
}

export const isProjectScoped = (row: RbacResourceRow) => row.base.includes('{project}');

const fill = (base: string, project: string) => base.replace('{project}', project);

/**
 * The object a question about a whole resource in one project is about: `instances/alpha/*`,
 * `projects/alpha/members`; for a global row, its base.
 */
export const resourceObject = (row: RbacResourceRow, project: string) =>
  row.segments.length > 0 ? `${fill(row.base, project)}/*` : fill(row.base, project);

/** One item's object; an empty segment (no namespace, no category) is spelt `_`, as the HTTP paths do. */
export const itemObject = (row: RbacResourceRow, project: string, values: readonly string[]) =>
  [fill(row.base, project), ...values.map((v) => v || '_')].join('/');

const row = (resource: string) => {
  const found = rbacResourceRow(resource);
  if (!found) throw new Error(`unknown RBAC resource "${resource}"`);
  return found;
};

/** The objects core asks about, built from the rows so every module speaks of the same strings. */
export const rbacObject = {
  get allProjects() {
    return row('projects').anyProject!;
  },
  project: (project: string) => resourceObject(row('projects'), project),
  members: (project: string) => resourceObject(row('members'), project),
  roles: (project: string) => resourceObject(row('roles'), project),
  instances: (project: string) => resourceObject(row('instances'), project),
  instance: (project: string, namespace: string, kind: string, name: string) => itemObject(row('instances'), project, [namespace, kind, name]),
  secrets: (project: string) => resourceObject(row('secrets'), project),
  secret: (project: string, namespace: string, name: string) => itemObject(row('secrets'), project, [namespace, name]),
  rgds: (project: string) => resourceObject(row('rgds'), project),
  rgd: (project: string, category: string, name: string) => itemObject(row('rgds'), project, [category, name]),
};

/** The project an object belongs to, or undefined for global objects such as `projects/*`. */
export function projectOfObject(object: string): string | undefined {
  const slash = object.indexOf('/');
  if (slash < 0) return undefined;
  const head = object.slice(0, slash);
  if (!projectHeads().has(head)) return undefined;
  const end = object.indexOf('/', slash + 1);
  const project = object.slice(slash + 1, end < 0 ? undefined : end);
  return project === '' || project.includes('*') ? undefined : project;
}

/** First segments of the project-scoped bases (`projects`, `instances`, …), cached per table size. */
let heads: { size: number; set: Set<string> } | undefined;
function projectHeads(): Set<string> {
  if (heads?.size !== rows.length) {
    heads = { size: rows.length, set: new Set(rows.filter((r) => r.base.split('/')[1] === '{project}').map((r) => r.base.split('/')[0]!)) };
  }
  return heads.set;
}

/** Casbin subjects: who a line or a binding speaks of. */
export const rbacSubject = {
  user: (id: string) => `user:${id}`,
  group: (name: string) => `group:${name}`,
  role: (project: string, role: string) => `proj:${project}:${role}`,
  serverAdmin: 'role:serveradmin',
};

/** The "Objects and actions" table of docs/rbac.md, from the rows (a test keeps the docs equal to it). */
export function rbacDocsTable(list: readonly RbacResourceRow[] = rows): string {
  const lines = ['| Resource | Object | Actions | In project policies | Granted by |', '|---|---|---|---|---|'];
  for (const r of list) {
    const item = [r.base.replace('{project}', '<p>'), ...r.segments.map((s) => `<${s}>`)].join('/');
    const object = r.anyProject ? `${item}\`, \`${r.anyProject}` : item;
    const shape = r.segments.length > 0 ? [r.resource, ...r.segments.map((s) => `<${s}>`)].join('/') : `${r.resource}/*`;
    const policy = r.policy ? `\`${shape}\`` : 'no';
    lines.push(`| ${r.resource} | \`${object}\` | ${r.actions.join(', ')} | ${policy} | ${r.grantedBy} |`);
  }
  return lines.join('\n');
}
