import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPorticoError } from '../../src/errors.js';
import { resources, type Cluster, type Disposable, type KubeObject, type ResourceRef, type WatchEvent } from '../../src/ports/cluster.js';

/**
 * The behaviour every Cluster adapter must share (embedded, Kubernetes). It uses only the Cluster port,
 * creates everything under names unique to the run, and removes what it created.
 * Needs the Project CRD and kro (for the RGD discovery test) when run against a real cluster.
 */
export function clusterContract(name: string, setup: () => Promise<{ cluster: Cluster; cleanup: () => Promise<void> }>) {
  describe(`Cluster contract: ${name}`, () => {
    let cluster: Cluster;
    let cleanup: () => Promise<void>;
    const run = randomUUID().slice(0, 8);
    const nsA = `ct-${run}-a`;
    const nsB = `ct-${run}-b`;
    const runLabel = { 'portico.dev/contract-run': run };
    const created: { ref: ResourceRef; name: string; namespace?: string }[] = [];
    let counter = 0;
    const unique = (base: string) => `${base}-${run}-${++counter}`;

    const create = async (ref: ResourceRef, obj: KubeObject) => {
      const result = await cluster.create(ref, obj);
      created.push({ ref, name: result.metadata.name, namespace: result.metadata.namespace });
      return result;
    };
    const secret = (name: string, namespace: string, extra: Partial<KubeObject> = {}): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace, labels: { ...runLabel } },
      type: 'Opaque',
      data: { token: Buffer.from('s3cr3t').toString('base64') },
      ...extra,
    });
    const project = (name: string, namespace: string, spec: Record<string, unknown> = { description: 'contract' }): KubeObject => ({
      apiVersion: 'portico.dev/v1alpha1',
      kind: 'Project',
      metadata: { name, namespace, labels: { ...runLabel } },
      spec,
    });
    const expectError = async (promise: Promise<unknown>, code: string, reason?: string) => {
      const err = await promise.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isPorticoError(err), `expected PorticoError ${code}, got ${String(err)}`).toBe(true);
      if (!isPorticoError(err)) return;
      expect(err.code).toBe(code);
      if (reason) expect(err.details.reason).toBe(reason);
    };
    /** Collects watch events until `done` says enough (or the deadline passes). */
    const collect = (
      ref: ResourceRef,
      opts: { namespace?: string; resourceVersion: string },
      keep: (e: WatchEvent) => boolean,
    ): { events: WatchEvent[]; errors: { gone: boolean; message: string }[]; watch: Disposable } => {
      const events: WatchEvent[] = [];
      const errors: { gone: boolean; message: string }[] = [];
      const watch = cluster.watch(ref, opts, {
        onEvent: (e) => keep(e) && events.push(e),
        onError: (e) => errors.push(e),
      });
      return { events, errors, watch };
    };
    const eventually = async (check: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000) => {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        if (await check()) return;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`timed out waiting for ${what}`);
    };

    beforeAll(async () => {
      ({ cluster, cleanup } = await setup());
      for (const ns of [nsA, nsB]) {
        await create(resources.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels: { ...runLabel } } });
      }
    });

    afterAll(async () => {
      if (!cluster) return;
      for (const { ref, name, namespace } of created.reverse()) {
        const current = await cluster.get(ref, name, namespace).catch(() => undefined);
        if (!current) continue;
        if (current.metadata.finalizers?.length) {
          await cluster.patch(ref, name, { metadata: { finalizers: null } }, { namespace }).catch(() => undefined);
        }
        await cluster.delete(ref, name, namespace).catch(() => undefined);
      }
      await cleanup();
    });

    it('create sets server fields and get returns the stored object', async () => {
      const name = unique('create');
      const result = await create(resources.project, project(name, nsA));
      expect(result.apiVersion).toBe('portico.dev/v1alpha1');
      expect(result.kind).toBe('Project');
      expect(result.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
      expect(result.metadata.resourceVersion).toMatch(/^\d+$/);
      expect(result.metadata.generation).toBe(1);
      expect(result.metadata.creationTimestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
      const got = await cluster.get(resources.project, name, nsA);
      expect(got?.metadata.uid).toBe(result.metadata.uid);
      expect(got?.spec).toEqual({ description: 'contract' });
      expect(got?.metadata.labels).toEqual(runLabel);
    });

    it('returned objects are copies or frozen: mutating one does not change the store', async () => {
      const name = unique('copy');
      // The embedded cluster shares one frozen copy of each object version (a write throws); others copy.
      const tryToMutate = (object: KubeObject | undefined, value: string) => {
        try {
          object!.spec.description = value;
        } catch (err) {
          expect(err).toBeInstanceOf(TypeError);
        }
      };
      const result = await create(resources.project, project(name, nsA));
      tryToMutate(result, 'mutated');
      const got = await cluster.get(resources.project, name, nsA);
      expect(got?.spec.description).toBe('contract');
      tryToMutate(got, 'mutated again');
      expect((await cluster.get(resources.project, name, nsA))?.spec.description).toBe('contract');
      tryToMutate((await cluster.list(resources.project, { namespace: nsA })).items.find((o) => o.metadata.name === name), 'listed');
      expect((await cluster.get(resources.project, name, nsA))?.spec.description).toBe('contract');
    });

    it('create of an existing object is a CONFLICT with reason AlreadyExists', async () => {
      const name = unique('dup');
      await create(resources.secret, secret(name, nsA));
      await expectError(cluster.create(resources.secret, secret(name, nsA)), 'CONFLICT', 'AlreadyExists');
      // The same name in another namespace is a different object.
      await create(resources.secret, secret(name, nsB));
    });

    it('lists namespaced objects per namespace, across namespaces, and by label selector', async () => {
      const group = unique('grp');
      const a = unique('list');
      const b = unique('list');
      await create(resources.secret, secret(a, nsA, { metadata: { name: a, namespace: nsA, labels: { ...runLabel, group, tier: 'x' } } }));
      await create(resources.secret, secret(b, nsB, { metadata: { name: b, namespace: nsB, labels: { ...runLabel, group, tier: 'y' } } }));

      const inA = await cluster.list(resources.secret, { namespace: nsA, labelSelector: `group=${group}` });
      expect(inA.items.map((o) => o.metadata.name)).toEqual([a]);
      expect(inA.resourceVersion).toMatch(/^\d+$/);

      const everywhere = await cluster.list(resources.secret, { labelSelector: `group=${group}` });
      expect(everywhere.items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`).sort()).toEqual([`${nsA}/${a}`, `${nsB}/${b}`].sort());

      const both = await cluster.list(resources.secret, { labelSelector: `group=${group},tier=y` });
      expect(both.items.map((o) => o.metadata.name)).toEqual([b]);

      const none = await cluster.list(resources.secret, { labelSelector: `group=${group},tier=z` });
      expect(none.items).toEqual([]);
    });

    it('lists cluster-scoped objects', async () => {
      const list = await cluster.list(resources.namespace, { labelSelector: `portico.dev/contract-run=${run}` });
      expect(list.items.map((o) => o.metadata.name).sort()).toEqual([nsA, nsB]);
      expect(list.items.every((o) => o.metadata.namespace === undefined)).toBe(true);
      const ns = await cluster.get(resources.namespace, nsA);
      expect(ns?.metadata.name).toBe(nsA);
    });

    it('merge patch merges nested objects, null deletes, and only a spec change bumps generation', async () => {
      const name = unique('patch');
      await create(
        resources.project,
        project(name, nsA, { description: 'before', destinations: [{ namespace: 'one' }], settings: { keep: 'yes', drop: 'me' } }),
      );

      const labelled = await cluster.patch(resources.project, name, { metadata: { labels: { extra: 'label' }, annotations: { note: 'n' } } }, { namespace: nsA });
      expect(labelled.metadata.generation).toBe(1);
      expect(labelled.metadata.labels).toEqual({ ...runLabel, extra: 'label' });
      expect(labelled.metadata.annotations?.note).toBe('n');

      const patched = await cluster.patch(
        resources.project,
        name,
        { spec: { description: 'after', settings: { drop: null, added: 1 } }, metadata: { labels: { extra: null } } },
        { namespace: nsA },
      );
      expect(patched.metadata.generation).toBe(2);
      expect(patched.spec).toEqual({ description: 'after', destinations: [{ namespace: 'one' }], settings: { keep: 'yes', added: 1 } });
      expect(patched.metadata.labels).toEqual(runLabel);
      expect(Number(patched.metadata.resourceVersion)).toBeGreaterThan(Number(labelled.metadata.resourceVersion));

      const arrays = await cluster.patch(resources.project, name, { spec: { destinations: [{ namespace: 'two' }] } }, { namespace: nsA });
      expect(arrays.spec.destinations).toEqual([{ namespace: 'two' }]); // arrays are replaced, not merged
      expect(arrays.metadata.generation).toBe(3);
      expect((await cluster.get(resources.project, name, nsA))?.spec).toEqual(arrays.spec);
    });

    it('a patch with a stale resourceVersion is a CONFLICT; the current one succeeds', async () => {
      const name = unique('stale');
      const first = await create(resources.project, project(name, nsA));
      const second = await cluster.patch(resources.project, name, { spec: { description: 'v2' } }, { namespace: nsA, resourceVersion: first.metadata.resourceVersion });
      await expectError(
        cluster.patch(resources.project, name, { spec: { description: 'lost update' } }, { namespace: nsA, resourceVersion: first.metadata.resourceVersion }),
        'CONFLICT',
      );
      const third = await cluster.patch(resources.project, name, { spec: { description: 'v3' } }, { namespace: nsA, resourceVersion: second.metadata.resourceVersion });
      expect(third.spec.description).toBe('v3');
    });

    it('absent objects: get is undefined, patch and delete are NOT_FOUND', async () => {
      const name = unique('absent');
      expect(await cluster.get(resources.secret, name, nsA)).toBeUndefined();
      expect(await cluster.get(resources.namespace, name)).toBeUndefined();
      await expectError(cluster.patch(resources.secret, name, { metadata: { labels: { a: 'b' } } }, { namespace: nsA }), 'NOT_FOUND');
      await expectError(cluster.delete(resources.secret, name, nsA), 'NOT_FOUND');
    });

    it('delete removes an object', async () => {
      const name = unique('del');
      await create(resources.secret, secret(name, nsA));
      await cluster.delete(resources.secret, name, nsA);
      await eventually(async () => (await cluster.get(resources.secret, name, nsA)) === undefined, 'the secret to disappear');
      await expectError(cluster.delete(resources.secret, name, nsA), 'NOT_FOUND');
    });

    it('finalizers hold a deletion until they are removed', async () => {
      const name = unique('fin');
      await create(resources.project, { ...project(name, nsA), metadata: { name, namespace: nsA, finalizers: ['portico.dev/contract-test'] } });
      await cluster.delete(resources.project, name, nsA);
      const terminating = await cluster.get(resources.project, name, nsA);
      expect(terminating?.metadata.deletionTimestamp).toBeTruthy();
      expect(terminating?.metadata.finalizers).toEqual(['portico.dev/contract-test']);
      await cluster.patch(resources.project, name, { metadata: { finalizers: null } }, { namespace: nsA });
      await eventually(async () => (await cluster.get(resources.project, name, nsA)) === undefined, 'the project to be deleted');
    });

    it('watch from a list version delivers ADDED, MODIFIED, DELETED in order', async () => {
      const name = unique('watch');
      const { resourceVersion } = await cluster.list(resources.secret, { namespace: nsA });
      const w = collect(resources.secret, { namespace: nsA, resourceVersion }, (e) => e.object.metadata.name === name);
      try {
        await create(resources.secret, secret(name, nsA));
        await cluster.patch(resources.secret, name, { metadata: { labels: { step: 'two' } } }, { namespace: nsA });
        await cluster.delete(resources.secret, name, nsA);
        await eventually(() => w.events.length >= 3, 'three watch events');
        expect(w.events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
        expect(w.events[1].object.metadata.labels?.step).toBe('two');
        const versions = w.events.map((e) => Number(e.object.metadata.resourceVersion));
        expect([...versions].sort((x, y) => x - y)).toEqual(versions);
        expect(w.errors).toEqual([]);
      } finally {
        w.watch.close();
      }
    });

    it('a watch started after the changes replays them from the given version', async () => {
      const name = unique('replay');
      const { resourceVersion } = await cluster.list(resources.secret, { namespace: nsB });
      await create(resources.secret, secret(name, nsB));
      await cluster.patch(resources.secret, name, { metadata: { labels: { replay: 'yes' } } }, { namespace: nsB });
      const w = collect(resources.secret, { namespace: nsB, resourceVersion }, (e) => e.object.metadata.name === name);
      try {
        await eventually(() => w.events.length >= 2, 'two replayed events');
        expect(w.events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED']);
      } finally {
        w.watch.close();
      }
    });

    it('a watch only sees its namespace, and stops after close()', async () => {
      const name = unique('scoped');
      const marker = unique('marker');
      const { resourceVersion } = await cluster.list(resources.secret);
      const inA = collect(resources.secret, { namespace: nsA, resourceVersion }, (e) => [name, marker].includes(e.object.metadata.name));
      const all = collect(resources.secret, { resourceVersion }, (e) => e.object.metadata.name === name);
      try {
        await create(resources.secret, secret(name, nsB));
        await eventually(() => all.events.length >= 1, 'the all-namespaces watch to see the secret');
        all.watch.close();
        await cluster.patch(resources.secret, name, { metadata: { labels: { after: 'close' } } }, { namespace: nsB });
        await create(resources.secret, secret(marker, nsA));
        await eventually(() => inA.events.length >= 1, 'the marker event in the namespaced watch');
        expect(inA.events.map((e) => e.object.metadata.name)).toEqual([marker]);
        expect(all.events.map((e) => e.type)).toEqual(['ADDED']);
      } finally {
        inA.watch.close();
        all.watch.close();
      }
    });

    it('a watch from a too-old resourceVersion reports gone', async () => {
      const w = collect(resources.secret, { namespace: nsA, resourceVersion: '1' }, () => true);
      try {
        await eventually(() => w.errors.length > 0, 'the watch to fail');
        expect(w.errors[0].gone).toBe(true);
      } finally {
        w.watch.close();
      }
    });

    it('secrets keep their base64 data and type', async () => {
      const name = unique('data');
      const data = { username: Buffer.from('admin').toString('base64'), 'pass.word': Buffer.from('p@ss\nword').toString('base64') };
      await create(resources.secret, secret(name, nsA, { data }));
      const got = await cluster.get(resources.secret, name, nsA);
      expect(got?.data).toEqual(data);
      expect(got?.type).toBe('Opaque');
      const patched = await cluster.patch(resources.secret, name, { data: { extra: Buffer.from('x').toString('base64') } }, { namespace: nsA });
      expect(Object.keys(patched.data ?? {}).sort()).toEqual(['extra', 'pass.word', 'username']);
      expect(Buffer.from(patched.data!['pass.word'], 'base64').toString()).toBe('p@ss\nword');
    });

    it('stores core/v1 Events and lists one object\'s Events by field selector', async () => {
      const event = (name: string, involved: { kind: string; name: string }, reason: string): KubeObject => ({
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name, namespace: nsA },
        involvedObject: { apiVersion: 'kro.run/v1alpha1', kind: involved.kind, name: involved.name, namespace: nsA },
        reason,
        message: `${reason} for ${involved.name}`,
        type: 'Normal',
        source: { component: 'kro' },
        firstTimestamp: '2026-01-01T00:00:00Z',
        lastTimestamp: '2026-01-01T00:00:00Z',
        count: 1,
      });
      const web = unique('web');
      const other = unique('other');
      await create(resources.event, event(unique('ev'), { kind: 'WebApp', name: web }, 'ResourceCreated'));
      await create(resources.event, event(unique('ev'), { kind: 'WebApp', name: web }, 'Ready'));
      await create(resources.event, event(unique('ev'), { kind: 'Deployment', name: web }, 'ResourceCreated'));
      await create(resources.event, event(unique('ev'), { kind: 'WebApp', name: other }, 'Ready'));

      const ofWeb = await cluster.list(resources.event, { namespace: nsA, fieldSelector: `involvedObject.name=${web},involvedObject.kind=WebApp` });
      expect(ofWeb.items.map((e) => e.reason).sort()).toEqual(['Ready', 'ResourceCreated']);
      expect(ofWeb.items[0]).toMatchObject({ kind: 'Event', involvedObject: { kind: 'WebApp', name: web }, source: { component: 'kro' }, count: 1 });
      const notWeb = await cluster.list(resources.event, { namespace: nsA, fieldSelector: `involvedObject.name!=${web}` });
      expect(notWeb.items.map((e) => (e.involvedObject as { name: string }).name)).toContain(other);
      expect(notWeb.items.every((e) => (e.involvedObject as { name: string }).name !== web)).toBe(true);
      expect((await cluster.list(resources.event, { namespace: nsB, fieldSelector: `involvedObject.name=${web}` })).items).toEqual([]);
      expect(await cluster.discover('', 'v1', 'Event')).toEqual(resources.event);
    });

    it('discovers the built-in resources and not unknown kinds', async () => {
      expect(await cluster.discover('', 'v1', 'Secret')).toEqual(resources.secret);
      expect(await cluster.discover('', 'v1', 'Namespace')).toEqual(resources.namespace);
      expect(await cluster.discover('kro.run', 'v1alpha1', 'ResourceGraphDefinition')).toEqual(resources.rgd);
      expect(await cluster.discover('portico.dev', 'v1alpha1', 'Project')).toEqual(resources.project);
      expect(await cluster.discover('kro.run', 'v1alpha1', `NoSuchKind${run}`)).toBeUndefined();
    });

    it('discovers an instance kind declared by an RGD', async () => {
      const kind = `Contract${run.replace(/[^a-z0-9]/g, '')}App`.replace(/^./, (c) => c.toUpperCase());
      const rgdName = unique('rgd');
      await create(resources.rgd, {
        apiVersion: 'kro.run/v1alpha1',
        kind: 'ResourceGraphDefinition',
        metadata: { name: rgdName, labels: { ...runLabel } },
        spec: {
          schema: { apiVersion: 'v1alpha1', kind, spec: { name: 'string | default="demo"' } },
          resources: [
            {
              id: 'config',
              template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: '${schema.spec.name}' }, data: { hello: 'world' } },
            },
          ],
        },
      });
      let found: ResourceRef | undefined;
      await eventually(async () => (found = await cluster.discover('kro.run', 'v1alpha1', kind)) !== undefined, `discovery of ${kind}`, 60_000);
      expect(found).toEqual({ group: 'kro.run', version: 'v1alpha1', kind, plural: `${kind.toLowerCase()}s`, namespaced: true });
    });

    it('a dry-run create runs the checks of a create and stores nothing', async () => {
      const name = unique('dry');
      const would = await cluster.create(resources.secret, secret(name, nsA), { dryRun: true });
      expect(would.metadata).toMatchObject({ name, namespace: nsA });
      expect(await cluster.get(resources.secret, name, nsA)).toBeUndefined();
      expect((await cluster.list(resources.secret, { namespace: nsA, labelSelector: `portico.dev/contract-run=${run}` })).items.map((s) => s.metadata.name)).not.toContain(name);
      // The checks are the real ones: an object that exists is a CONFLICT, a bad name is refused.
      const taken = await create(resources.secret, secret(unique('taken'), nsA));
      await expectError(cluster.create(resources.secret, secret(taken.metadata.name, nsA), { dryRun: true }), 'CONFLICT', 'AlreadyExists');
      await expect(cluster.create(resources.secret, secret('Not_A_Name', nsA), { dryRun: true })).rejects.toSatisfy(isPorticoError);
    });

    it('lists the kinds it serves: built-in ones and a kind an RGD declares, without subresources', async () => {
      const kind = `Served${run.replace(/[^a-z0-9]/g, '')}Db`.replace(/^./, (c) => c.toUpperCase());
      await create(resources.rgd, {
        apiVersion: 'kro.run/v1alpha1',
        kind: 'ResourceGraphDefinition',
        metadata: { name: unique('served'), labels: { ...runLabel } },
        spec: { schema: { apiVersion: 'v1alpha1', kind, spec: { size: 'string | default="s"' } }, resources: [] },
      });
      await eventually(async () => (await cluster.discover('kro.run', 'v1alpha1', kind)) !== undefined, `discovery of ${kind}`, 60_000);
      const served = await cluster.apiResources();
      const has = (ref: ResourceRef) => served.some((s) => s.group === ref.group && s.version === ref.version && s.kind === ref.kind && s.plural === ref.plural);
      for (const ref of [resources.secret, resources.configMap, resources.namespace, resources.rgd, resources.project]) expect(has(ref), ref.kind).toBe(true);
      expect(served).toContainEqual({ group: 'kro.run', version: 'v1alpha1', kind, plural: `${kind.toLowerCase()}s`, namespaced: true });
      expect(served.filter((s) => s.plural.includes('/'))).toEqual([]);
    });

    it('reports healthy', () => {
      expect(cluster.health().ok).toBe(true);
    });
  });
}
