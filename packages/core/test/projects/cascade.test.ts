import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type * as api from '@portico/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { systemActor } from '../../src/actor.js';
import { loadConfig } from '../../src/config.js';
import { isPorticoError } from '../../src/errors.js';
import { createLogger } from '../../src/logger.js';
import { createMemoryKeyValue } from '../../src/adapters/memory-kv.js';
import { wrapKv } from '../support/wrap-kv.js';
import type { OperationHook } from '../../src/operations/index.js';
import { createPortico } from '../../src/portico.js';
import { resources, type KubeObject } from '../../src/ports/cluster.js';
import { createInformer } from '../../src/cluster/informer.js';
import { createProjects, defaultRoles } from '../../src/projects/index.js';
import type { DomainEvent, InstanceKey, Portico } from '../../src/types.js';

// Contract §14: a project that still has instances is refused with their count; with cascade its instances
// go first (each its own audited instances.delete, Git modes through their repository), then its Secrets and
// the project, with deploy_progress per instance. Core alone, as an embedding program calls it.

const sampleCatalog = fileURLToPath(new URL('../../../../examples/catalog', import.meta.url));
const git = promisify(execFile);

const root = systemActor('root');
const dana = systemActor('dana');
const vera = systemActor('vera');
const olga = systemActor('olga');

let portico: Portico;
let dataDir: string;
let repo: string;
let counter = 0;
const operations: { id: string; name: string; project?: string; input: unknown; result: 'ok' | string }[] = [];
const progress: (api.DeployProgress & { veraMaySee: boolean })[] = [];
const busDelayMs = 50;

/** Runs before the next operation with this id (then is forgotten): to change the world in the middle of a cascade. */
const before = new Map<string, () => Promise<void>>();

const record: OperationHook = async (operation, run) => {
  const first = before.get(operation.id);
  before.delete(operation.id);
  await first?.();
  try {
    const value = await run();
    operations.push({ id: operation.id, name: operation.name, project: operation.project, input: operation.input, result: 'ok' });
    return value;
  } catch (err) {
    operations.push({ id: operation.id, name: operation.name, project: operation.project, input: operation.input, result: isPorticoError(err) ? err.code : 'error' });
    throw err;
  }
};

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'portico-cascade-'));
  repo = await mkdtemp(path.join(tmpdir(), 'portico-cascade-git-'));
  const config = loadConfig({
    PORTICO_PROFILE: 'development',
    PORTICO_DATA_DIR: dataDir,
    PORTICO_MANIFESTS: sampleCatalog,
    PORTICO_KV: 'memory',
    PORTICO_KRO_STEP_MS: '5',
    PORTICO_GITOPS_REPO: repo,
    PORTICO_RATE_LIMITS: '0',
    ADMIN_PASSWORD: 'cascade-test-password',
    SERVER_ADMINS: 'user:root',
  });
  // The event bus takes a while to hand each message back, as a busy Redis does: whatever a frame's receivers
  // may see is decided when it arrives, and a cascade must not have removed the project by then.
  const memory = createMemoryKeyValue();
  const kv = wrapKv(memory, { subscribe: (channel, onMessage, onGap) => memory.subscribe(channel, (m) => void setTimeout(() => onMessage(m), busDelayMs), onGap) });
  portico = await createPortico({ config, kv, logger: createLogger('silent'), hooks: [record] });
  portico.events.onEvent((event: DomainEvent) => {
    // What a socket of vera, the project's viewer, would be let through at delivery (the WebSocket's own rule).
    if (event.type === 'deploy_progress') progress.push({ ...(event.data as api.DeployProgress), veraMaySee: portico.authz.can(vera, 'get', event.object!) });
  });
});
afterAll(async () => {
  await portico?.stop();
  await rm(dataDir, { recursive: true, force: true });
  await rm(repo, { recursive: true, force: true });
});

/** A project deploying to dev: dana is a developer, vera a viewer; with a Secret in dev. */
async function project(): Promise<string> {
  const name = `cascade-${++counter}`;
  const roles = defaultRoles().map((r) => ({ ...r, users: r.name === 'developer' ? ['dana'] : r.name === 'viewer' ? ['vera'] : [] }));
  await portico.projects.create(root, { name, description: '', destinations: [{ namespace: 'dev' }], roles });
  await portico.secrets.create(root, name, { name: `${name}-db`, namespace: 'dev', data: { password: 'hunter2' } });
  return name;
}

async function deploy(projectName: string, name: string, deploymentMode = 'direct'): Promise<InstanceKey> {
  await portico.instances.create(dana, { name, namespace: 'dev', project: projectName, kind: 'WebApp', values: { image: 'nginx:1.27' }, deploymentMode });
  return { namespace: 'dev', kind: 'WebApp', name };
}

/** Polls until `ok` holds (a throw counts as not yet). */
async function until(ok: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      if (ok()) return;
    } catch {
      // not there yet
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const healthy = (key: InstanceKey) => until(() => portico.instances.get(root, key).health === 'Healthy', `${key.name} to be Healthy`);

async function failure(fn: () => Promise<unknown>) {
  try {
    await fn();
  } catch (error) {
    if (isPorticoError(error)) return error;
    throw error;
  }
  throw new Error('expected a PorticoError');
}

const webApps = () => portico.cluster.discover('kro.run', 'v1alpha1', 'WebApp').then((ref) => ref!);
const secretsOf = async (projectName: string) =>
  (await portico.cluster.list(resources.secret, { labelSelector: `portico.dev/project=${projectName}` })).items.map((s) => s.metadata.name);
const eventsAbout = async (name: string) =>
  (await portico.cluster.list(resources.event, { namespace: 'dev' })).items.filter((e) => String((e.involvedObject as { name?: string }).name).startsWith(name));

describe('deleting a project that still has instances', () => {
  it('is CONFLICT with the number of instances, and changes nothing', async () => {
    const name = await project();
    const keys = [await deploy(name, `${name}-a`), await deploy(name, `${name}-b`)];

    const refused = await failure(() => portico.projects.delete(root, name));
    expect(refused.code).toBe('CONFLICT');
    expect(refused.details).toEqual({ instances: 2 });

    expect(portico.projects.get(root, name).name).toBe(name);
    for (const key of keys) expect(portico.instances.get(dana, key).name).toBe(key.name);
    expect(await secretsOf(name)).toEqual([`${name}-db`]);
    expect(operations.filter((o) => o.project === name && o.id !== 'instances.create' && o.id !== 'projects.create' && o.id !== 'secrets.create')).toEqual([
      { id: 'projects.delete', name, project: name, input: { name }, result: 'CONFLICT' },
    ]);
  });

  it('is FORBIDDEN to a member and NOT_FOUND to an outsider, with or without cascade, and neither learns the count', async () => {
    const name = await project();
    const key = await deploy(name, `${name}-a`);
    for (const cascade of [false, true]) {
      const member = await failure(() => portico.projects.delete(vera, name, { cascade }));
      expect(member.code).toBe('FORBIDDEN');
      expect(JSON.stringify(member.details)).not.toContain('instances');
      expect(member.message).not.toMatch(/instance/);
      const outsider = await failure(() => portico.projects.delete(olga, name, { cascade }));
      expect(outsider.code).toBe('NOT_FOUND');
      expect(outsider.details).toEqual({ resource: 'project', identifier: name });
    }
    expect(portico.instances.get(dana, key).name).toBe(key.name);
    expect(portico.projects.get(vera, name).name).toBe(name);
  });
});

describe('deleting a project with cascade', () => {
  it('deletes every instance first, each as its own operation, then the Secrets and the project: nothing is left in the cluster', async () => {
    const name = await project();
    const direct = await deploy(name, `${name}-web`);
    const hybrid = await deploy(name, `${name}-hyb`, 'hybrid');
    await healthy(direct);
    await healthy(hybrid);
    expect((await eventsAbout(direct.name)).length).toBeGreaterThan(0);
    const ref = await webApps();
    const manifest = path.join(repo, name, 'dev', 'WebApp', `${hybrid.name}.yaml`);
    expect(existsSync(manifest)).toBe(true);
    operations.length = 0;

    await portico.projects.delete(root, name, { cascade: true });

    // The instances are gone from the cluster (kro has finished with them), then the project after them.
    expect(await portico.cluster.get(ref, direct.name, 'dev')).toBeUndefined();
    expect(await portico.cluster.get(ref, hybrid.name, 'dev')).toBeUndefined();
    expect(await portico.cluster.get(resources.project, name, portico.config.kubernetes.namespace)).toBeUndefined();
    expect(await secretsOf(name)).toEqual([]);
    expect(await eventsAbout(direct.name)).toEqual([]);
    expect(await eventsAbout(hybrid.name)).toEqual([]);
    expect(portico.authz.can(vera, 'get', `projects/${name}`)).toBe(false);
    // The hybrid instance went through its repository: its manifest is removed in a commit of its own.
    expect(existsSync(manifest)).toBe(false);
    const { stdout } = await git('git', ['-C', repo, 'log', '--format=%s', '-n', '5']);
    expect(stdout).toContain(`Delete WebApp dev/${hybrid.name} in project ${name}`);

    expect(operations).toEqual([
      { id: 'instances.delete', name: direct.name, project: name, input: direct, result: 'ok' },
      { id: 'instances.delete', name: hybrid.name, project: name, input: hybrid, result: 'ok' },
      { id: 'projects.delete', name, project: name, input: { name, cascade: true }, result: 'ok' },
    ]);

    const ofProject = progress.filter((p) => p.project === name);
    expect(ofProject.filter((p) => !p.veraMaySee)).toEqual([]);
    const reported = ofProject.map((p) => [p.name, p.phase, p.message]);
    expect(reported).toEqual(
      expect.arrayContaining([
        [direct.name, 'DELETING', `deleting (1 of 2): project "${name}" is being deleted`],
        [hybrid.name, 'DELETING', `deleting (2 of 2): project "${name}" is being deleted`],
        [direct.name, 'DELETED', 'deleted (1 of 2)'],
        [hybrid.name, 'DELETED', 'deleted (2 of 2)'],
      ]),
    );
  });

  it('deletes a gitops instance the way its mode deletes: its manifest leaves Git and its controller prunes it', async () => {
    const name = await project();
    const key = await deploy(name, `${name}-git`, 'gitops');
    const manifest = path.join(repo, name, 'dev', 'WebApp', `${key.name}.yaml`);
    // The GitOps controller (Argo CD, Flux) applies the commit: the instance is now in the cluster.
    await portico.cluster.create(await webApps(), YAML.parse(await readFile(manifest, 'utf8')) as KubeObject);
    await until(() => portico.instances.get(root, key).deploymentMode === 'gitops', 'the applied instance to be indexed');
    expect((await failure(() => portico.projects.delete(root, name))).details).toEqual({ instances: 1 });

    await portico.projects.delete(root, name, { cascade: true });

    expect(existsSync(manifest)).toBe(false);
    const { stdout } = await git('git', ['-C', repo, 'log', '--format=%s', '-n', '1']);
    expect(stdout.trim()).toBe(`Delete WebApp dev/${key.name} in project ${name}`);
    expect(await portico.cluster.get(resources.project, name, portico.config.kubernetes.namespace)).toBeUndefined();
    const reported = progress.filter((p) => p.name === key.name).map((p) => p.message);
    expect(reported).toEqual(expect.arrayContaining([expect.stringMatching(/^removed from Git in commit [0-9a-f]{12} \(1 of 1\); its GitOps controller prunes it$/)]));
  });

  it('takes an instance deleted by someone else in the meantime as deleted, and goes on', async () => {
    const name = await project();
    const [first, second] = [await deploy(name, `${name}-a`), await deploy(name, `${name}-b`)];
    const ref = await webApps();
    // Once the cascade has listed both, the second is deleted with kubectl before the cascade gets to it.
    before.set('instances.delete', async () => {
      await portico.cluster.delete(ref, second.name, 'dev');
      await until(() => ![...portico.instances.indexed.all()].some((i) => i.instance.name === second.name), 'the second instance to go');
    });

    await portico.projects.delete(root, name, { cascade: true });

    expect(await portico.cluster.get(ref, first.name, 'dev')).toBeUndefined();
    expect(await portico.cluster.get(ref, second.name, 'dev')).toBeUndefined();
    expect(await portico.cluster.get(resources.project, name, portico.config.kubernetes.namespace)).toBeUndefined();
    expect(progress.filter((p) => p.name === second.name).map((p) => p.phase)).toContain('DELETED');
  });

  it('keeps the project, 409 with the instances still there, while kro has not removed them in time; deleting again finishes', async () => {
    const name = await project();
    const key = await deploy(name, `${name}-held`);
    await healthy(key);
    const ref = await webApps();
    // Something besides kro holds the instance (a finalizer of another controller): it stays, being deleted.
    const held = (await portico.cluster.get(ref, key.name, 'dev'))!;
    const hold = 'test.portico.dev/hold';
    await portico.cluster.patch(ref, key.name, { metadata: { finalizers: [...(held.metadata.finalizers ?? []), hold] } }, { namespace: 'dev' });
    // The same service as createPortico's, but waiting a moment only.
    const informer = createInformer(portico.cluster, resources.project, { namespace: portico.config.kubernetes.namespace });
    await informer.start();
    const { indexed } = portico.instances;
    const impatient = createProjects({
      cluster: portico.cluster, projects: informer, authz: portico.authz, config: portico.config, events: portico.events, catalog: { entry: () => undefined },
      validateRoles: () => undefined, cascadeWaitMs: 300,
      instances: {
        index: {
          inProject: (p) => [...indexed.all()].filter((i) => i.project === p),
          get: (k) => [...indexed.all()].find((i) => i.instance.namespace === k.namespace && i.instance.kind === k.kind && i.instance.name === k.name),
          onChange: (listener) => indexed.onChange(listener),
        },
        service: portico.instances,
      },
    });
    try {
      const kept = await failure(() => impatient.delete(root, name, { cascade: true }));
      expect(kept.code).toBe('CONFLICT');
      expect(kept.details).toEqual({ instances: 1 });
      expect(portico.projects.get(vera, name).name).toBe(name);
      expect(await secretsOf(name)).toEqual([`${name}-db`]);
      expect((await portico.cluster.get(ref, key.name, 'dev'))?.metadata.deletionTimestamp).toBeDefined();

      const current = (await portico.cluster.get(ref, key.name, 'dev'))!;
      await portico.cluster.patch(ref, key.name, { metadata: { finalizers: current.metadata.finalizers!.filter((f) => f !== hold) } }, { namespace: 'dev' });
      await impatient.delete(root, name, { cascade: true });
      expect(await portico.cluster.get(resources.project, name, portico.config.kubernetes.namespace)).toBeUndefined();
      expect(progress.filter((p) => p.name === key.name).map((p) => p.message)).toContain('already being deleted (1 of 1)');
    } finally {
      informer.stop();
    }
  });

  it('on a project without instances deletes its Secrets and the project, and is the same with or without cascade', async () => {
    for (const cascade of [false, true]) {
      const name = await project();
      await portico.projects.delete(root, name, { cascade });
      expect(await secretsOf(name)).toEqual([]);
      expect(await portico.cluster.get(resources.project, name, portico.config.kubernetes.namespace)).toBeUndefined();
    }
  });
});
