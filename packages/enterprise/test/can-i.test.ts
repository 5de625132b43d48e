import { describe, expect, it } from 'vitest';
import { createUser, uniqueName } from '../../server/test/support/api-as.js';
import { issueLicense } from './support/license.js';
import { useEnterprise } from './support/server.js';

/** The Enterprise rows of the RBAC vocabulary answer can-i, and the answers agree with the routes. */
describe('can-i knows the Enterprise resources', () => {
  const { ee, admin } = useEnterprise('embedded', { license: issueLicense({ features: ['categories', 'views'] }) });

  it('a Server Admin may install a license and manage categories and shared views; a user may not, and the routes agree', async () => {
    const user = await createUser(ee, 'can-i');
    const ask = async (api: typeof admin, resource: string, action: string) => (await api.get(`/api/v1/account/can-i/${resource}/${action}/*`)).body;
    for (const [resource, action] of [['license', 'update'], ['categories', 'create'], ['views', 'create']]) {
      expect(await ask(admin, resource, action), `${resource} ${action}`).toEqual({ value: 'yes' });
      expect(await ask(user, resource, action), `${resource} ${action}`).toEqual({ value: 'no' });
    }
    expect((await user.post('/api/v1/license', { token: issueLicense() })).status).toBe(403);
    expect((await user.post('/api/v1/categories', { slug: uniqueName('c'), name: 'x' })).status).toBe(403);
    expect((await user.post('/api/v1/ee/views', { slug: uniqueName('v'), name: 'x', shared: true })).status).toBe(403);
    expect((await admin.post('/api/v1/categories', { slug: uniqueName('c'), name: 'x' })).status).toBe(201);
  });
});
