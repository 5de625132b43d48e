import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as api from '@portico/api';
import * as ee from '@portico/api/enterprise';
import { createLogger, createPortico, isPorticoError, loadConfig, type Actor, type Operation, type OperationHook, type Portico } from '@portico/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiAs, uniqueName, type ApiAs, type Reply } from '../../server/test/support/api-as.js';
import { login, sampleCatalog } from '../../server/test/support/portico.js';
import { enterpriseCorePlugin } from '../src/core-plugin.js';
import { createEnterprise, openEnterpriseDatabase, type Enterprise } from '../src/enterprise.js';
import { createTestDatabase } from './support/db.js';
import { exampleKeysFile, issueLicense } from './support/license.js';
import { startEnterpriseServer, type EnterpriseServer } from './support/server.js';

/**
 * Issue acceptance: an embedding program that calls core (and the Enterprise services) directly with an
 * operation hook records the same operations as the same calls made over HTTP. One list of mutations runs both
 * ways, each against its own cluster and PostgreSQL schema with the same names, so the records compare as they are.
 */

type Result = 'success' | 'denied' | 'error';

/** What an embedding program's audit hook would keep of an operation. */
interface OperationRecord {
  actor?: string;
  action: string;
  resource: string;
  name: string;
  project?: string;
  namespace?: string;
  result: Result;
  /** The error code, when the operation failed. */
  code?: string;
}

const recordOf = ({ actor, action, resource, name, project, namespace }: Operation, result: Result, code?: string): OperationRecord =>
  ({ actor: actor?.id, action, resource, name, project, namespace, result, code });

/** A hook that records every operation once it has finished (the project of an instance is known only then). */
function capturingHook(): { hook: OperationHook; records: OperationRecord[] } {
  const records: OperationRecord[] = [];
  const hook: OperationHook = async (operation, run) => {
    try {
      const value = await run();
      records.push(recordOf(operation, 'success'));
      return value;
    } catch (error) {
      const code = isPorticoError(error) ? error.code : 'INTERNAL_ERROR';
      records.push(recordOf(operation, code === 'FORBIDDEN' || code === 'UNAUTHORIZED' ? 'denied' : 'error', code));
      throw error;
    }
  };
  return { hook, records };
}

/** One side's callers, and values a step hands to a later one (resource versions). */
interface DirectSide {
  portico: Portico;
  enterprise: Enterprise;
  admin: Actor;
  bob: Actor;
  memo: Map<string, string>;
}
interface HttpSide {
  admin: ApiAs;
  bob: ApiAs;
  memo: Map<string, string>;
}

/** The embedding program: Portico and the Enterprise services wired as the edition wires them, no HTTP server. */
async function startEmbeddingProgram(hook: OperationHook, bobName: string) {
  const db = await createTestDatabase();
  const dir = await mkdtemp(join(tmpdir(), 'portico-parity-'));
  const licenseFile = join(dir, 'license.jwt');
  await writeFile(licenseFile, issueLicense());
  const adminPassword = `admin-${randomUUID()}`;
  const logger = createLogger('silent');
  const config = loadConfig({
    PORTICO_PROFILE: 'development', PORTICO_DATA_DIR: join(dir, 'data'), PORTICO_MANIFESTS: sampleCatalog, ADMIN_PASSWORD: adminPassword,
    PORTICO_KRO_STEP_MS: '10', PORTICO_RATE_LIMITS: '0', PORTICO_KV: 'memory',
  });
  const eeConfig = { databaseUrl: db.url, schema: db.schema, licenseKeysFile: exampleKeysFile, licenseFile };
  const database = openEnterpriseDatabase(eeConfig, logger, { connectTimeoutMs: 1_000 });
  const portico = await createPortico({ config, logger, hooks: [hook], plugins: [enterpriseCorePlugin({ pool: database.pool, logger })] });
  const enterprise = await createEnterprise({ portico, logger, config: eeConfig, database });
  await enterprise.database.migrated();
  const signIn = async (username: string, password: string) =>
    portico.auth.verifyToken((await portico.auth.localLogin({ username, password }, { ip: '127.0.0.1' })).token);
  const admin = await signIn('admin', adminPassword);
  const bobPassword = `pw-${randomUUID()}`;
  await portico.accounts.create(admin, { username: bobName, password: bobPassword, groups: [] });
  const side: DirectSide = { portico, enterprise, admin, bob: await signIn(bobName, bobPassword), memo: new Map() };
  const close = async () => {
    for (const stop of [() => enterprise.stop(), () => portico.stop(), () => db.drop(), () => rm(dir, { recursive: true, force: true })]) await stop();
  };
  return { side, close };
}

/** The same over HTTP: the Enterprise server as its binary assembles it, given the same hook. */
async function startHttpSide(hook: OperationHook, bobName: string): Promise<{ server: EnterpriseServer; side: HttpSide }> {
  const server = await startEnterpriseServer({ mode: 'embedded', hooks: [hook], license: issueLicense() });
  const admin = apiAs(server.url, server.adminToken);
  const bobPassword = `pw-${randomUUID()}`;
  const created = await admin.post('/api/v1/accounts', { username: bobName, password: bobPassword, groups: [] });
  if (created.status !== 201) throw new Error(`creating ${bobName} answered ${created.status}`);
  return { server, side: { admin, bob: apiAs(server.url, await login(server.url, bobName, bobPassword)), memo: new Map() } };
}

async function eventually<T>(what: string, attempt: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await attempt().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** One mutation, said both ways, and the record it must leave on both sides. */
interface Step {
  what: string;
  direct(side: DirectSide): Promise<unknown>;
  http(side: HttpSide): Promise<Reply>;
  record: OperationRecord;
}

const names = {
  project: uniqueName('parity'),
  bob: uniqueName('bob'),
  app: uniqueName('shop'),
  missing: uniqueName('gone'),
  secret: uniqueName('db-creds'),
  category: uniqueName('queues'),
  view: uniqueName('data'),
};
const { project } = names;
const app = { namespace: 'dev', kind: 'WebApp', name: names.app };
const appPath = `/api/v1/namespaces/dev/instances/WebApp/${names.app}`;
const byAdmin = (record: Omit<OperationRecord, 'actor' | 'result'> & { result?: Result }): OperationRecord => ({ actor: 'admin', result: 'success', ...record });

const steps: Step[] = [
  {
    what: 'create a project',
    direct: async (s) => s.memo.set('project', (await s.portico.projects.create(s.admin, api.CreateProjectRequest.parse({ name: project, destinations: [{ namespace: 'dev' }] }))).resourceVersion),
    http: async (s) => {
      const reply = await s.admin.post('/api/v1/projects', { name: project, destinations: [{ namespace: 'dev' }] });
      s.memo.set('project', reply.body?.resourceVersion);
      return reply;
    },
    record: byAdmin({ action: 'create', resource: 'projects', name: project, project }),
  },
  {
    what: 'update the project',
    direct: (s) => s.portico.projects.update(s.admin, project, { description: 'changed', resourceVersion: s.memo.get('project')! }),
    http: (s) => s.admin.put(`/api/v1/projects/${project}`, { description: 'changed', resourceVersion: s.memo.get('project') }),
    record: byAdmin({ action: 'update', resource: 'projects', name: project, project }),
  },
  {
    what: 'bind a user',
    direct: (s) => s.portico.projects.bind(s.admin, project, 'developer', 'user', names.bob),
    http: (s) => s.admin.post(`/api/v1/projects/${project}/roles/developer/users/${names.bob}`),
    record: byAdmin({ action: 'member_add', resource: 'members', name: names.bob, project }),
  },
  {
    what: 'unbind the user',
    direct: (s) => s.portico.projects.unbind(s.admin, project, 'developer', 'user', names.bob),
    http: (s) => s.admin.del(`/api/v1/projects/${project}/roles/developer/users/${names.bob}`),
    record: byAdmin({ action: 'member_remove', resource: 'members', name: names.bob, project }),
  },
  {
    what: 'create an instance (and wait until it is served)',
    direct: async (s) => {
      await s.portico.instances.create(s.admin, { name: names.app, namespace: 'dev', kind: 'WebApp', project, values: { image: 'nginx:1.27' } });
      return eventually('the instance', async () => s.portico.instances.get(s.admin, app));
    },
    http: async (s) => {
      const reply = await s.admin.post('/api/v1/namespaces/dev/instances/WebApp', { name: names.app, project, values: { image: 'nginx:1.27' } });
      await eventually('the instance', async () => ((await s.admin.get(appPath)).status === 200 ? true : undefined));
      return reply;
    },
    record: byAdmin({ action: 'create', resource: 'instances', name: names.app, project, namespace: 'dev' }),
  },
  {
    what: 'patch the instance',
    direct: (s) => s.portico.instances.patch(s.admin, app, { spec: { replicas: 3 } }),
    http: (s) => s.admin.patch(appPath, { spec: { replicas: 3 } }),
    record: byAdmin({ action: 'update', resource: 'instances', name: names.app, project, namespace: 'dev' }),
  },
  {
    what: 'patch an instance that does not exist',
    direct: (s) => s.portico.instances.patch(s.admin, { ...app, name: names.missing }, { spec: { replicas: 3 } }),
    http: (s) => s.admin.patch(`/api/v1/namespaces/dev/instances/WebApp/${names.missing}`, { spec: { replicas: 3 } }),
    record: byAdmin({ action: 'update', resource: 'instances', name: names.missing, namespace: 'dev', result: 'error', code: 'NOT_FOUND' }),
  },
  {
    what: 'delete the instance',
    direct: (s) => s.portico.instances.delete(s.admin, app),
    http: (s) => s.admin.del(appPath),
    record: byAdmin({ action: 'delete', resource: 'instances', name: names.app, project, namespace: 'dev' }),
  },
  {
    what: 'create a project secret',
    direct: async (s) => s.memo.set('secret', (await s.portico.secrets.create(s.admin, project, { name: names.secret, namespace: 'dev', data: { password: 'first' } })).resourceVersion),
    http: async (s) => {
      const reply = await s.admin.post(`/api/v1/projects/${project}/secrets`, { name: names.secret, namespace: 'dev', data: { password: 'first' } });
      s.memo.set('secret', reply.body?.resourceVersion);
      return reply;
    },
    record: byAdmin({ action: 'create', resource: 'secrets', name: names.secret, project, namespace: 'dev' }),
  },
  {
    what: 'create the secret again',
    direct: (s) => s.portico.secrets.create(s.admin, project, { name: names.secret, namespace: 'dev', data: { password: 'again' } }),
    http: (s) => s.admin.post(`/api/v1/projects/${project}/secrets`, { name: names.secret, namespace: 'dev', data: { password: 'again' } }),
    record: byAdmin({ action: 'create', resource: 'secrets', name: names.secret, project, namespace: 'dev', result: 'error', code: 'CONFLICT' }),
  },
  {
    what: 'update the secret',
    direct: (s) => s.portico.secrets.update(s.admin, { name: project, namespace: 'dev', secret: names.secret }, { data: { password: 'second' }, resourceVersion: s.memo.get('secret')! }),
    http: (s) => s.admin.put(`/api/v1/projects/${project}/secrets/dev/${names.secret}`, { data: { password: 'second' }, resourceVersion: s.memo.get('secret') }),
    record: byAdmin({ action: 'update', resource: 'secrets', name: names.secret, project, namespace: 'dev' }),
  },
  {
    what: 'create a category',
    direct: (s) => s.enterprise.categories.create(s.admin, ee.CreateCategoryRequest.parse({ slug: names.category, name: 'Queues', icon: 'mail' })),
    http: (s) => s.admin.post('/api/v1/categories', { slug: names.category, name: 'Queues', icon: 'mail' }),
    record: byAdmin({ action: 'create', resource: 'categories', name: names.category }),
  },
  {
    what: 'create a category as a user who is no Server Admin',
    direct: (s) => s.enterprise.categories.create(s.bob, ee.CreateCategoryRequest.parse({ slug: `${names.category}-b`, name: 'Mine' })),
    http: (s) => s.bob.post('/api/v1/categories', { slug: `${names.category}-b`, name: 'Mine' }),
    record: { actor: names.bob, action: 'create', resource: 'categories', name: `${names.category}-b`, result: 'denied', code: 'FORBIDDEN' },
  },
  {
    what: 'update the category',
    direct: (s) => s.enterprise.categories.update(s.admin, names.category, ee.UpdateCategoryRequest.parse({ weight: 1 })),
    http: (s) => s.admin.put(`/api/v1/categories/${names.category}`, { weight: 1 }),
    record: byAdmin({ action: 'update', resource: 'categories', name: names.category }),
  },
  {
    what: 'delete the category',
    direct: (s) => s.enterprise.categories.delete(s.admin, names.category),
    http: (s) => s.admin.del(`/api/v1/categories/${names.category}`),
    record: byAdmin({ action: 'delete', resource: 'categories', name: names.category }),
  },
  {
    what: 'create a view',
    direct: (s) => s.enterprise.views.create(s.admin, ee.CreateViewRequest.parse({ slug: names.view, name: 'Data', filter: { categories: ['databases'] } })),
    http: (s) => s.admin.post('/api/v1/ee/views', { slug: names.view, name: 'Data', filter: { categories: ['databases'] } }),
    record: byAdmin({ action: 'create', resource: 'views', name: names.view }),
  },
  {
    what: 'update the view',
    direct: (s) => s.enterprise.views.update(s.admin, names.view, ee.UpdateViewRequest.parse({ name: 'Databases' })),
    http: (s) => s.admin.put(`/api/v1/ee/views/${names.view}`, { name: 'Databases' }),
    record: byAdmin({ action: 'update', resource: 'views', name: names.view }),
  },
  {
    what: 'delete the view',
    direct: (s) => s.enterprise.views.delete(s.admin, names.view),
    http: (s) => s.admin.del(`/api/v1/ee/views/${names.view}`),
    record: byAdmin({ action: 'delete', resource: 'views', name: names.view }),
  },
  {
    what: 'delete the view again',
    direct: (s) => s.enterprise.views.delete(s.admin, names.view),
    http: (s) => s.admin.del(`/api/v1/ee/views/${names.view}`),
    record: byAdmin({ action: 'delete', resource: 'views', name: names.view, result: 'error', code: 'NOT_FOUND' }),
  },
];

/** Runs the steps in order, each answering as its record says (a failure the step did not expect stops the run). */
async function runDirect(side: DirectSide): Promise<void> {
  for (const step of steps) {
    const outcome = await step.direct(side).then(
      () => 'success',
      (error: unknown) => (isPorticoError(error) ? error.code : String(error)),
    );
    if (outcome !== (step.record.code ?? 'success')) throw new Error(`directly, "${step.what}" answered ${outcome}`);
  }
}

async function runOverHttp(side: HttpSide): Promise<void> {
  for (const step of steps) {
    const reply = await step.http(side);
    const outcome = reply.status < 300 ? 'success' : (reply.body?.code as string);
    if (outcome !== (step.record.code ?? 'success')) throw new Error(`over HTTP, "${step.what}" answered ${reply.status} ${JSON.stringify(reply.body)}`);
  }
}

describe('one operation seam: an embedding program and the HTTP server record the same operations', () => {
  const direct = capturingHook();
  const overHttp = capturingHook();
  let closeEmbedding: (() => Promise<void>) | undefined;
  let server: EnterpriseServer | undefined;

  beforeAll(async () => {
    const [embedding, http] = await Promise.all([startEmbeddingProgram(direct.hook, names.bob), startHttpSide(overHttp.hook, names.bob)]);
    closeEmbedding = embedding.close;
    server = http.server;
    // Only the list under test: sign-ins, accounts and the license were recorded while setting up.
    direct.records.length = 0;
    overHttp.records.length = 0;
    await Promise.all([runDirect(embedding.side), runOverHttp(http.side)]);
  }, 120_000);

  afterAll(async () => {
    await closeEmbedding?.();
    await server?.close();
  });

  it('records the same list both ways: actor, action, resource, name, project, namespace and result', () => {
    expect(direct.records).toEqual(overHttp.records);
    expect(overHttp.records).toEqual(steps.map((step) => step.record));
  });

  it('records a secret as resource `secrets` named after the secret, in its project and namespace', () => {
    for (const records of [direct.records, overHttp.records]) {
      const secrets = records.filter((r) => r.resource === 'secrets');
      expect(secrets.map((r) => [r.action, r.name, r.project, r.namespace, r.result])).toEqual([
        ['create', names.secret, project, 'dev', 'success'],
        ['create', names.secret, project, 'dev', 'error'],
        ['update', names.secret, project, 'dev', 'success'],
      ]);
    }
  });

  it('records views as resource `views` named by their slug', () => {
    for (const records of [direct.records, overHttp.records]) {
      expect(records.filter((r) => r.name === names.view).map((r) => `${r.resource} ${r.action} ${r.result}`)).toEqual([
        'views create success', 'views update success', 'views delete success', 'views delete error',
      ]);
    }
  });

  it('records failures with their result on both sides: a 404 patch is an error, a refused category a denial', () => {
    for (const records of [direct.records, overHttp.records]) {
      expect(records.find((r) => r.name === names.missing)).toEqual({ actor: 'admin', action: 'update', resource: 'instances', name: names.missing, namespace: 'dev', result: 'error', code: 'NOT_FOUND' });
      expect(records.find((r) => r.actor === names.bob)).toMatchObject({ resource: 'categories', result: 'denied', code: 'FORBIDDEN' });
    }
  });
});
