/**
 * One request per route of the OSS table that is not a GET, in an order in which each succeeds (or fails on
 * purpose): the acceptance test walks the route table and fails on any such route missing here, so a new route
 * cannot escape the audit test. A route that changes nothing (a HEAD, or a POST the table marks `readOnly`, such
 * as preflight or a connection test) is planned too, as `recorded: false`: the walk checks it leaves no event.
 * `as` names whose token the request carries.
 */
interface Call {
  path: string;
  body?: unknown;
  as?: 'admin' | 'gina' | 'spare';
  /** Fills the path or the body from earlier answers (e.g. a resourceVersion or an id). */
  prepare?: (get: (path: string) => Promise<Record<string, unknown>>) => Promise<{ body?: unknown; path?: string }>;
  status: number;
}

export interface RecordedCall extends Call {
  action: string;
  userId: string;
  result: 'success' | 'denied' | 'error';
}

export interface UnrecordedCall extends Call {
  recorded: false;
}

export type PlannedCall = RecordedCall | UnrecordedCall;

export const GINA_PASSWORD = 'gina-password-1';

const itemsOf = (list: Record<string, unknown>) => list.items as { id: string; name?: string }[];
const repositoryPath = async (get: (path: string) => Promise<Record<string, unknown>>) =>
  `/api/v1/repositories/${itemsOf(await get('/api/v1/repositories?projectId=default')).find((repo) => repo.name === 'Audited')?.id}`;
const provider = {
  issuerURL: 'https://login.example.com', clientID: 'portico', clientSecret: 'audit-provider-secret-1',
  redirectURL: 'https://portico.example.com/api/v1/auth/oidc/callback', scopes: ['openid', 'email'],
};
const preflightBody = { name: 'checked', project: 'default', values: { image: 'ghcr.io/acme/shop:1', replicas: 1 } };
const tenantPreflightBody = { name: 'team-x', project: 'default', values: { team: 'team-x', adminGroup: 'team-x-admins' } };

/** The secret values the plan writes: none may reach the trail. */
export const plannedSecretValues = ['audit-secret-value-1', 'audit-secret-value-2', 'audit-secret-value-3', 'audit-secret-value-4', 'audit-repo-password', 'audit-provider-secret-1', 'audit-provider-secret-2'];

export const plan = (adminPassword: string): Record<string, PlannedCall> => ({
  localLogin: { path: '/api/v1/auth/local/login', body: { username: 'admin', password: adminPassword }, status: 200, action: 'login', userId: 'admin', result: 'success' },
  tokenExchange: { path: '/api/v1/auth/token-exchange', body: { code: 'no-such-code' }, status: 400, action: 'login_failed', userId: '', result: 'error' },
  wsTicket: { path: '/api/v1/ws/ticket', status: 200, action: 'create', userId: 'admin', result: 'success' },
  createAccount: { path: '/api/v1/accounts', body: { username: 'gina', password: GINA_PASSWORD, groups: [] }, status: 201, action: 'create', userId: 'admin', result: 'success' },
  changePassword: { path: '/api/v1/account/password', as: 'gina', body: { currentPassword: GINA_PASSWORD, newPassword: 'gina-password-2' }, status: 200, action: 'password_change', userId: 'gina', result: 'success' },
  createProject: { path: '/api/v1/projects', body: { name: 'audited' }, status: 201, action: 'create', userId: 'admin', result: 'success' },
  updateProject: {
    path: '/api/v1/projects/audited',
    prepare: async (get) => ({ body: { description: 'changed', resourceVersion: (await get('/api/v1/projects/audited')).resourceVersion } }),
    status: 200, action: 'update', userId: 'admin', result: 'success',
  },
  bindUser: { path: '/api/v1/projects/audited/roles/developer/users/gina', status: 201, action: 'member_add', userId: 'admin', result: 'success' },
  unbindUser: { path: '/api/v1/projects/audited/roles/developer/users/gina', status: 204, action: 'member_remove', userId: 'admin', result: 'success' },
  bindGroup: { path: '/api/v1/projects/audited/roles/developer/groups/ops', status: 201, action: 'member_add', userId: 'admin', result: 'success' },
  unbindGroup: { path: '/api/v1/projects/audited/roles/developer/groups/ops', status: 204, action: 'member_remove', userId: 'admin', result: 'success' },
  createInstance: { path: '/api/v1/instances', body: { rgdName: 'redis-cache', name: 'cache', project: 'default', namespace: 'dev', values: {} }, status: 201, action: 'create', userId: 'admin', result: 'success' },
  createNamespacedInstance: { path: '/api/v1/namespaces/dev/instances/WebApp', body: { name: 'shop', project: 'default', values: { image: 'ghcr.io/acme/shop:1', replicas: 1 } }, status: 201, action: 'create', userId: 'admin', result: 'success' },
  patchNamespacedInstance: { path: '/api/v1/namespaces/dev/instances/WebApp/shop', body: { spec: { replicas: 2 } }, status: 200, action: 'update', userId: 'admin', result: 'success' },
  deleteNamespacedInstance: { path: '/api/v1/namespaces/dev/instances/WebApp/shop', status: 200, action: 'delete', userId: 'admin', result: 'success' },
  createClusterInstance: { path: '/api/v1/instances/_/TenantNamespace', body: { name: 'team-z', project: 'default', values: { team: 'team-z', adminGroup: 'team-z-admins' } }, status: 201, action: 'create', userId: 'admin', result: 'success' },
  patchClusterInstance: { path: '/api/v1/instances/_/TenantNamespace/team-z', body: { spec: { environment: 'staging' } }, status: 200, action: 'update', userId: 'admin', result: 'success' },
  deleteClusterInstance: { path: '/api/v1/instances/_/TenantNamespace/team-z', status: 200, action: 'delete', userId: 'admin', result: 'success' },
  createClusterInstanceAlias: { path: '/api/v1/instances/TenantNamespace', body: { name: 'team-y', project: 'default', values: { team: 'team-y', adminGroup: 'team-y-admins' } }, status: 201, action: 'create', userId: 'admin', result: 'success' },
  patchClusterInstanceAlias: { path: '/api/v1/instances/TenantNamespace/team-y', body: { spec: { environment: 'staging' } }, status: 200, action: 'update', userId: 'admin', result: 'success' },
  deleteClusterInstanceAlias: { path: '/api/v1/instances/TenantNamespace/team-y', status: 200, action: 'delete', userId: 'admin', result: 'success' },
  createSecret: { path: '/api/v1/projects/default/secrets', body: { name: 'audited-secret', namespace: 'dev', data: { token: 'audit-secret-value-1' } }, status: 201, action: 'create', userId: 'admin', result: 'success' },
  updateSecret: {
    path: '/api/v1/projects/default/secrets/dev/audited-secret',
    prepare: async (get) => ({ body: { data: { token: 'audit-secret-value-2' }, resourceVersion: (await get('/api/v1/projects/default/secrets/dev/audited-secret')).resourceVersion } }),
    status: 200, action: 'update', userId: 'admin', result: 'success',
  },
  deleteSecret: { path: '/api/v1/projects/default/secrets/dev/audited-secret', status: 204, action: 'delete', userId: 'admin', result: 'success' },
  createProjectToken: { path: '/api/v1/projects/audited/roles/developer/tokens', body: { description: 'ci' }, status: 201, action: 'create', userId: 'admin', result: 'success' },
  deleteProjectToken: {
    path: '/api/v1/projects/audited/roles/developer/tokens/{id}',
    prepare: async (get) => ({ path: `/api/v1/projects/audited/roles/developer/tokens/${itemsOf(await get('/api/v1/projects/audited/roles/developer/tokens'))[0]?.id}` }),
    status: 204, action: 'delete', userId: 'admin', result: 'success',
  },
  createSecretInProject: { path: '/api/v1/secrets?project=default', body: { name: 'field-secret', namespace: 'dev', data: { token: 'audit-secret-value-3' } }, status: 201, action: 'create', userId: 'admin', result: 'success' },
  secretExists: { path: '/api/v1/secrets/field-secret?project=default&namespace=dev', status: 200, recorded: false },
  upsertSecretKeys: { path: '/api/v1/secrets/field-secret?project=default', body: { namespace: 'dev', data: { token: 'audit-secret-value-4' } }, status: 200, action: 'update', userId: 'admin', result: 'success' },
  deleteSecretOfProject: { path: '/api/v1/secrets/field-secret?project=default&namespace=dev', status: 200, action: 'delete', userId: 'admin', result: 'success' },
  // A host under .invalid never resolves: registering it is allowed (it is checked at each connection), a test of it fails at once.
  createRepository: {
    path: '/api/v1/repositories',
    body: { name: 'Audited', projectId: 'default', repoURL: 'https://git.invalid/platform/deploys.git', authType: 'https', defaultBranch: 'main', httpsAuth: { username: 'deployer', password: 'audit-repo-password' } },
    status: 201, action: 'create', userId: 'admin', result: 'success',
  },
  testRepositoryConnection: { path: '/api/v1/repositories/test-connection', body: { repoURL: 'https://git.invalid/platform/deploys.git', authType: 'https' }, status: 200, recorded: false },
  testRepository: { path: '/api/v1/repositories/{id}/test', prepare: async (get) => ({ path: `${await repositoryPath(get)}/test` }), status: 200, recorded: false },
  updateRepository: { path: '/api/v1/repositories/{id}', prepare: async (get) => ({ path: await repositoryPath(get), body: { defaultBranch: 'release' } }), status: 200, action: 'update', userId: 'admin', result: 'success' },
  deleteRepository: { path: '/api/v1/repositories/{id}', prepare: async (get) => ({ path: await repositoryPath(get) }), status: 204, action: 'delete', userId: 'admin', result: 'success' },
  createSsoProvider: { path: '/api/v1/settings/sso/providers', body: { name: 'audited-idp', ...provider }, status: 201, action: 'create', userId: 'admin', result: 'success' },
  updateSsoProvider: { path: '/api/v1/settings/sso/providers/audited-idp', body: { ...provider, clientSecret: 'audit-provider-secret-2' }, status: 200, action: 'update', userId: 'admin', result: 'success' },
  deleteSsoProvider: { path: '/api/v1/settings/sso/providers/audited-idp', status: 204, action: 'delete', userId: 'admin', result: 'success' },
  updatePreferences: { path: '/api/v1/users/preferences', body: { favoriteRgds: ['web-app'], recentRgds: ['web-app', 'redis-cache'] }, status: 200, action: 'update', userId: 'admin', result: 'success' },
  namespacedInstancePreflight: { path: '/api/v1/namespaces/dev/instances/WebApp/preflight', body: preflightBody, status: 200, recorded: false },
  clusterInstancePreflight: { path: '/api/v1/instances/_/TenantNamespace/preflight', body: tenantPreflightBody, status: 200, recorded: false },
  clusterInstancePreflightAlias: { path: '/api/v1/instances/TenantNamespace/preflight', body: tenantPreflightBody, status: 200, recorded: false },
  deleteProject: { path: '/api/v1/projects/audited', status: 204, action: 'delete', userId: 'admin', result: 'success' },
  deleteAccount: { path: '/api/v1/accounts/gina', status: 204, action: 'delete', userId: 'admin', result: 'success' },
  logout: { path: '/api/v1/auth/logout', as: 'spare', status: 200, action: 'logout', userId: 'admin', result: 'success' },
});
