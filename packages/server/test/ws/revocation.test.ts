import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, createRedisKeyValue, type Actor } from '@portico/core';
import { deleteRedisKeys, redisAddress, uniqueRedisPrefix } from '../support/portico.js';
import { admin, connect, sleep, startStack, type Client, type Stack } from './harness.js';

/**
 * Issue 15: revocation reaches every open socket. Two replicas (two Portico servers on one Kubernetes API
 * server and one real Redis): a session revoked through replica A loses its sockets on A and on B within 2 s,
 * closed with 4401; other sessions stay open.
 */
describe('revocation closes the sockets of the revoked session on every replica', () => {
  const prefix = uniqueRedisPrefix();
  const kvs = [0, 1].map(() => createRedisKeyValue({ address: redisAddress, prefix, logger: createLogger('silent') }));
  const stacks: Stack[] = [];
  const clients: Client[] = [];

  beforeAll(async () => {
    for (const kv of kvs) stacks.push(await startStack({ kv, mode: 'kubernetes', join: stacks[0] }));
  });
  afterAll(async () => {
    for (const c of clients) c.socket.terminate();
    for (const s of [...stacks].reverse()) await s.close();
    for (const kv of kvs) await kv.close();
    await deleteRedisKeys(prefix);
  });

  /** A local account created through A, signed in (through A) `sessions` times. */
  async function account(sessions = 1) {
    const [a] = stacks;
    const username = `u-${randomUUID().slice(0, 8)}`;
    const password = `pw-${randomUUID()}`;
    await a.portico.accounts.create(admin, { username, password, groups: [] });
    const actors: Actor[] = [];
    for (let i = 0; i < sessions; i++) {
      const { token } = await a.portico.auth.localLogin({ username, password }, { ip: '192.0.2.10' });
      actors.push(await a.portico.auth.verifyToken(token));
    }
    return { username, password, actors };
  }

  /** A socket of `actor`'s session on `stack`, past its first frame. */
  async function socketOn(stack: Stack, actor: Actor): Promise<Client> {
    const client = await connect(`${stack.base}/ws?ticket=${(await stack.portico.auth.issueTicket(actor)).ticket}`);
    clients.push(client);
    await client.next((f) => f.type === 'counts_update');
    return client;
  }

  /** Resolves with the close code and how long it took, or fails after `withinMs`. */
  async function closedWithin(client: Client, since: number, withinMs = 2_000) {
    const result = await Promise.race([client.closed, sleep(withinMs).then(() => undefined)]);
    expect(result, `the socket was still open ${withinMs} ms later`).toBeDefined();
    return { code: result!.code, ms: Date.now() - since };
  }

  const stillOpen = (client: Client) => client.socket.readyState === client.socket.OPEN;

  it('logout: the session\'s sockets on both replicas close with 4401; the user\'s other session stays', async () => {
    const [a, b] = stacks;
    const { actors } = await account(2);
    const [loggedOut, other] = actors;
    const onA = await socketOn(a, loggedOut);
    const onB = await socketOn(b, loggedOut);
    const otherOnB = await socketOn(b, other);

    const since = Date.now();
    await a.portico.auth.logout(loggedOut);
    for (const client of [onA, onB]) expect(await closedWithin(client, since)).toMatchObject({ code: 4401 });
    await sleep(200);
    expect(stillOpen(otherOnB)).toBe(true);
  });

  it('password change: every earlier session of the account loses its sockets on both replicas', async () => {
    const [a, b] = stacks;
    const { username, password, actors } = await account(2);
    const sockets = [await socketOn(a, actors[0]), await socketOn(b, actors[0]), await socketOn(b, actors[1])];
    const bystander = await socketOn(b, (await account()).actors[0]);

    const since = Date.now();
    await a.portico.accounts.changePassword(actors[0], { currentPassword: password, newPassword: `new-${password}` });
    for (const client of sockets) expect(await closedWithin(client, since)).toMatchObject({ code: 4401 });
    expect(stillOpen(bystander)).toBe(true);
    // A session started after the change keeps its socket.
    const { token } = await b.portico.auth.localLogin({ username, password: `new-${password}` }, { ip: '192.0.2.10' });
    const fresh = await socketOn(b, await b.portico.auth.verifyToken(token));
    await sleep(300);
    expect(stillOpen(fresh)).toBe(true);
  });

  it('account deletion: the account\'s sockets close on both replicas', async () => {
    const [a, b] = stacks;
    const { username, actors } = await account();
    const sockets = [await socketOn(a, actors[0]), await socketOn(b, actors[0])];

    const since = Date.now();
    await a.portico.accounts.delete(admin, username);
    for (const client of sockets) expect(await closedWithin(client, since)).toMatchObject({ code: 4401 });
  });

  it('binding removal: the socket on the other replica stops receiving the project\'s events at once', async () => {
    const [a, b] = stacks;
    const { username, actors } = await account();
    await a.portico.projects.bind(admin, 'alpha', 'developer', 'user', username);
    const onB = await socketOn(b, actors[0]);
    onB.send({ type: 'subscribe', data: { resourceType: 'instances', project: 'alpha' } });
    await onB.next((f) => f.type === 'subscribed');

    const before = `seen-${randomUUID().slice(0, 6)}`;
    await a.portico.instances.create(admin, { name: before, namespace: 'dev', project: 'alpha', kind: 'WebApp', values: { image: 'nginx' } });
    await onB.next((f) => f.type === 'instance_update' && f.data.name === before, 5_000);
    await onB.next((f) => f.type === 'counts_update' && f.data.instanceCount > 0, 5_000);

    await a.portico.projects.unbind(admin, 'alpha', 'developer', 'user', username);
    // B learns of the change through its own watch of the cluster; give it the 2 s the issue allows.
    await sleep(2_000);
    const after = `unseen-${randomUUID().slice(0, 6)}`;
    await a.portico.instances.create(admin, { name: after, namespace: 'dev', project: 'alpha', kind: 'WebApp', values: { image: 'nginx' } });
    // A member on B does get it, so its absence below is not a slow pipeline.
    const { actors: [member] } = await account();
    await a.portico.projects.bind(admin, 'alpha', 'viewer', 'user', member.id);
    const witness = await socketOn(b, member);
    witness.send({ type: 'subscribe', data: { resourceType: 'instances', project: 'alpha' } });
    await witness.next((f) => f.type === 'subscribed');
    await a.portico.instances.delete(admin, { namespace: 'dev', kind: 'WebApp', name: after });
    await witness.next((f) => f.type === 'instance_update' && f.data.name === after, 5_000);
    expect(onB.frames.filter((f) => f.data?.name === after)).toEqual([]);
    // The socket itself stays: the session is valid, only what it may see changed; its counts follow.
    expect(stillOpen(onB)).toBe(true);
    const counts = onB.frames.filter((f) => f.type === 'counts_update').map((f) => f.data.instanceCount);
    expect(counts.at(-1)).toBe(0);
  });
});
