import { describe, expect, it } from 'vitest';
import { createUser, uniqueName, type ApiAs } from '../../../server/test/support/api-as.js';
import { clusterModes } from '../../../server/test/support/cluster-modes.js';
import { eventually } from '../../../core/test/support/eventually.js';
import { issueLicense } from '../support/license.js';
import { useEnterprise } from '../support/server.js';

const crds = new URL('../../../../deploy/crds/category.yaml', import.meta.url).pathname;
const catalog = new URL('../../../../examples/catalog', import.meta.url).pathname;

interface Category {
  slug: string;
  name: string;
  count: number;
  weight: number;
  icon: string;
  iconType: string;
  description: string;
}
const categoriesOf = async (api: ApiAs) => {
  const res = await api.get<{ categories: Category[] }>('/api/v1/categories');
  expect(res.status).toBe(200);
  return res.body.categories;
};
const bySlug = (list: Category[]) => Object.fromEntries(list.map((c) => [c.slug, c]));

describe.each(clusterModes)('categories (§12.3) on the %s cluster', (mode) => {
  const { ee, admin } = useEnterprise(mode, { manifests: [catalog, crds], license: issueLicense({ features: ['categories'] }) });

  it('categories used by RGDs appear with defaults and the number of RGDs the caller may see', async () => {
    const all = bySlug(await categoriesOf(admin));
    expect(all.databases).toMatchObject({ name: 'databases', icon: 'folder', iconType: 'lucide', weight: 100, description: '' });
    expect(all.databases.count).toBeGreaterThan(0);
    const rgds = await admin.get<{ totalCount: number }>('/api/v1/rgds?category=web&pageSize=1');
    expect(all.web.count).toBe(rgds.body.totalCount);
  });

  it('CRUD by a Server Admin; others may read but not change', async () => {
    const slug = uniqueName('cat');
    const created = await admin.post('/api/v1/categories', { slug, name: 'Message Queues', icon: 'mail', weight: 5, description: 'brokers' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ slug, name: 'Message Queues', icon: 'mail', iconType: 'lucide', weight: 5, description: 'brokers', count: 0 });
    expect((await admin.post('/api/v1/categories', { slug, name: 'again' })).status).toBe(409);
    expect((await admin.put(`/api/v1/categories/${slug}`, { weight: 1, description: 'changed' })).body).toMatchObject({ slug, name: 'Message Queues', weight: 1, description: 'changed' });
    expect((await admin.get(`/api/v1/categories/${slug}`)).body.description).toBe('changed');

    const user = await createUser(ee, 'cat-reader');
    expect((await user.get(`/api/v1/categories/${slug}`)).status).toBe(200);
    expect((await user.post('/api/v1/categories', { slug: uniqueName('nope'), name: 'x' })).status).toBe(403);
    expect((await user.put(`/api/v1/categories/${slug}`, { weight: 9 })).status).toBe(403);
    expect((await user.del(`/api/v1/categories/${slug}`)).status).toBe(403);

    expect((await admin.del(`/api/v1/categories/${slug}`)).status).toBe(204);
    expect((await admin.get(`/api/v1/categories/${slug}`)).status).toBe(404);
    expect((await admin.post('/api/v1/categories', { slug: 'Not A Slug', name: 'x' })).status).toBe(400);
  });

  it('counts follow RBAC: a role with rgds/databases/* counts only databases; a user in no project sees none', async () => {
    const project = uniqueName('dba');
    const created = await admin.post('/api/v1/projects', {
      name: project,
      destinations: [{ namespace: 'dev' }],
      roles: [{ name: 'dba', policies: ['rgds/databases/*, get, allow'] }],
    });
    expect(created.status).toBe(201);
    const dba = await createUser(ee, 'dba');
    expect((await admin.post(`/api/v1/projects/${project}/roles/dba/users/${dba.username}`)).status).toBe(201);

    const adminCounts = bySlug(await categoriesOf(admin));
    const seen = await eventually(() => categoriesOf(dba), (list) => list.some((c) => c.slug === 'databases'), 'the dba sees databases');
    const mine = bySlug(seen);
    expect(mine.databases.count).toBe(adminCounts.databases.count);
    // Only the category the role opens; web (public RGDs the dba may not get) is absent entirely.
    expect(Object.keys(mine).filter((slug) => mine[slug].count > 0)).toEqual(['databases']);
    expect(mine.web).toBeUndefined();
    expect((await dba.get('/api/v1/categories/web')).status).toBe(404);

    const nobody = await createUser(ee, 'nobody');
    expect((await categoriesOf(nobody)).filter((c) => c.count > 0)).toEqual([]);
  });

  it('a Category applied by YAML (kubectl / GitOps) shows up through the watch, and its removal too', async () => {
    const slug = uniqueName('gitops');
    await ee.apply(`apiVersion: portico.dev/v1alpha1
kind: Category
metadata:
  name: ${slug}
spec:
  name: From Git
  icon: git-branch
  weight: 7
`);
    const found = await eventually(() => admin.get<Category>(`/api/v1/categories/${slug}`), (r) => r.status === 200, 'the applied category');
    expect(found.body).toMatchObject({ slug, name: 'From Git', icon: 'git-branch', weight: 7 });
    await ee.remove({ apiVersion: 'portico.dev/v1alpha1', kind: 'Category', metadata: { name: slug } });
    await eventually(() => admin.get(`/api/v1/categories/${slug}`), (r) => r.status === 404, 'the removed category');
  });
});
