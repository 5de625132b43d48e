import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DomainEvent } from '@portico/core';
import { admin, connect, person, sleep, startStack, waitUntil, type Client, type Frame, type Stack } from './harness.js';

const alice = person('alice'); // developer in alpha
const vic = person('vic'); // viewer in alpha
const bob = person('bob'); // developer in beta

const alphaEvent = (name: string, n: number): DomainEvent => ({
  type: n % 2 === 0 ? 'instance_update' : 'deploy_progress',
  object: `instances/alpha/dev/WebApp/${name}`,
  project: 'alpha',
  namespace: 'dev',
  name,
  data: { name, n },
});
const numbered = (client: Client, name?: string) =>
  client.frames.filter((f: Frame) => (f.type === 'instance_update' || f.type === 'deploy_progress') && (name === undefined || f.data.name === name)).map((f) => f.data.n);

describe('WebSocket fan-out', () => {
  let stack: Stack;
  const clients: Client[] = [];
  const subscribed = async (actor = alice) => {
    const client = await connect(`${stack.base}/ws?ticket=${await stack.ticketFor(actor)}`);
    clients.push(client);
    client.send({ type: 'subscribe', data: { resourceType: 'instances' } });
    await client.next((f) => f.type === 'subscribed');
    return client;
  };

  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    for (const c of clients) c.socket.terminate();
    await stack?.close();
  });

  it('sends events published together to every socket that may see them, in order, and to no other', async () => {
    const [aliceOne, aliceTwo, viewer, stranger] = await Promise.all([subscribed(alice), subscribed(alice), subscribed(vic), subscribed(bob)]);
    const events = Array.from({ length: 6 }, (_, n) => alphaEvent(`batch-${n % 3}`, n));
    await Promise.all(events.map((e) => stack.portico.events.publish(e)));

    for (const client of [aliceOne, aliceTwo, viewer]) {
      await waitUntil(() => numbered(client).length === 6, 5_000, 'six events');
      expect(numbered(client)).toEqual([0, 1, 2, 3, 4, 5]);
    }
    // one serialisation for everyone: the very same frame (timestamp included) on every socket
    const texts = (c: Client) => c.frames.filter((f) => f.data?.name?.startsWith('batch-')).map((f) => JSON.stringify(f));
    expect(texts(aliceTwo)).toEqual(texts(aliceOne));
    expect(texts(viewer)).toEqual(texts(aliceOne));
    await sleep(100);
    expect(numbered(stranger)).toEqual([]);
  });

  it('forgets a remembered decision as soon as the policy changes, both ways, for a member who stays a member', async () => {
    // carol holds one role in alpha throughout (so she stays in its audience); only what the role permits changes
    const carol = person('carol');
    const object = 'instances/alpha/dev/WebApp/same';
    const auditorMay = async (policies: string[]) => {
      const project = stack.portico.projects.get(admin, 'alpha');
      const roles = [...project.roles.filter((r) => r.name !== 'auditor'), { name: 'auditor', policies, users: ['carol'], groups: [] }];
      await stack.portico.projects.update(admin, 'alpha', { roles, resourceVersion: project.resourceVersion });
      const allowed = policies.some((p) => p.startsWith('instances/'));
      await waitUntil(() => stack.portico.authz.can(carol, 'get', object) === allowed, 5_000, 'the new policy');
      expect(stack.portico.authz.memberProjects(carol)).toContain('alpha');
    };
    const [watcher, control] = await Promise.all([
      auditorMay(['instances/*, get, allow']).then(() => subscribed(carol)),
      subscribed(alice),
    ]);
    const publish = async (n: number) => {
      await stack.portico.events.publish(alphaEvent('same', n));
      await waitUntil(() => numbered(control, 'same').includes(n), 5_000, `event ${n} at the control socket`);
    };

    await publish(10); // decided (yes) and remembered for this object
    await waitUntil(() => numbered(watcher, 'same').includes(10), 5_000, 'the first event');

    await auditorMay(['rgds/*, get, allow']);
    await publish(11); // the same object: a stale "yes" would leak it
    await sleep(50);
    expect(numbered(watcher, 'same')).toEqual([10]);

    await auditorMay(['instances/*, get, allow']);
    await publish(12); // and a stale "no" would withhold it
    await waitUntil(() => numbered(watcher, 'same').includes(12), 5_000, 'the event after the role got its permission back');
    expect(numbered(watcher, 'same')).toEqual([10, 12]);
    expect(watcher.socket.readyState).toBe(watcher.socket.OPEN);
  });
});
