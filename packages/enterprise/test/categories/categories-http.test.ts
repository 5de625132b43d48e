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

  // §12.3 / §11.5: an svg icon passes the allow-list check; each hostile case is a 400 naming `icon`, nothing written.
  const svg = (inner: string, attrs = '') => `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"${attrs}>${inner}</svg>`;
  const hostileIcons: Array<[string, string]> = [
    ['a <script> element', svg('<script>alert(1)</script>')],
    ['an onload handler', svg('<path d="M0 0"/>', ' onload="alert(1)"')],
    ['an onclick handler on a child', svg('<rect width="1" height="1" onclick="alert(1)"/>')],
    ['an external href', svg('<use href="https://evil.example/x.svg#a"/>')],
    ['an external xlink:href', svg('<use xlink:href="//evil.example/a"/>', ' xmlns:xlink="http://www.w3.org/1999/xlink"')],
    ['a javascript: URL', svg('<use href="javascript:alert(1)"/>')],
    ['an external url() in a style', svg('<path d="M0 0" style="fill:url(https://evil.example/t)"/>')],
    ['foreignObject', svg('<foreignObject><div xmlns="http://www.w3.org/1999/xhtml">x</div></foreignObject>')],
    ['a DOCTYPE with entities', `<!DOCTYPE svg [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;">]>${svg('<text>&b;</text>')}`],
    ['not XML', '<svg><g></svg>'],
    ['larger than the bound', svg(`<path d="${'M0 0 '.repeat(4_000)}"/>`)],
  ];

  it('an svg icon passes the allow-list SVG check: every hostile case is 400 on create and on update, and nothing is written', async () => {
    for (const [what, icon] of hostileIcons) {
      const slug = uniqueName('evil');
      const res = await admin.post('/api/v1/categories', { slug, name: 'Evil', icon, iconType: 'svg' });
      expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
      expect(Object.keys(res.body.details.fields)).toEqual(['icon']);
      expect((await admin.get(`/api/v1/categories/${slug}`)).status, what).toBe(404);
    }
    const slug = uniqueName('icons');
    const good = svg('<title>db</title><ellipse cx="12" cy="5" rx="9" ry="3"></ellipse>', ' fill="none" stroke="currentColor"');
    const created = await admin.post('/api/v1/categories', { slug, name: 'Icons', icon: good, iconType: 'svg' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ iconType: 'svg', icon: svg('<title>db</title><ellipse cx="12" cy="5" rx="9" ry="3"/>', ' fill="none" stroke="currentColor"') });
    for (const [what, icon] of hostileIcons) {
      const res = await admin.put(`/api/v1/categories/${slug}`, { icon });
      expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(400);
    }
    // A lucide name switched to svg is checked as an SVG too.
    const named = uniqueName('named');
    expect((await admin.post('/api/v1/categories', { slug: named, name: 'Named', icon: 'mail' })).status).toBe(201);
    expect((await admin.put(`/api/v1/categories/${named}`, { iconType: 'svg' })).status).toBe(400);
    expect((await admin.get<Category>(`/api/v1/categories/${slug}`)).body.icon).toBe(created.body.icon);
  });

  it('a hostile svg applied around the API (kubectl / GitOps) is never served: the default icon stands in', async () => {
    const slug = uniqueName('applied');
    await ee.apply({ apiVersion: 'portico.dev/v1alpha1', kind: 'Category', metadata: { name: slug }, spec: { name: 'Applied', iconType: 'svg', icon: svg('<script>alert(1)</script>') } });
    const found = await eventually(() => admin.get<Category>(`/api/v1/categories/${slug}`), (r) => r.status === 200, 'the applied category');
    expect(found.body).toMatchObject({ icon: 'folder', iconType: 'lucide' });
    expect(JSON.stringify((await admin.get('/api/v1/categories')).body)).not.toContain('<script>');
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
