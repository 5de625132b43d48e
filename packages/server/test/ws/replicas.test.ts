import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, createRedisKeyValue } from '@portico/core';
import { clusterModes } from '../support/cluster-modes.js';
import { connect, person, startStack, type Client, type Stack } from './harness.js';

const redisAddress = '127.0.0.1:6379';

/**
 * Two Portico servers over one real Redis. Embedded: each with its own embedded cluster from the same manifests,
 * so B learns of A's instance only through Redis. Kubernetes: two replicas watching one API server, so both see
 * every change and the source claim must keep each event single.
 */
describe.each(clusterModes)('WebSocket across two server processes on one Redis (%s cluster)', (mode) => {
  const prefix = `portico-test:${process.pid}:${randomUUID()}:`;
  const stacks: Stack[] = [];
  const clients: Client[] = [];
  const kvs = [0, 1].map(() => createRedisKeyValue({ address: redisAddress, prefix, logger: createLogger('silent') }));

  beforeAll(async () => {
    for (const kv of kvs) stacks.push(await startStack({ kv, mode, join: mode === 'kubernetes' ? stacks[0] : undefined }));
  });
  afterAll(async () => {
    for (const c of clients) c.socket.terminate();
    for (const s of [...stacks].reverse()) await s.close(); // a replica that joined goes before the cluster's owner
    for (const kv of kvs) await kv.close();
    const redis = new Redis(redisAddress);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });

  it('a ticket issued by A opens a socket on B, once', async () => {
    const [a, b] = stacks;
    const ticket = await a.ticketFor(person('alice'));
    const client = await connect(`${b.base}/ws?ticket=${ticket}`);
    clients.push(client);
    await client.next((f) => f.type === 'counts_update');
    await expect(connect(`${a.base}/ws?ticket=${ticket}`)).rejects.toThrow('401');
  });

  it('an instance created through A produces events on sockets of B', async () => {
    const [a, b] = stacks;
    const alice = person('alice');
    const onB = await connect(`${b.base}/ws?ticket=${await a.ticketFor(alice)}`);
    const strangerOnB = await connect(`${b.base}/ws?ticket=${await b.ticketFor(person('bob'))}`);
    clients.push(onB, strangerOnB);
    for (const c of [onB, strangerOnB]) {
      c.send({ type: 'subscribe', data: { resourceType: 'instances' } });
      await c.next((f) => f.type === 'subscribed');
    }

    await a.portico.instances.create(alice, { name: 'across', namespace: 'dev', project: 'alpha', kind: 'WebApp', values: { image: 'nginx' } });
    const added = await onB.next((f) => f.type === 'instance_update' && f.data.name === 'across');
    expect(added.data).toMatchObject({ action: 'add', project: 'alpha', instance: { name: 'across', kind: 'WebApp' } });
    const done = await onB.next((f) => f.type === 'deploy_progress' && f.data.name === 'across' && f.data.phase === 'ACTIVE');
    expect(done.data.readyResources).toBe(3);
    // each change arrives once, although both processes listen on the channel
    const versions = onB.frames
      .filter((f) => f.type === 'instance_update' && f.data.name === 'across')
      .map((f) => f.data.instance.resourceVersion);
    expect(new Set(versions).size).toBe(versions.length);
    expect(strangerOnB.frames.filter((f) => f.data?.name === 'across')).toEqual([]);
  });
});
