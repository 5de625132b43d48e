/**
 * One request per mutating route of the OSS table, in an order in which each succeeds (or fails on purpose):
 * the acceptance test walks the route table and fails on any mutating route missing here, so a new route
 * cannot escape the audit test. `as` names whose token the request carries.
 */
export interface PlannedCall {
  path: string;
  body?: unknown;
  as?: 'admin' | 'gina' | 'spare';
  /** Fills path placeholders or the body from earlier answers (e.g. a resourceVersion). */
  prepare?: (get: (path: string) => Promise<Record<string, unknown>>) => Promise<{ body?: unknown }>;
  status: number;
  action: string;
  userId: string;
  result: 'success' | 'denied' | 'error';
}

export const GINA_PASSWORD = 'gina-password-1';

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
  deleteProject: { path: '/api/v1/projects/audited', status: 204, action: 'delete', userId: 'admin', result: 'success' },
  deleteAccount: { path: '/api/v1/accounts/gina', status: 204, action: 'delete', userId: 'admin', result: 'success' },
  logout: { path: '/api/v1/auth/logout', as: 'spare', status: 200, action: 'logout', userId: 'admin', result: 'success' },
});
