import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { rbacActions, type RbacResourceRow, type RouteDef } from '@portico/api';
import { createLogger, createPortico, forbidden, loadConfig, type Actor, type Operation, type Portico, type PorticoPlugin } from '@portico/core';
import { afterEach, describe, expect, it } from 'vitest';
import { tableHandlers, type ServerPlugin } from '../src/index.js';
import { apiAs, uniqueName, type ApiAs } from './support/api-as.js';
import { login, sampleCatalog } from './support/portico.js';
import { startServer, type RunningServer } from './support/server.js';

// Acceptance 3 of "One seam for every operation": the RBAC vocabulary (and the operations) belong to one
// `createPortico({plugins})`, so two servers in one process, one with a plugin and one without, each answer
// from their own, whichever started first.

/** A resource no edition of Portico has: everything the plugin server knows of it comes from this row. */
const widgetsRow: RbacResourceRow = {
  resource: 'widgets', base: 'widgets/{project}', segments: ['name'], actions: rbacActions, policy: true,
  summary: ['get', 'create'], grantedBy: 'project role policies',
};

const widgetRoutes = [
  {
    id: 'createWidget', method: 'POST', path: '/api/v1/widgets/{project}', auth: 'user', tag: 'widgets', summary: 'Make a widget in a project',
    params: z.object({ project: z.string() }), body: z.object({ name: z.string() }), status: 201, response: z.object({ project: z.string(), name: z.string() }),
  },
] as const satisfies readonly RouteDef[];

/** The test plugin: core's part (its row, its operation, a hook that sees this Portico's operations) and the server's (one route). */
function widgetsPlugin() {
  const operations: Operation[] = [];
  const core: PorticoPlugin = {
    name: 'widgets',
    rbacResources: [widgetsRow],
    operations: { 'widgets.create': { action: 'create', resource: 'widgets' } },
    hooks: [(operation, run) => {
      operations.push(operation);
      return run();
    }],
  };
  const server = (portico: Portico): ServerPlugin => {
    const widgets = portico.operations.wrap(
      {
        async create(actor: Actor, project: string, name: string) {
          if (!portico.authz.can(actor, 'create', portico.vocabulary.object('widgets', project, name))) throw forbidden('may not make widgets here');
          return { project, name };
        },
      },
      { create: { id: 'widgets.create', actor: 0, subject: (_actor: Actor, project: string, name: string) => ({ name, project }) } },
    );
    const handlers = tableHandlers<(typeof widgetRoutes)[number]>()({ createWidget: ({ actor, params, body }) => widgets.create(actor, params.project, body.name) });
    return { name: 'widgets', routes: widgetRoutes, handlers };
  };
  return { core, server, operations };
}

interface Started {
  portico: Portico;
  server: RunningServer;
  admin: ApiAs;
  close(): Promise<void>;
}

const started: Started[] = [];
afterEach(async () => {
  for (const s of started.splice(0)) await s.close();
});

/** A real Portico (embedded cluster, sample catalog) behind the real HTTP server, with or without the plugin. */
async function start(plugin?: ReturnType<typeof widgetsPlugin>): Promise<Started> {
  const dataDir = await mkdtemp(join(tmpdir(), 'portico-vocabulary-'));
  const adminPassword = `admin-${randomUUID()}`;
  const config = loadConfig({
    PORTICO_PROFILE: 'development', PORTICO_DATA_DIR: dataDir, PORTICO_MANIFESTS: sampleCatalog, ADMIN_PASSWORD: adminPassword,
    PORTICO_KRO_STEP_MS: '10', PORTICO_RATE_LIMITS: '0', PORTICO_KV: 'memory',
  });
  const portico = await createPortico({ config, logger: createLogger('silent'), plugins: plugin ? [plugin.core] : [] });
  const server = await startServer(portico, { plugins: plugin ? [plugin.server(portico)] : [] });
  const close = async () => {
    await server.close();
    await portico.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
  const s = { portico, server, admin: apiAs(server.url, await login(server.url, 'admin', adminPassword)), close };
  started.push(s);
  return s;
}

/** A signed-in local account of that server. */
async function userOf(s: Started): Promise<ApiAs & { username: string }> {
  const username = uniqueName('wanda');
  const password = `pw-${randomUUID()}`;
  expect((await s.admin.post('/api/v1/accounts', { username, password })).status).toBe(201);
  return { ...apiAs(s.server.url, await login(s.server.url, username, password)), username };
}

/**
 * What a server answers about widgets: can-i on them, the can-i summary of a member, a project whose role names
 * them, the plugin's route, and what its vocabulary lists (the docs table, the 400 for an unknown resource).
 */
async function widgetAnswers(s: Started) {
  const user = await userOf(s);
  const project = uniqueName('shop');
  const created = await s.admin.post('/api/v1/projects', {
    name: project, destinations: [{ namespace: 'dev' }],
    roles: [{ name: 'widgeteer', policies: ['widgets/*, get, allow', 'widgets/*, create, allow', 'instances/*, get, allow'], users: [user.username] }],
  });
  // The same member without widgets, so can-i has a project to answer about on either server.
  const plain = uniqueName('plain');
  expect((await s.admin.post('/api/v1/projects', { name: plain, destinations: [{ namespace: 'dev' }], roles: [{ name: 'viewer', policies: ['instances/*, get, allow'], users: [user.username] }] })).status).toBe(201);
  const canI = async (resource: string, action: string, object: string) => {
    const res = await user.get(`/api/v1/account/can-i/${resource}/${action}/${object}`);
    return res.status === 200 ? `${res.status} ${res.body.value}` : `${res.status} ${res.body.code}`;
  };
  const summary = (await user.get('/api/v1/account/can-i')).body as { projects: Record<string, { permissions: Record<string, boolean> }> };
  const unknown = await user.get(`/api/v1/account/can-i/gadgets/get/${plain}`);
  return {
    project: { status: created.status, message: created.status === 201 ? undefined : (created.body.message as string) },
    storedPolicies: created.status === 201 ? (await s.admin.get(`/api/v1/projects/${project}`)).body.roles?.[0]?.policies : (await s.admin.get(`/api/v1/projects/${project}`)).status,
    canIGet: await canI('widgets', 'get', created.status === 201 ? project : plain),
    canIDelete: await canI('widgets', 'delete', created.status === 201 ? project : plain),
    canIAny: await canI('widgets', 'get', '*'),
    canIInstances: await canI('instances', 'get', plain),
    summaryKeys: Object.values(summary.projects).flatMap((p) => Object.keys(p.permissions).filter((k) => k.startsWith('widgets:'))).sort(),
    unknownResourceNamesWidgets: unknown.status === 400 && /\bwidgets\b/.test(unknown.body.message as string),
    route: (await user.post(`/api/v1/widgets/${created.status === 201 ? project : plain}`, { name: 'sprocket' })).status,
    docsTableListsWidgets: s.portico.vocabulary.docsTable().includes('| widgets | `widgets/<p>/<name>` |'),
  };
}

/** What a Portico with the plugin answers, and what one without it answers, about widgets. */
const withPlugin = {
  project: { status: 201, message: undefined },
  storedPolicies: ['widgets/*, get, allow', 'widgets/*, create, allow', 'instances/*, get, allow'],
  canIGet: '200 yes', canIDelete: '200 no', canIAny: '200 yes', canIInstances: '200 yes',
  summaryKeys: ['widgets:create', 'widgets:create', 'widgets:get', 'widgets:get'],
  unknownResourceNamesWidgets: true, route: 201, docsTableListsWidgets: true,
};
const withoutPlugin = {
  project: { status: 400, message: expect.stringContaining('widgets') },
  storedPolicies: 404,
  canIGet: '400 BAD_REQUEST', canIDelete: '400 BAD_REQUEST', canIAny: '400 BAD_REQUEST', canIInstances: '200 yes',
  summaryKeys: [], unknownResourceNamesWidgets: false, route: 404, docsTableListsWidgets: false,
};

describe('two servers with different plugins in one process see only their own vocabulary', () => {
  it.each([
    ['the OSS server starts first', 'oss'],
    ['the plugin server starts first', 'plugin'],
  ] as const)('%s: each answers from its own rows, and the one that started first answers the same after the other started', async (_title, first) => {
    const plugin = widgetsPlugin();
    const expected = { oss: withoutPlugin, plugin: withPlugin };
    const servers: Partial<Record<'oss' | 'plugin', Started>> = {};
    const boot = async (which: 'oss' | 'plugin') => (servers[which] = await start(which === 'plugin' ? plugin : undefined));

    await boot(first);
    expect(await widgetAnswers(servers[first]!)).toMatchObject(expected[first]);
    const second = first === 'oss' ? 'plugin' : 'oss';
    await boot(second);
    expect(await widgetAnswers(servers[second]!)).toMatchObject(expected[second]);
    expect(await widgetAnswers(servers[first]!)).toMatchObject(expected[first]);

    // The plugin's hook saw its own Portico's operations (each widget it made, each project created there: two
    // per round of answers) and none of the other server's.
    const rounds = first === 'plugin' ? 2 : 1;
    const made = plugin.operations.filter((o) => o.id === 'widgets.create');
    expect(made.map((o) => `${o.action} ${o.resource} ${o.name}`)).toEqual(Array(rounds).fill('create widgets sprocket'));
    expect(plugin.operations.filter((o) => o.id === 'projects.create')).toHaveLength(2 * rounds);
    const ossProjects = (await servers.oss!.admin.get('/api/v1/projects')).body.items.map((p: { name: string }) => p.name) as string[];
    const ossCreated = ossProjects.filter((name) => /^(shop|plain)-/.test(name));
    expect(ossCreated.length).toBeGreaterThan(0);
    expect(plugin.operations.filter((o) => ossCreated.includes(o.project ?? o.name))).toEqual([]);
  });
});
