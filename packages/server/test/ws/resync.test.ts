import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryKeyValue, type KeyValue } from '@portico/core';
import { wrapKv } from '../../../core/test/support/wrap-kv.js';
import { admin, connect, person, sleep, startStack, type Client, type Stack } from './harness.js';

/** A store whose subscription gaps the test triggers, and that loses the messages it is told to lose. */
function gappyKv(inner: KeyValue) {
  const gaps: Array<() => void> = [];
  const faults = { lose: '' };
  const kv = wrapKv(inner, {
    publish: async (channel, message) => (faults.lose && message.includes(faults.lose) ? undefined : inner.publish(channel, message)),
    subscribe(channel, onMessage, onGap) {
      if (onGap) gaps.push(onGap);
      return inner.subscribe(channel, onMessage, onGap);
    },
  });
  return { kv, faults, gap: () => gaps.forEach((g) => g()) };
}

/**
 * Issue 15, events under faults, at the socket: after a gap in the event stream every subscribed socket gets a
 * `resync` frame, and a session whose revocation notice was lost in the gap is closed anyway.
 */
describe('a gap in the event stream', () => {
  const store = gappyKv(createMemoryKeyValue());
  let stack: Stack;
  const clients: Client[] = [];

  beforeAll(async () => {
    stack = await startStack({ kv: store.kv });
  });
  afterAll(async () => {
    for (const c of clients) c.socket.terminate();
    await stack?.close();
    await store.kv.close();
  });

  const open = async (actor: Parameters<Stack['ticketFor']>[0]) => {
    const client = await connect(`${stack.base}/ws?ticket=${await stack.ticketFor(actor)}`);
    clients.push(client);
    await client.next((f) => f.type === 'counts_update');
    return client;
  };

  it('sends subscribed sockets a resync, and closes a session revoked while its notice was lost', async () => {
    const subscribed = await open(person('alice'));
    subscribed.send({ type: 'subscribe', data: { resourceType: 'instances' } });
    await subscribed.next((f) => f.type === 'subscribed');
    const name = `before-gap-${randomUUID().slice(0, 6)}`;
    await stack.portico.instances.create(admin, { name, namespace: 'dev', project: 'alpha', kind: 'WebApp', values: { image: 'nginx' } });
    const seen = await subscribed.next((f) => f.type === 'instance_update' && f.data.name === name);

    const username = `gap-${randomUUID().slice(0, 6)}`;
    await stack.portico.accounts.create(admin, { username, password: 'long-enough-password', groups: [] });
    const { token } = await stack.portico.auth.localLogin({ username, password: 'long-enough-password' }, { ip: '192.0.2.3' });
    const session = await stack.portico.auth.verifyToken(token);
    const revoked = await open(session);

    store.faults.lose = 'session_revoked';
    await stack.portico.auth.logout(session);
    await sleep(300);
    expect(revoked.socket.readyState).toBe(revoked.socket.OPEN); // the notice was lost: nothing told this replica

    store.gap();
    const resync = await subscribed.next((f) => f.type === 'resync', 2_000);
    expect(resync.data.reason).toBe('events-gap');
    // The newest change delivered before the gap: what a refetch returns is at least this new.
    expect(BigInt(resync.data.resourceVersion)).toBeGreaterThanOrEqual(BigInt(seen.data.instance.resourceVersion));
    expect(await Promise.race([revoked.closed, sleep(2_000).then(() => undefined)])).toMatchObject({ code: 4401 });
  });
});
