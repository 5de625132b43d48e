import { afterEach, describe, expect, it, vi } from 'vitest';
import { createEmbeddedCluster, type EmbeddedCluster } from '../../src/adapters/embedded-cluster/index.js';
import { createLogger } from '../../src/logger.js';
import { resources, type KubeObject } from '../../src/ports/cluster.js';
import { eventually } from '../support/eventually.js';

const open: EmbeddedCluster[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(open.splice(0).map((c) => c.close()));
});

const secret = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: 'team-a' }, data: { k: 'dg==' } });

const rgd = (name: string, kind: string): KubeObject => ({
  apiVersion: 'kro.run/v1alpha1',
  kind: 'ResourceGraphDefinition',
  metadata: { name },
  spec: { schema: { apiVersion: 'v1alpha1', kind, spec: { name: 'string' } }, resources: [{ id: 'config', template: { kind: 'ConfigMap' } }] },
});

describe('embedded cluster: watch handlers', () => {
  it('reports a throwing handler and keeps delivering, instead of crashing the process', async () => {
    const errors: { msg: string; kind?: string }[] = [];
    const logger = createLogger('debug', {
      write(chunk: string) {
        const line = JSON.parse(chunk);
        if (line.level >= 50) errors.push(line);
        return true;
      },
    } as unknown as NodeJS.WritableStream);
    const cluster = await createEmbeddedCluster({ kroStepMs: 5, logger });
    open.push(cluster);
    const { resourceVersion } = await cluster.list(resources.secret);
    const seen: string[] = [];
    const watch = cluster.watch(resources.secret, { resourceVersion }, {
      onEvent: (e) => {
        seen.push(e.object.metadata.name);
        if (e.object.metadata.name === 'first') throw new Error('consumer bug');
      },
      onError: () => undefined,
    });
    // Both changes land in one delivery turn: the second must not be stranded behind the throw.
    await Promise.all([cluster.create(resources.secret, secret('first')), cluster.create(resources.secret, secret('second'))]);
    await eventually(() => seen, (names) => names.length >= 2, 'both events delivered', { timeoutMs: 2_000 });
    expect(seen).toEqual(['first', 'second']);
    expect(errors).toEqual([expect.objectContaining({ msg: 'watch event handler failed', kind: 'Secret' })]);
    watch.close();
  });
});

describe('embedded cluster: discovery', () => {
  it('finds an RGD-declared kind without copying every stored RGD', async () => {
    const cluster = await createEmbeddedCluster({ kroStepMs: 5 });
    open.push(cluster);
    for (let i = 0; i < 20; i++) await cluster.create(resources.rgd, rgd(`app-${i}`, `App${i}`));
    await cluster.controller.settle(); // nothing else in flight that could copy objects meanwhile
    const clones = vi.spyOn(globalThis, 'structuredClone');
    const ref = await cluster.discover('kro.run', 'v1alpha1', 'App19');
    expect(ref).toEqual({ group: 'kro.run', version: 'v1alpha1', kind: 'App19', plural: 'app19s', namespaced: true });
    expect(await cluster.discover('kro.run', 'v1alpha1', 'Missing')).toBeUndefined();
    expect(clones).not.toHaveBeenCalled();
  });
});
