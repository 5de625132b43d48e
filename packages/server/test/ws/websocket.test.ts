import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryKeyValue } from '@portico/core';
import { clusterModes } from '../support/cluster-modes.js';
import { ADMIN_PASSWORD, admin, connect, person, refused, sleep, startStack, switchableKv, waitUntil, type Client, type Frame, type Stack } from './harness.js';

const alice = person('alice');
const bob = person('bob');
const vic = person('vic');

const webapp = (name: string) => ({ name, namespace: 'dev', project: 'alpha', kind: 'WebApp', values: { image: 'nginx' } });
const about = (name: string) => (f: Frame) => (f.type === 'instance_update' || f.type === 'deploy_progress') && f.data.name === name;

describe.each(clusterModes)('WebSocket (%s cluster)', (mode) => {
  let stack: Stack;
  const kv = switchableKv(createMemoryKeyValue());
  const clients: Client[] = [];
  const open = async (actor = alice) => {
    const client = await connect(`${stack.base}/ws?ticket=${await stack.ticketFor(actor)}`);
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    stack = await startStack({ kv, mode });
  });
  afterAll(async () => {
    for (const c of clients) c.socket.terminate();
    await stack?.close();
  });

  describe('the upgrade', () => {
    it('accepts a ticket once, and greets with the caller’s counts', async () => {
      const ticket = await stack.ticketFor(alice);
      const client = await connect(`${stack.base}/ws?ticket=${ticket}`);
      clients.push(client);
      const counts = await client.next((f) => f.type === 'counts_update');
      expect(counts.data).toEqual({ rgdCount: 1, instanceCount: 0 });
      expect(Date.parse(counts.timestamp)).not.toBeNaN();

      const again = await refused(`${stack.base}/ws?ticket=${ticket}`);
      expect(again.status).toBe(401);
      expect(again.body).toMatchObject({ code: 'UNAUTHORIZED', details: {} });
      expect(typeof again.body.requestId).toBe('string');
    });

    it('refuses a missing, unknown or expired ticket with 401', async () => {
      expect((await refused(`${stack.base}/ws`)).status).toBe(401);
      const unknown = await refused(`${stack.base}/ws?ticket=${'A'.repeat(43)}`);
      expect([unknown.status, unknown.body.code]).toEqual([401, 'UNAUTHORIZED']);

      // Expire a real ticket the way time would: its own expiry is what counts.
      const ticket = await stack.ticketFor(alice);
      const stored = JSON.parse((await stack.portico.kv.get(`ticket:${ticket}`))!);
      await stack.portico.kv.set(`ticket:${ticket}`, JSON.stringify({ ...stored, expiresAt: new Date(Date.now() - 1000).toISOString() }), { ttlMs: 30_000 });
      expect((await refused(`${stack.base}/ws?ticket=${ticket}`)).status).toBe(401);
    });

    it('refuses a JWT in the URL even when it is valid', async () => {
      const { token } = await stack.portico.auth.localLogin({ username: 'admin', password: ADMIN_PASSWORD }, { ip: '127.0.0.1' });
      await expect(stack.portico.auth.verifyToken(token)).resolves.toMatchObject({ id: 'admin' });
      const answer = await refused(`${stack.base}/ws?token=${token}`);
      expect([answer.status, answer.body.code]).toEqual([401, 'UNAUTHORIZED']);
      // not even next to a good ticket
      expect((await refused(`${stack.base}/ws?token=${token}&ticket=${await stack.ticketFor(alice)}`)).status).toBe(401);
    });

    it('answers 503 while the key-value store is down, and 404 off /ws', async () => {
      const ticket = await stack.ticketFor(alice);
      kv.down = true;
      try {
        const answer = await refused(`${stack.base}/ws?ticket=${ticket}`);
        expect([answer.status, answer.body.code]).toEqual([503, 'SERVICE_UNAVAILABLE']);
        expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
      } finally {
        kv.down = false;
      }
      const elsewhere = await refused(`${stack.base}/sockets?ticket=${await stack.ticketFor(alice)}`);
      expect([elsewhere.status, elsewhere.body.code]).toEqual([404, 'NOT_FOUND']);
    });
  });

  describe('the protocol', () => {
    it('replies to subscribe, unsubscribe and ping, and reports bad messages', async () => {
      const client = await open();
      client.send({ type: 'subscribe', data: { resourceType: 'instances', project: 'alpha' } });
      expect((await client.next((f) => f.type === 'subscribed')).data).toEqual({ resourceType: 'instances', project: 'alpha', success: true });
      client.send({ type: 'unsubscribe', data: { resourceType: 'instances', project: 'alpha' } });
      expect((await client.next((f) => f.type === 'unsubscribed')).data).toEqual({ resourceType: 'instances', project: 'alpha' });
      client.send({ type: 'ping' });
      expect((await client.next((f) => f.type === 'pong')).data).toEqual({});
      client.send('{not json');
      expect((await client.next((f) => f.type === 'error')).data.code).toBe('INVALID_MESSAGE');
      client.send({ type: 'subscribe', data: { resourceType: 'secrets' } });
      expect((await client.next((f) => f.type === 'error' && f.data.code === 'INVALID_RESOURCE_TYPE')).data.message).toContain('instances');
      client.send({ type: 'dance' });
      await client.next((f) => f.type === 'error' && f.data.code === 'INVALID_MESSAGE' && f.data.message !== 'message is not valid JSON');
    });
  });

  describe('RGD events', () => {
    it('reach those the catalog shows the RGD to, with counts following', async () => {
      const betaMember = await open(bob);
      const alphaMember = await open(alice);
      for (const c of [betaMember, alphaMember]) {
        c.send({ type: 'subscribe', data: { resourceType: 'rgds' } });
        await c.next((f) => f.type === 'subscribed');
      }
      await stack.cluster.create(
        { group: 'kro.run', version: 'v1alpha1', kind: 'ResourceGraphDefinition', plural: 'resourcegraphdefinitions', namespaced: false },
        {
          apiVersion: 'kro.run/v1alpha1',
          kind: 'ResourceGraphDefinition',
          metadata: { name: 'beta-db', annotations: { 'portico.dev/catalog': 'true' }, labels: { 'portico.dev/project': 'beta' } },
          spec: { schema: { apiVersion: 'v1alpha1', kind: 'BetaDb', spec: {} }, resources: [{ id: 'cm', template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } } }] },
        },
      );
      const added = await betaMember.next((f) => f.type === 'rgd_update' && f.data.name === 'beta-db');
      expect(added.data).toMatchObject({ action: 'add', rgd: { name: 'beta-db', kind: 'BetaDb' } });
      await betaMember.next((f) => f.type === 'counts_update' && f.data.rgdCount === 2);
      await betaMember.next((f) => f.type === 'rgd_update' && f.data.name === 'beta-db' && f.data.rgd.status === 'Active');
      expect(alphaMember.frames.filter((f) => f.type === 'rgd_update' && f.data.name === 'beta-db')).toEqual([]);
      expect(alphaMember.frames.filter((f) => f.type === 'counts_update').map((f) => f.data.rgdCount)).toEqual([1]);
    });
  });

  describe('instance events', () => {
    it('reach the creator from add to Ready with growing progress, and never a member of another project', async () => {
      const creator = await open(alice);
      const stranger = await open(bob);
      creator.send({ type: 'subscribe', data: { resourceType: 'instances', project: 'alpha' } });
      stranger.send({ type: 'subscribe', data: { resourceType: 'all' } });
      await Promise.all([creator.next((f) => f.type === 'subscribed'), stranger.next((f) => f.type === 'subscribed')]);

      await stack.portico.instances.create(alice, webapp('live'));
      const ready = await creator.next(
        (f) => f.type === 'instance_update' && f.data.name === 'live' && f.data.instance.health === 'Healthy',
      );
      expect(ready.data.instance.conditions.find((c: { type: string }) => c.type === 'Ready').status).toBe('True');

      const updates = creator.frames.filter((f) => f.type === 'instance_update' && f.data.name === 'live');
      expect(updates[0].data).toMatchObject({ action: 'add', namespace: 'dev', kind: 'WebApp', project: 'alpha' });
      expect(updates.slice(1).every((f) => f.data.action === 'update')).toBe(true);
      const progress = creator.frames.filter((f) => f.type === 'deploy_progress' && f.data.name === 'live').map((f) => f.data);
      expect(progress[0]).toMatchObject({ instanceId: 'dev/WebApp/live', project: 'alpha', totalResources: 3 });
      const counts = progress.map((p) => p.readyResources);
      expect(counts).toEqual([...counts].sort((a, b) => a - b));
      expect(new Set(counts).size).toBeGreaterThan(1);
      expect(progress.at(-1)).toMatchObject({ phase: 'ACTIVE', readyResources: 3 });

      await creator.next((f) => f.type === 'counts_update' && f.data.instanceCount === 1);
      await sleep(100);
      expect(stranger.frames.filter(about('live'))).toEqual([]);
    });

    it('stop for a user whose binding is removed, without reconnecting', async () => {
      const carol = person('carol');
      await stack.portico.projects.bind(admin, 'alpha', 'viewer', 'user', 'carol');
      const watcher = await open(carol);
      const control = await open(vic);
      for (const c of [watcher, control]) {
        c.send({ type: 'subscribe', data: { resourceType: 'instances' } });
        await c.next((f) => f.type === 'subscribed');
      }
      await stack.portico.instances.create(alice, webapp('before'));
      await watcher.next(about('before'));

      await stack.portico.projects.unbind(admin, 'alpha', 'viewer', 'user', 'carol');
      await stack.portico.instances.create(alice, webapp('after'));
      await control.next((f) => f.type === 'deploy_progress' && f.data.name === 'after' && f.data.phase === 'ACTIVE');
      expect(watcher.frames.filter(about('after'))).toEqual([]);
      expect(watcher.socket.readyState).toBe(watcher.socket.OPEN);
    });

    it('closes a consumer that stops reading with 1013 instead of queueing', async () => {
      const slow = await open(alice);
      slow.send({ type: 'subscribe', data: { resourceType: 'instances' } });
      await slow.next((f) => f.type === 'subscribed');
      const before = slow.frames.length;
      (slow.socket as unknown as { _socket: { pause(): void } })._socket.pause();

      const published = 100;
      const big = 'x'.repeat(512 * 1024);
      for (let i = 0; i < published; i++) {
        await stack.portico.events.publish({
          type: 'instance_update',
          object: 'instances/alpha/dev/WebApp/flood',
          project: 'alpha',
          namespace: 'dev',
          name: 'flood',
          data: { action: 'update', name: 'flood', padding: big },
        });
      }
      await sleep(200);
      (slow.socket as unknown as { _socket: { resume(): void } })._socket.resume();
      const { code } = await slow.closed;
      expect(code).toBe(1013);
      const delivered = slow.frames.length - before;
      // 50 MiB were published; the server gave up long before queueing them all.
      expect(delivered).toBeLessThan(published / 2);
    });
  });
});

describe.each(clusterModes)('WebSocket heartbeat (%s cluster)', (mode) => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ ws: { heartbeatMs: 100 }, mode });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('drops a peer that stops answering pings and keeps one that answers', async () => {
    const live = await connect(`${stack.base}/ws?ticket=${await stack.ticketFor(alice)}`);
    const dead = await connect(`${stack.base}/ws?ticket=${await stack.ticketFor(alice)}`);
    await waitUntil(() => stack.ws.connectionCount() === 2);
    (dead.socket as unknown as { _socket: { pause(): void } })._socket.pause();
    await waitUntil(() => stack.ws.connectionCount() === 1, 5_000, 'the dead peer to be dropped');
    await sleep(350);
    expect(live.socket.readyState).toBe(live.socket.OPEN);
    expect(stack.ws.connectionCount()).toBe(1);
    live.socket.terminate();
    dead.socket.terminate();
  });

  it('closes every socket with 1001 on shutdown', async () => {
    const client = await connect(`${stack.base}/ws?ticket=${await stack.ticketFor(alice)}`);
    await stack.ws.close();
    expect((await client.closed).code).toBe(1001);
  });
});
