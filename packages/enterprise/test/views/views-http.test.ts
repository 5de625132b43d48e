import { describe, expect, it } from 'vitest';
import { createUser, uniqueName } from '../../../server/test/support/api-as.js';
import { issueLicense } from '../support/license.js';
import { useEnterprise } from '../support/server.js';

describe('saved views (§12.4) in PostgreSQL', () => {
  const { ee, admin } = useEnterprise('embedded', { license: issueLicense({ features: ['views'] }) });

  it('CRUD of an own view; the RGD list follows the filter', async () => {
    const slug = uniqueName('dbs');
    const created = await admin.post('/api/v1/ee/views', { slug, name: 'Data', filter: { categories: ['databases', 'caching'] }, order: 2 });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ slug, name: 'Data', owner: 'admin', shared: false, order: 2, filter: { categories: ['databases', 'caching'], tags: [], projects: [] } });
    const expected = (await admin.get('/api/v1/rgds?pageSize=500')).body.items.filter((r: { category: string }) => ['databases', 'caching'].includes(r.category));
    expect(created.body.count).toBe(expected.length);

    const detail = await admin.get(`/api/v1/ee/views/${slug}?pageSize=1&sortBy=name`);
    expect(detail.status).toBe(200);
    expect(detail.body.rgds).toMatchObject({ totalCount: expected.length, page: 1, pageSize: 1 });
    expect(detail.body.rgds.items).toHaveLength(1);

    expect((await admin.post('/api/v1/ee/views', { slug, name: 'again' })).status).toBe(409);
    const updated = await admin.put(`/api/v1/ee/views/${slug}`, { name: 'Databases only', filter: { categories: ['databases'] } });
    expect(updated.body).toMatchObject({ name: 'Databases only', filter: { categories: ['databases'] } });
    expect((await admin.get('/api/v1/ee/views')).body.items.map((v: { slug: string }) => v.slug)).toContain(slug);
    expect((await admin.del(`/api/v1/ee/views/${slug}`)).status).toBe(204);
    expect((await admin.get(`/api/v1/ee/views/${slug}`)).status).toBe(404);
  });

  it("somebody else's private view is a 404; shared views are for everybody and need a Server Admin to change", async () => {
    const alice = await createUser(ee, 'alice');
    const bob = await createUser(ee, 'bob');
    const privateSlug = uniqueName('mine');
    expect((await alice.post('/api/v1/ee/views', { slug: privateSlug, name: 'Mine' })).status).toBe(201);
    expect((await bob.get(`/api/v1/ee/views/${privateSlug}`)).status).toBe(404);
    expect((await bob.del(`/api/v1/ee/views/${privateSlug}`)).status).toBe(404);
    expect((await bob.get('/api/v1/ee/views')).body.items.map((v: { slug: string }) => v.slug)).not.toContain(privateSlug);

    expect((await alice.post('/api/v1/ee/views', { slug: uniqueName('shared'), name: 'For all', shared: true })).status).toBe(403);
    expect((await alice.put(`/api/v1/ee/views/${privateSlug}`, { shared: true })).status).toBe(403);
    const sharedSlug = uniqueName('shared');
    expect((await admin.post('/api/v1/ee/views', { slug: sharedSlug, name: 'For all', shared: true })).status).toBe(201);
    expect((await bob.get('/api/v1/ee/views')).body.items.map((v: { slug: string }) => v.slug)).toContain(sharedSlug);
    expect((await bob.put(`/api/v1/ee/views/${sharedSlug}`, { name: 'mine now' })).status).toBe(403);
    expect((await bob.del(`/api/v1/ee/views/${sharedSlug}`)).status).toBe(403);
  });

  it('a private slug is its owner\'s own: creating the slug another user holds privately reveals nothing (201, not 409), and each keeps theirs', async () => {
    const [carol, dave] = [await createUser(ee, 'carol'), await createUser(ee, 'dave')];
    const slug = uniqueName('mine');
    expect((await carol.post('/api/v1/ee/views', { slug, name: 'Carol\'s', filter: { tags: ['carol'] } })).status).toBe(201);
    const daves = await dave.post('/api/v1/ee/views', { slug, name: 'Dave\'s', filter: { tags: ['dave'] } });
    expect(daves.status, JSON.stringify(daves.body)).toBe(201);
    expect(daves.body).toMatchObject({ slug, name: 'Dave\'s', owner: dave.username });
    // Each reads, changes and deletes their own; neither list shows the other's.
    expect((await carol.get(`/api/v1/ee/views/${slug}`)).body).toMatchObject({ name: 'Carol\'s', owner: carol.username });
    expect((await dave.get(`/api/v1/ee/views/${slug}`)).body).toMatchObject({ name: 'Dave\'s', owner: dave.username });
    expect((await dave.put(`/api/v1/ee/views/${slug}`, { name: 'Dave renamed' })).status).toBe(200);
    expect((await carol.get(`/api/v1/ee/views/${slug}`)).body.name).toBe('Carol\'s');
    const listed = async (user: typeof carol) => (await user.get('/api/v1/ee/views')).body.items.filter((v: { slug: string }) => v.slug === slug).map((v: { name: string }) => v.name);
    expect(await listed(carol)).toEqual(['Carol\'s']);
    expect(await listed(dave)).toEqual(['Dave renamed']);
    // A second view of one's own slug is the 409 the owner already knows about.
    expect((await dave.post('/api/v1/ee/views', { slug, name: 'again' })).status).toBe(409);
    expect((await dave.del(`/api/v1/ee/views/${slug}`)).status).toBe(204);
    expect((await dave.get(`/api/v1/ee/views/${slug}`)).status).toBe(404);
    expect((await carol.get(`/api/v1/ee/views/${slug}`)).body.name).toBe('Carol\'s');

    // A shared slug is one for everybody: taking it privately is a 409 (the caller sees that view anyway); a shared
    // view of a slug somebody keeps privately is created, and that person's own view still answers for them.
    const shared = uniqueName('team');
    expect((await admin.post('/api/v1/ee/views', { slug: shared, name: 'For all', shared: true })).status).toBe(201);
    expect((await dave.post('/api/v1/ee/views', { slug: shared, name: 'mine' })).status).toBe(409);
    expect((await admin.post('/api/v1/ee/views', { slug, name: 'Shared now', shared: true })).status).toBe(201);
    expect((await carol.get(`/api/v1/ee/views/${slug}`)).body).toMatchObject({ name: 'Carol\'s', shared: false });
    expect(await listed(carol)).toEqual(['Carol\'s']);
    expect((await dave.get(`/api/v1/ee/views/${slug}`)).body).toMatchObject({ name: 'Shared now', shared: true });
  });

  it('counts and lists are the caller\'s own view of the catalog (a user in no project sees no RGDs)', async () => {
    const slug = uniqueName('all');
    expect((await admin.post('/api/v1/ee/views', { slug, name: 'Everything', shared: true })).status).toBe(201);
    const nobody = await createUser(ee, 'nobody');
    const seen = await nobody.get(`/api/v1/ee/views/${slug}`);
    expect(seen.status).toBe(200);
    expect(seen.body.count).toBe(0);
    expect(seen.body.rgds).toMatchObject({ items: [], totalCount: 0 });
    expect((await admin.get(`/api/v1/ee/views/${slug}`)).body.count).toBeGreaterThan(0);
  });

  it('bad input is a 400 that names the field and stores nothing', async () => {
    const res = await admin.post('/api/v1/ee/views', { slug: 'Bad Slug', name: '' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_FAILED');
    expect(Object.keys(res.body.details.fields)).toEqual(expect.arrayContaining(['slug', 'name']));
    // Half a surrogate pair (a JSON escape) cannot be stored in PostgreSQL's jsonb: a 400 up front, not a 500.
    const slug = uniqueName('half');
    const half = await admin.post('/api/v1/ee/views', { slug, name: 'x', filter: { tags: ['a \udc00'] } });
    expect([half.status, half.body.code]).toEqual([400, 'BAD_REQUEST']);
    expect((await admin.get(`/api/v1/ee/views/${slug}`)).status).toBe(404);
  });
});
