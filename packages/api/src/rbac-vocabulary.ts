/**
 * The RBAC vocabulary of Portico as data (Argo CD keeps its resources and actions the same way beside one
 * model file): one row per resource. The policy compiler, the object builders, can-i (its accepted resources
 * and its permission summary), the CLI's can-i and the docs table in docs/rbac.md all read these rows, so a
 * new resource is one row — added here, or contributed by a plugin. The OSS rows are a frozen constant;
 * `createRbacVocabulary` builds one immutable vocabulary from them plus a plugin's rows (each Portico has its
 * own, so two servers in one process never see each other's rows).
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
  /**
   * The actions a project policy may grant on it, when fewer than `actions` (`projects`: get and update of the
   * project itself); a policy's `*` then stands for exactly these.
   */
  policyActions?: readonly string[];
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
export const ossRbacResources: readonly RbacResourceRow[] = deepFreeze([
  {
    resource: 'projects', base: 'projects/{project}', segments: [], actions: ['create', 'list', 'get', 'update', 'delete'], policy: true,
    policyActions: ['get', 'update'], anyProject: 'projects/*',
    summary: ['get', 'update', 'delete'], summaryKey: 'project',
    grantedBy: 'create, list (`projects/*`): Server Admin; get: every role of the project (implicit); update: Server Admin, roles with `projects` update; delete: Server Admin',
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
  {
    resource: 'repositories', base: 'repositories/{project}', segments: ['name'], actions: rbacActions, policy: true,
    grantedBy: 'project role policies (the project\'s GitOps repositories)',
  },
  ...globalRows(
    ['settings', 'users', 'applications', 'clusters', 'compliance', 'audit', 'license', 'categories', 'views'],
  ),
]);

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

/**
 * Resources a project policy may name whose objects in a project are not those of their can-i row. `compliance`
 * is global (templates and constraints, §12.5); in a project's policy (the field's `compliance, get, <p>/*`) it
 * names that project's compliance, `compliance/<p>`, decided by the project's policy like its other objects.
 * The can-i row stays as it is (the OSS placeholder, or the Enterprise row in its place).
 */
export const projectPolicyOnlyRows: readonly RbacResourceRow[] = deepFreeze([
  {
    resource: 'compliance', base: 'compliance/{project}', segments: [], actions: ['get', 'list'], policy: true,
    grantedBy: 'project role policies: the project\'s own compliance (its violations)',
  },
]);

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
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

/** One Portico's vocabulary: the OSS rows with a plugin's rows in place of (or beside) the placeholders. */
export interface RbacVocabulary {
  /** The rows in force, in the order can-i, the CLI and the docs list them. */
  readonly rows: readonly RbacResourceRow[];
  /** The resource names can-i accepts. */
  readonly names: readonly string[];
  /** Every action of the rows (`get` … `delete`, `reveal`), in first-seen order. */
  readonly actions: readonly string[];
  /** The rows a project policy may name (`projectPolicyOnlyRows` included), and the actions it may grant. */
  readonly policyRows: readonly RbacResourceRow[];
  readonly policyActions: readonly string[];
  row(resource: string): RbacResourceRow | undefined;
  /**
   * The object of one item of a resource: `object('instances', project, namespace, kind, name)` for a project's
   * resource, `object('categories', slug)` for a global one; throws on an unknown resource.
   */
  object(resource: string, ...parts: string[]): string;
  /** The object of a whole resource in a project (or of a global resource: its base). */
  resourceObject(resource: string, project?: string): string;
  /** The project an object belongs to, or undefined for global objects such as `projects/*`. */
  projectOf(object: string): string | undefined;
  /** The "Objects and actions" table of docs/rbac.md. */
  docsTable(): string;
}

/**
 * Builds an immutable vocabulary: the OSS rows, each placeholder replaced by a plugin row of the same name,
 * the plugin's other rows after them. A plugin row that names a served OSS resource, or two plugin rows
 * naming one resource, are refused: a resource has one meaning.
 */
export function createRbacVocabulary(extra: readonly RbacResourceRow[] = []): RbacVocabulary {
  const rows: RbacResourceRow[] = [...ossRbacResources];
  const seen = new Set<string>();
  for (const row of extra) {
    if (seen.has(row.resource)) throw new Error(`RBAC resource "${row.resource}" is contributed twice`);
    seen.add(row.resource);
    const at = rows.findIndex((r) => r.resource === row.resource);
    if (at >= 0 && !rows[at]!.placeholder) throw new Error(`RBAC resource "${row.resource}" is already in the vocabulary`);
    if (at >= 0) rows[at] = deepFreeze({ ...row });
    else rows.push(deepFreeze({ ...row }));
  }
  const byName = new Map(rows.map((r) => [r.resource, r]));
  const policyRows = rows.filter((r) => r.policy);
  for (const extra of projectPolicyOnlyRows) if (!policyRows.some((r) => r.resource === extra.resource)) policyRows.push(extra);
  const projectHeads = new Set([...rows, ...policyRows].filter((r) => r.base.split('/')[1] === '{project}').map((r) => r.base.split('/')[0]!));
  const rowOf = (resource: string) => {
    const found = byName.get(resource);
    if (!found) throw new Error(`unknown RBAC resource "${resource}"`);
    return found;
  };
  return Object.freeze({
    rows: Object.freeze(rows),
    names: Object.freeze(rows.map((r) => r.resource)),
    actions: Object.freeze([...new Set(rows.flatMap((r) => r.actions))]),
    policyRows: Object.freeze(policyRows),
    policyActions: Object.freeze([...new Set(policyRows.flatMap((r) => r.policyActions ?? r.actions))]),
    row: (resource: string) => byName.get(resource),
    object(resource: string, ...parts: string[]) {
      const row = rowOf(resource);
      return isProjectScoped(row) ? itemObject(row, parts[0] ?? '', parts.slice(1)) : itemObject(row, '', parts);
    },
    resourceObject: (resource: string, project = '*') => resourceObject(rowOf(resource), project),
    projectOf(object: string) {
      const slash = object.indexOf('/');
      if (slash < 0) return undefined;
      if (!projectHeads.has(object.slice(0, slash))) return undefined;
      const end = object.indexOf('/', slash + 1);
      const project = object.slice(slash + 1, end < 0 ? undefined : end);
      return project === '' || project.includes('*') ? undefined : project;
    },
    docsTable: () => rbacDocsTable(rows),
  });
}

/** The vocabulary of a Portico without plugins (and the field's resource names the CLI knows). */
export const ossRbacVocabulary = createRbacVocabulary();

const ossRow = (resource: string) => ossRbacVocabulary.row(resource)!;

/** The objects core asks about, built from the OSS rows (fixed in every edition) so every module speaks of the same strings. */
export const rbacObject = Object.freeze({
  allProjects: ossRow('projects').anyProject!,
  project: (project: string) => resourceObject(ossRow('projects'), project),
  members: (project: string) => resourceObject(ossRow('members'), project),
  roles: (project: string) => resourceObject(ossRow('roles'), project),
  instances: (project: string) => resourceObject(ossRow('instances'), project),
  instance: (project: string, namespace: string, kind: string, name: string) => itemObject(ossRow('instances'), project, [namespace, kind, name]),
  secrets: (project: string) => resourceObject(ossRow('secrets'), project),
  secret: (project: string, namespace: string, name: string) => itemObject(ossRow('secrets'), project, [namespace, name]),
  rgds: (project: string) => resourceObject(ossRow('rgds'), project),
  rgd: (project: string, category: string, name: string) => itemObject(ossRow('rgds'), project, [category, name]),
  repository: (project: string, id: string) => itemObject(ossRow('repositories'), project, [id]),
});

/** Casbin subjects: who a line or a binding speaks of. */
export const rbacSubject = {
  user: (id: string) => `user:${id}`,
  group: (name: string) => `group:${name}`,
  role: (project: string, role: string) => `proj:${project}:${role}`,
  serverAdmin: 'role:serveradmin',
};

/** The "Objects and actions" table of docs/rbac.md, from rows (a test keeps the docs equal to the OSS table). */
export function rbacDocsTable(list: readonly RbacResourceRow[]): string {
  const lines = ['| Resource | Object | Actions | In project policies | Granted by |', '|---|---|---|---|---|'];
  for (const r of list) {
    const item = [r.base.replace('{project}', '<p>'), ...r.segments.map((s) => `<${s}>`)].join('/');
    const object = r.anyProject ? `${item}\`, \`${r.anyProject}` : item;
    lines.push(`| ${r.resource} | \`${object}\` | ${r.actions.join(', ')} | ${policyCell(r)} | ${r.grantedBy} |`);
  }
  return lines.join('\n');
}

/** How a project policy names a row (`instances/<namespace>/<kind>/<name>`), and what it then reaches if not the row's object. */
function policyCell(row: RbacResourceRow): string {
  const policyRow = row.policy ? row : projectPolicyOnlyRows.find((p) => p.resource === row.resource);
  if (!policyRow) return 'no';
  const shape = policyRow.segments.length > 0 ? [policyRow.resource, ...policyRow.segments.map((s) => `<${s}>`)].join('/') : `${policyRow.resource}/*`;
  const actions = policyRow.policyActions ? ` (${policyRow.policyActions.join(', ')})` : '';
  const reaches = policyRow === row ? '' : ` → \`${policyRow.base.replace('{project}', '<p>')}\``;
  return `\`${shape}\`${actions}${reaches}`;
}
