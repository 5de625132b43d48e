/**
 * Kubernetes RBAC as the API server decides it, for the fake API server's RBAC mode: the ClusterRoles and Roles
 * bound to one service account, and whether a request's verb, API group, resource, namespace and name (or a
 * non-resource URL) is granted by one of their rules. Deny by default; no rule denies.
 */

export interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
  verbs: string[];
}

/** What a request asks, in the words RBAC decides on. */
export interface RequestAttributes {
  verb: string;
  /** A resource request: group ('' for core), resource (`resource/subresource`), namespace when namespaced. */
  group?: string;
  resource?: string;
  namespace?: string;
  name?: string;
  /** A non-resource request (discovery): its path. */
  path?: string;
}

/** One rule as bound to the account: cluster-wide, or in one namespace (a RoleBinding). */
export interface Grant {
  rule: PolicyRule;
  /** Undefined: everywhere (ClusterRoleBinding); else the RoleBinding's namespace. */
  namespace?: string;
  /** `ClusterRole portico #2`: which manifest rule this is. */
  source: string;
}

export interface ServiceAccountRef {
  name: string;
  namespace: string;
}

type Manifest = { kind?: string; metadata?: { name?: string; namespace?: string }; rules?: PolicyRule[]; roleRef?: { kind: string; name: string }; subjects?: { kind: string; name: string; namespace?: string }[] };

const boundTo = (binding: Manifest, sa: ServiceAccountRef, bindingNamespace?: string) =>
  (binding.subjects ?? []).some((s) => s.kind === 'ServiceAccount' && s.name === sa.name && (s.namespace ?? bindingNamespace) === sa.namespace);

/** Every rule the manifests bind to the service account, with where it holds. */
export function grantsFor(manifests: readonly Manifest[], sa: ServiceAccountRef): Grant[] {
  const roles = new Map<string, Manifest>();
  for (const m of manifests) {
    if (m.kind === 'ClusterRole') roles.set(`ClusterRole/${m.metadata?.name}`, m);
    if (m.kind === 'Role') roles.set(`Role/${m.metadata?.namespace}/${m.metadata?.name}`, m);
  }
  const grants: Grant[] = [];
  const grant = (role: Manifest | undefined, namespace: string | undefined, label: string) =>
    (role?.rules ?? []).forEach((rule, i) => grants.push({ rule, namespace, source: `${label} #${i + 1}` }));
  for (const b of manifests) {
    if (b.kind === 'ClusterRoleBinding' && b.roleRef?.kind === 'ClusterRole' && boundTo(b, sa)) {
      grant(roles.get(`ClusterRole/${b.roleRef.name}`), undefined, `ClusterRole ${b.roleRef.name}`);
    }
    if (b.kind === 'RoleBinding' && b.roleRef && boundTo(b, sa, b.metadata?.namespace)) {
      const ns = b.metadata?.namespace;
      const role = b.roleRef.kind === 'ClusterRole' ? roles.get(`ClusterRole/${b.roleRef.name}`) : roles.get(`Role/${ns}/${b.roleRef.name}`);
      grant(role, ns, `${b.roleRef.kind} ${b.roleRef.name}`);
    }
  }
  return grants;
}

const has = (list: readonly string[] | undefined, value: string) => !!list && (list.includes('*') || list.includes(value));

const pathMatches = (patterns: readonly string[], path: string) =>
  patterns.some((p) => p === '*' || p === path || (p.endsWith('*') && path.startsWith(p.slice(0, -1))));

/** Whether one rule, held in `grant.namespace` (or everywhere), grants the request. */
export function grantAllows(grant: Grant, req: RequestAttributes): boolean {
  const { rule } = grant;
  if (!has(rule.verbs, req.verb)) return false;
  if (req.path !== undefined) return grant.namespace === undefined && !!rule.nonResourceURLs && pathMatches(rule.nonResourceURLs, req.path);
  if (!rule.resources || rule.nonResourceURLs) return false;
  if (grant.namespace !== undefined && req.namespace !== grant.namespace) return false;
  if (!has(rule.apiGroups, req.group ?? '') || !has(rule.resources, req.resource ?? '')) return false;
  return !rule.resourceNames?.length || (req.name !== undefined && rule.resourceNames.includes(req.name));
}

export const allows = (grants: readonly Grant[], req: RequestAttributes) => grants.some((g) => grantAllows(g, req));

/** The API server's 403 message for a refused request. */
export function forbiddenMessage(sa: ServiceAccountRef, req: RequestAttributes): string {
  const user = `system:serviceaccount:${sa.namespace}:${sa.name}`;
  if (req.path !== undefined) return `forbidden: User "${user}" cannot ${req.verb} path "${req.path}"`;
  const where = req.namespace ? ` in the namespace "${req.namespace}"` : ' at the cluster scope';
  const what = `${req.resource}${req.name ? ` "${req.name}"` : ''}`;
  return `${what} is forbidden: User "${user}" cannot ${req.verb} resource "${req.resource}" in API group "${req.group ?? ''}"${where}`;
}
