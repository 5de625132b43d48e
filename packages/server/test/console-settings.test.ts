import { Writable } from 'node:stream';
import { ApiResourceList, Settings, UserPreferences } from '@portico/api';
import { createLogger } from '@portico/core';
import { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { createProject, createUser, type TestUser } from './support/api-as.js';
import { clusterModes, useServer } from './support/cluster-modes.js';
import { redisAddress } from './support/portico.js';

const svg = (inner: string) => `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24">${inner}</svg>`;

/** Each hostile icon of §11.5's list, by the ConfigMap key it is stored under, and a word its refusal names. */
const hostile: Record<string, RegExp> = {
  script: /script/,
  onload: /event-handler/,
  'external-href': /external reference/,
  'javascript-url': /script/,
  'entity-expansion': /DOCTYPE/,
  'external-entity': /DOCTYPE/,
  'html-entity': /well-formed/,
  'one-megabyte': /larger than/,
};
const hostileSvgs: Record<keyof typeof hostile, string> = {
  script: svg('<script>alert(document.cookie)</script>'),
  onload: svg('<path d="M0 0"/>').replace('<svg ', '<svg onload="alert(1)" '),
  'external-href': svg('<use href="https://evil.example/sprite.svg#a"/>'),
  'javascript-url': svg('<use href="javascript:alert(1)"/>'),
  'entity-expansion': `<!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>${svg('<text>&b;</text>')}`,
  'external-entity': `<!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]>${svg('<text>&x;</text>')}`,
  'html-entity': svg('<text>&nbsp;</text>'),
  'one-megabyte': svg(`<path d="${'M0 0 '.repeat(200_000)}"/>`),
};

/**
 * §11.5 settings, preferences and icons, §11.7 cluster discovery, over HTTP on both cluster adapters, with the
 * preferences in a real Redis. Every JSON answer is parsed with the contract's schema.
 */
describe.each(clusterModes)('console settings (%s cluster)', (mode) => {
  const logs: Record<string, unknown>[] = [];
  const logger = createLogger('info', new Writable({ write: (chunk, _enc, done) => (logs.push(JSON.parse(String(chunk))), done()) }));
  const { tp, admin } = useServer(mode, { kv: 'redis', env: { PORTICO_ORGANIZATION: 'Acme Platform' }, logger });
  let member: TestUser;
  let other: TestUser;

  beforeAll(async () => {
    const project = await createProject(tp, 'console', ['dev']);
    [member, other] = await Promise.all([createUser(tp, 'member'), createUser(tp, 'other')]);
    await admin.post(`/api/v1/projects/${project}/roles/developer/users/${member.username}`);
  });

  const anonymous = (path: string) => fetch(`${tp.url}${path}`);
  const icon = (slug: string) => anonymous(`/api/v1/icons/${slug}`);

  describe('GET /settings', () => {
    it('answers the organization to any signed-in user, and 401 without a token', async () => {
      const res = await other.get('/api/v1/settings');
      expect(res.status).toBe(200);
      expect(Settings.parse(res.body)).toEqual({ organization: 'Acme Platform' });
      expect((await anonymous('/api/v1/settings')).status).toBe(401);
    });
  });

  describe('/users/preferences', () => {
    it('stores each user\'s own lists in Redis for 90 days, tidied, and answers what was stored', async () => {
      expect(UserPreferences.parse((await member.get('/api/v1/users/preferences')).body)).toEqual({ favoriteRgds: [], recentRgds: [] });
      const put = await member.put('/api/v1/users/preferences', {
        favoriteRgds: ['web-app', 'redis-cache', 'web-app', ...Array.from({ length: 12 }, (_, i) => `extra-${i}`)],
        recentRgds: ['postgres-database'],
      });
      expect(put.status).toBe(200);
      const stored = UserPreferences.parse(put.body);
      expect(stored.favoriteRgds).toEqual(['web-app', 'redis-cache', ...Array.from({ length: 8 }, (_, i) => `extra-${i}`)]);
      expect((await member.get('/api/v1/users/preferences')).body).toEqual(stored);
      expect((await other.get('/api/v1/users/preferences')).body).toEqual({ favoriteRgds: [], recentRgds: [] });

      const redis = new Redis(`redis://${redisAddress}`, { lazyConnect: true, maxRetriesPerRequest: 1 });
      try {
        await redis.connect();
        const ttl = await redis.pttl(`${tp.redisPrefix}preferences:user:${member.username}`);
        const days = ttl / (24 * 60 * 60 * 1000);
        expect(days).toBeGreaterThan(89.9);
        expect(days).toBeLessThanOrEqual(90);
      } finally {
        redis.disconnect();
      }
    });

    it('refuses names that are not DNS-1123 with 400 naming each, and changes nothing', async () => {
      const before = (await member.get('/api/v1/users/preferences')).body;
      const res = await member.put('/api/v1/users/preferences', { favoriteRgds: ['Web App'], recentRgds: ['ok', 'no/slash'] });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { fields: { 'favoriteRgds.0': expect.stringMatching(/DNS-1123/), 'recentRgds.1': expect.stringMatching(/DNS-1123/) } } });
      expect((await member.get('/api/v1/users/preferences')).body).toEqual(before);
    });
  });

  describe('GET /icons/{slug}', () => {
    it('serves Portico\'s generic icons to anyone, as a cacheable SVG that can run nothing', async () => {
      const res = await icon('database');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/svg+xml');
      expect(res.headers.get('cache-control')).toBe('public, max-age=86400');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; style-src 'unsafe-inline'");
      expect(await res.text()).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
      // The sample catalog's RGDs name icons Portico draws (web-app's `globe`).
      const rgd = await admin.get('/api/v1/rgds/web-app');
      expect(rgd.body.icon).toBe('globe');
      expect((await icon(rgd.body.icon)).status).toBe(200);
    });

    it('answers 404 in the envelope for an unknown slug and 400 for one outside [a-z0-9:-]', async () => {
      const unknown = await icon('no-such-icon');
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toMatchObject({ code: 'NOT_FOUND', details: { resource: 'icon', identifier: 'no-such-icon' } });
      for (const bad of ['Database', 'a_b', '..%2Fetc', 'x.svg']) expect((await icon(bad)).status, bad).toBe(400);
    });

    it('serves the icons of a registry ConfigMap applied at run time within seconds, and refuses each hostile one', async () => {
      const name = `icons-${mode}`;
      const good = svg('<circle cx="12" cy="12" r="9"/>');
      await tp.apply({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace: tp.portico.config.kubernetes.namespace, labels: { 'portico.dev/icon-registry': 'true' } },
        data: { 'team-rocket': good, 'cat.databases': svg('<rect width="4" height="4"/>'), ...hostileSvgs },
      });
      const deadline = Date.now() + 5_000;
      let res = await icon('team-rocket');
      while (res.status !== 200 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
        res = await icon('team-rocket');
      }
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('<circle cx="12" cy="12" r="9"/>');
      expect((await icon('cat:databases')).status).toBe(200);

      for (const [key, reason] of Object.entries(hostile)) {
        expect((await icon(key)).status, key).toBe(404);
        const logged = logs.find((l) => l.configMap === name && l.key === key);
        expect(logged, `a log line for ${key}`).toMatchObject({ msg: 'icon refused by the SVG check', reason: expect.stringMatching(reason) });
      }
      await tp.remove({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: tp.portico.config.kubernetes.namespace } });
    });
  });

  describe('GET /kubernetes/api-resources', () => {
    it('lists every group and kind the cluster serves to a Server Admin: core first, then by group and kind', async () => {
      const res = await admin.get('/api/v1/kubernetes/api-resources');
      expect(res.status).toBe(200);
      const { resources: list, count } = ApiResourceList.parse(res.body);
      expect(count).toBe(list.length);
      for (const expected of [
        { apiGroup: '', kind: 'Secret' },
        { apiGroup: '', kind: 'ConfigMap' },
        { apiGroup: '', kind: 'Namespace' },
        { apiGroup: 'portico.dev', kind: 'Project' },
        { apiGroup: 'kro.run', kind: 'ResourceGraphDefinition' },
        { apiGroup: 'kro.run', kind: 'WebApp' },
      ]) expect(list).toContainEqual(expected);
      const keys = list.map((r) => `${r.apiGroup}/${r.kind}`);
      expect(new Set(keys).size).toBe(keys.length);
      const sorted = [...list].sort((a, b) => (a.apiGroup < b.apiGroup ? -1 : a.apiGroup > b.apiGroup ? 1 : a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0));
      expect(list).toEqual(sorted);
      expect(list[0]!.apiGroup).toBe('');
      expect(list.every((r) => !r.kind.includes('/'))).toBe(true);
    });

    it('filters by a case-insensitive substring of the kind and by group (`core` for the core group)', async () => {
      const search = ApiResourceList.parse((await admin.get('/api/v1/kubernetes/api-resources?search=webap')).body);
      expect(search.resources).toContainEqual({ apiGroup: 'kro.run', kind: 'WebApp' });
      expect(search.resources.every((r) => r.kind.toLowerCase().includes('webap'))).toBe(true);
      const core = ApiResourceList.parse((await admin.get('/api/v1/kubernetes/api-resources?apiGroup=core')).body);
      expect(core.resources.length).toBeGreaterThan(0);
      expect(core.resources.every((r) => r.apiGroup === '')).toBe(true);
      const kro = ApiResourceList.parse((await admin.get('/api/v1/kubernetes/api-resources?apiGroup=kro.run&search=RESOURCEGRAPH')).body);
      expect(kro).toEqual({ resources: [{ apiGroup: 'kro.run', kind: 'ResourceGraphDefinition' }], count: 1 });
    });

    it('is 403 for a project member and 401 without a token', async () => {
      const res = await member.get('/api/v1/kubernetes/api-resources');
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'FORBIDDEN' });
      expect((await anonymous('/api/v1/kubernetes/api-resources')).status).toBe(401);
    });

    it('includes a kind a CRD adds at run time', async () => {
      const crd = {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: `widgets.${mode}.example.com` },
        spec: { group: `${mode}.example.com`, names: { kind: 'Widget', plural: 'widgets' }, scope: 'Namespaced', versions: [{ name: 'v1', served: true, storage: true }] },
      };
      await tp.kubectl.create({ group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition', plural: 'customresourcedefinitions', namespaced: false }, crd);
      const deadline = Date.now() + 5_000;
      for (;;) {
        const found = ApiResourceList.parse((await admin.get(`/api/v1/kubernetes/api-resources?apiGroup=${mode}.example.com`)).body);
        if (found.count === 1) {
          expect(found.resources).toEqual([{ apiGroup: `${mode}.example.com`, kind: 'Widget' }]);
          break;
        }
        if (Date.now() > deadline) throw new Error('the CRD\'s kind never appeared');
        await new Promise((r) => setTimeout(r, 250));
      }
    });
  });
});
