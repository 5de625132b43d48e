import { ossRbacVocabulary } from '@portico/api';
import { createOperationRunner } from '@portico/core';
import { Writable } from 'node:stream';
import type * as api from '@portico/api';
import {
  createLogger,
  loadConfig,
  systemActor,
  unauthorized,
  type Actor,
  type CreateInstanceInput,
  type InstanceKey,
  type Portico,
  type PorticoConfig,
} from '@portico/core';

export const goodToken = 'good-token';
export const fakeActor: Actor = { ...systemActor('alice', ['devs']), email: 'alice@example.com', displayName: 'Alice', local: true };

/** What the fake saw, so tests can assert what the server passed to the domain. */
export interface FakeCalls {
  instanceCreates: { actor: Actor; input: CreateInstanceInput }[];
  instanceKeys: { op: 'get' | 'patch' | 'delete'; key: InstanceKey; body?: unknown }[];
  rgdQueries: api.RgdListQuery[];
  logins: { input: api.LocalLoginRequest; ip: string; requestId?: string }[];
  logouts: Actor[];
}

export interface FakePortico extends Portico {
  calls: FakeCalls;
  /** Every log line written, parsed. */
  logs: Record<string, unknown>[];
}

type Overrides = { [K in keyof Portico]?: Partial<Portico[K]> };

const notFaked = (what: string) => () => {
  throw new Error(`fake portico: ${what} not faked`);
};

const instance = (input: Partial<api.Instance>): api.Instance => ({
  name: 'shop',
  namespace: 'dev',
  isClusterScoped: false,
  project: 'alpha',
  rgdName: 'webapp',
  apiVersion: 'kro.run/v1alpha1',
  kind: 'WebApp',
  spec: {},
  status: { state: 'ACTIVE', conditions: [] },
  health: 'Healthy',
  conditions: [],
  deploymentMode: 'direct',
  labels: {},
  createdAt: '2026-01-01T00:00:00Z',
  createdBy: 'user:alice',
  updatedAt: '2026-01-01T00:00:00Z',
  resourceVersion: '1',
  uid: 'uid-1',
  ...input,
});

/**
 * A small stand-in for the domain: enough behaviour to exercise the HTTP layer (tokens, a list that echoes
 * its query, instance calls recorded), everything else throws a plain Error (which must become a 500).
 */
export function fakePortico(opts: { env?: Record<string, string>; config?: Partial<PorticoConfig>; overrides?: Overrides } = {}): FakePortico {
  const config: PorticoConfig = { ...loadConfig({ LOG_LEVEL: 'debug', ...opts.env }), ...opts.config };
  const logs: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) logs.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const logger = createLogger('debug', sink);
  const calls: FakeCalls = { instanceCreates: [], instanceKeys: [], rgdQueries: [], logins: [], logouts: [] };
  const session = (): api.LoginResponse => ({
    token: goodToken,
    expiresAt: '2026-01-01T01:00:00Z',
    user: { id: 'alice', email: 'alice@example.com', displayName: 'Alice', groups: ['devs'], projects: [], roles: {}, casbinRoles: [] },
  });

  const base: Portico = {
    config,
    logger,
    cluster: {} as Portico['cluster'],
    kv: {} as Portico['kv'],
    projectObjects: {} as Portico['projectObjects'],
    authz: {} as Portico['authz'],
    // Unlimited: these tests are about the pipeline, the rate limits have their own.
    limits: {
      rules: {} as Portico['limits']['rules'],
      check: async () => undefined,
      lockout: {} as Portico['limits']['lockout'],
      upgradeLockout: {} as Portico['limits']['upgradeLockout'],
    },
    auth: {
      onSessionsRevoked: () => ({ close: () => undefined }),
      sessionValid: async () => true,
      async verifyToken(token) {
        if (token !== goodToken) throw unauthorized('invalid token');
        return fakeActor;
      },
      async localLogin(input, ctx) {
        calls.logins.push({ input, ip: ctx.ip, requestId: ctx.requestId });
        if (input.password !== 'right') throw unauthorized('invalid username or password');
        return session();
      },
      async tokenExchange() {
        return session();
      },
      async logout(actor) {
        calls.logouts.push(actor);
        return { message: 'logged out' };
      },
      async oidcLogin(query) {
        return `https://idp.example.com/authorize?provider=${query.provider ?? ''}`;
      },
      async oidcCallback() {
        return '/login/done?code=one-time';
      },
      ssoProviders: () => ({ providers: [], options: [], localLoginEnabled: true }),
      ssoProviderList: () => [],
      issueTicket: async () => ({ ticket: 't', expiresAt: '2026-01-01T00:00:30Z' }),
      redeemTicket: notFaked('auth.redeemTicket'),
      describe: notFaked('auth.describe'),
    },
    repositories: {
      list: notFaked('repositories.list'), get: notFaked('repositories.get'), create: notFaked('repositories.create'), update: notFaked('repositories.update'),
      delete: notFaked('repositories.delete'), testConnection: notFaked('repositories.testConnection'), test: notFaked('repositories.test'),
    },
    ssoProviders: { get: notFaked('ssoProviders.get'), create: notFaked('ssoProviders.create'), update: notFaked('ssoProviders.update'), delete: notFaked('ssoProviders.delete') },
    projectTokens: { create: notFaked('projectTokens.create'), list: notFaked('projectTokens.list'), delete: notFaked('projectTokens.delete') },
    accounts: { list: notFaked('accounts.list'), create: notFaked('accounts.create'), delete: async () => {}, changePassword: notFaked('accounts.changePassword') },
    catalog: {
      list(_actor, query) {
        calls.rgdQueries.push(query);
        return { items: [], totalCount: 0, page: query.page, pageSize: query.pageSize };
      },
      get: notFaked('catalog.get'),
      count: () => ({ count: 3 }),
      filters: notFaked('catalog.filters'),
      entries: () => [],
      entry: () => undefined,
      visibleTo: () => false,
      schemaOf: notFaked('catalog.schemaOf'),
      formSchema: notFaked('catalog.formSchema'),
      graph: notFaked('catalog.graph'),
      revisions: notFaked('catalog.revisions'),
      revision: notFaked('catalog.revision'),
      revisionDiff: notFaked('catalog.revisionDiff'),
    },
    projects: {
      list: () => ({ items: [], totalCount: 0 }),
      create: async (_actor, input) => ({
        name: input.name,
        description: input.description,
        destinations: input.destinations,
        roles: [],
        resourceVersion: '1',
        createdAt: '2026-01-01T00:00:00Z',
        createdBy: 'user:alice',
      }),
      get: notFaked('projects.get'),
      update: notFaked('projects.update'),
      delete: async () => {},
      namespaces: notFaked('projects.namespaces'),
      bind: async (_actor, name, role, type, subject) => ({ project: name, role, type, subject }),
      unbind: async () => {},
      roleBindings: notFaked('projects.roleBindings'),
    },
    secrets: {
      list: notFaked('secrets.list'), create: notFaked('secrets.create'), get: notFaked('secrets.get'), update: notFaked('secrets.update'), delete: notFaked('secrets.delete'),
      page: notFaked('secrets.page'), exists: notFaked('secrets.exists'), reveal: notFaked('secrets.reveal'), upsertKeys: notFaked('secrets.upsertKeys'), remove: notFaked('secrets.remove'),
    },
    access: { canISummary: notFaked('access.canISummary'), canI: () => ({ value: 'no' }), accountInfo: notFaked('access.accountInfo') },
    instances: {
      preflight: notFaked('instances.preflight'),
      async create(actor, input) {
        calls.instanceCreates.push({ actor, input });
        return instance({ name: input.name, namespace: input.namespace, project: input.project, kind: input.kind ?? 'WebApp' });
      },
      list: notFaked('instances.list'),
      count: () => ({ count: 0 }),
      get(_actor, key) {
        calls.instanceKeys.push({ op: 'get', key });
        return instance({ ...key });
      },
      async patch(_actor, key, body) {
        calls.instanceKeys.push({ op: 'patch', key, body });
        return instance({ ...key, spec: body.spec });
      },
      async delete(_actor, key) {
        calls.instanceKeys.push({ op: 'delete', key });
        return instance({ ...key });
      },
      events: notFaked('instances.events'),
      timeline: notFaked('instances.timeline'),
      children: notFaked('instances.children'),
      history: notFaked('instances.history'),
      historyExport: notFaked('instances.historyExport'),
      instanceCounts: () => new Map(),
      addAdmission: () => ({ close() {} }),
      indexed: { all: () => [], onChange: () => ({ close() {} }), onKindIndexed: () => ({ close() {} }) },
    },
    settings: { get: () => ({ organization: 'default' }) },
    preferences: { get: notFaked('preferences.get'), update: notFaked('preferences.update') },
    icons: { get: notFaked('icons.get'), start: () => undefined, stop: () => undefined },
    clusterDiscovery: { apiResources: notFaked('clusterDiscovery.apiResources') },
    events: { onEvent: () => ({ close() {} }), publish: async () => {} },
    vocabulary: ossRbacVocabulary,
    operations: createOperationRunner([], () => undefined),
    eventStreams: { add: () => ({ close() {} }), list: () => [] },
    readiness: async () => ({ status: 'ok', components: { cluster: { ok: true } } }),
    stop: async () => {},
  };

  const portico = base as FakePortico;
  for (const [key, value] of Object.entries(opts.overrides ?? {})) {
    const target = portico[key as keyof Portico];
    if (typeof value === 'function' || typeof target !== 'object' || target === null) (portico as unknown as Record<string, unknown>)[key] = value;
    else Object.assign(target, value);
  }
  portico.calls = calls;
  portico.logs = logs;
  return portico;
}
