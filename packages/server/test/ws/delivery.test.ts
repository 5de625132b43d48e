import { describe, expect, it } from 'vitest';
import { systemActor } from '@portico/core';
import * as ws from 'ws';
import { reply, type Connection } from '../../src/ws/connection.js';
import { createDecisionCache, createPrincipals } from '../../../core/src/events/decisions.js';
import { createOutbox, type Outbox, type Recipient } from '../../src/ws/outbox.js';
import { framesBytes, textFrame } from '../../src/ws/wire.js';

/** What ws itself puts on the wire for a server text message (no mask, no compression). */
const wsFramed = (json: string) =>
  Buffer.concat(
    (ws as unknown as { Sender: { frame(data: Buffer, o: object): Buffer[] } }).Sender.frame(Buffer.from(json), {
      fin: true,
      opcode: 1,
      mask: false,
      readOnly: false,
      rsv1: false,
    }),
  );

/** A stand-in for a ws socket: records what reaches its sender (one entry per TCP write) and what goes through send(). */
function fakeSocket(opts: { busySender?: boolean; buffered?: number; throws?: boolean } = {}) {
  const socket = {
    OPEN: 1,
    readyState: 1,
    bufferedAmount: opts.buffered ?? 0,
    writes: [] as Buffer[],
    sent: [] as string[],
    _sender: {
      _state: opts.busySender ? 1 : 0,
      _queue: [] as unknown[],
      sendFrame(list: Buffer[]) {
        if (opts.throws) throw new Error('socket exploded');
        socket.writes.push(list[0]!);
        socket.bufferedAmount += list[0]!.length; // nobody reads: it all stays buffered
      },
    },
    send(data: string) {
      socket.sent.push(data);
    },
  };
  return socket;
}

type FakeSocket = ReturnType<typeof fakeSocket>;
type FakeRecipient = Recipient & { socket: FakeSocket & Recipient['socket'] };
const recipient = (socket: FakeSocket) => ({ socket }) as unknown as FakeRecipient;
const endOfTurn = () => new Promise((r) => setImmediate(r));

function outboxFor(maxBufferBytes = 1 << 20) {
  const overflowed: FakeRecipient[] = [];
  const failed: unknown[] = [];
  const outbox = createOutbox<FakeRecipient>({
    maxBufferBytes,
    onOverflow: (r) => void overflowed.push(r),
    onError: (_r, err) => void failed.push(err),
  });
  return { outbox, overflowed, failed };
}

describe('pre-framed frames', () => {
  it('are byte for byte what ws would send, at every length encoding', () => {
    for (const size of [0, 1, 125, 126, 127, 200, 65_535, 65_536, 70_000]) {
      const json = JSON.stringify({ type: 'instance_update', data: 'x'.repeat(Math.max(0, size - 36)) }).slice(0, Math.max(size, 2));
      expect(framesBytes([textFrame(json)]).equals(wsFramed(json)), `payload of ${json.length} bytes`).toBe(true);
    }
    const unicode = JSON.stringify({ type: 'instance_update', data: { name: 'café ☕ 日本', emoji: '🚀'.repeat(40) } });
    expect(framesBytes([textFrame(unicode)]).equals(wsFramed(unicode))).toBe(true);
  });

  it('several frames are the frames back to back', () => {
    const jsons = ['{"a":1}', JSON.stringify({ b: 'y'.repeat(300) }), '{"c":3}'];
    expect(framesBytes(jsons.map(textFrame)).equals(Buffer.concat(jsons.map(wsFramed)))).toBe(true);
  });
});

describe('the outbox', () => {
  it('sends what a turn queued as one write per socket, in order, one shared buffer per sequence', async () => {
    const { outbox } = outboxFor();
    const [a, b, c] = [fakeSocket(), fakeSocket(), fakeSocket()].map(recipient);
    const first = textFrame('{"type":"instance_update","n":1}');
    const second = textFrame('{"type":"deploy_progress","n":2}');
    for (const r of [a, b]) outbox.push(r, first);
    outbox.push(c, first);
    for (const r of [a, b]) outbox.push(r, second);
    expect(a.socket.writes).toEqual([]); // nothing before the end of the turn

    await endOfTurn();
    expect(a.socket.writes).toHaveLength(1);
    expect(a.socket.writes[0]!.equals(Buffer.concat([wsFramed(first.json), wsFramed(second.json)]))).toBe(true);
    expect(b.socket.writes).toHaveLength(1);
    expect(b.socket.writes[0]).toBe(a.socket.writes[0]); // the same Buffer, built once
    expect(c.socket.writes.map((w) => w.equals(wsFramed(first.json)))).toEqual([true]);

    outbox.push(a, second);
    await endOfTurn();
    expect(a.socket.writes).toHaveLength(2); // a new turn, a new write
  });

  it('falls back to socket.send, frame by frame and in order, while the ws sender is busy', async () => {
    const { outbox } = outboxFor();
    const busy = recipient(fakeSocket({ busySender: true }));
    outbox.push(busy, textFrame('{"n":1}'));
    outbox.push(busy, textFrame('{"n":2}'));
    await endOfTurn();
    expect(busy.socket.writes).toEqual([]);
    expect(busy.socket.sent).toEqual(['{"n":1}', '{"n":2}']);
  });

  it('sends a batch that would overflow frame by frame as far as the bound allows, then hands the socket over', async () => {
    const frame = () => textFrame(JSON.stringify({ pad: 'z'.repeat(380) })); // ~400 bytes on the wire
    const { outbox, overflowed } = outboxFor(1000);
    const slow = recipient(fakeSocket());
    const fine = recipient(fakeSocket());
    for (let i = 0; i < 3; i++) outbox.push(slow, frame());
    outbox.push(fine, frame());
    await endOfTurn();
    expect(slow.socket.writes).toHaveLength(2); // 400 + 400 fit in 1000, the third would not
    expect(overflowed).toEqual([slow]);
    expect(fine.socket.writes).toHaveLength(1);
  });

  it('writes nothing to a closing socket, and one failing socket does not keep frames from the others', async () => {
    const { outbox, failed } = outboxFor();
    const closing = recipient(fakeSocket());
    closing.socket.readyState = 2;
    const broken = recipient(fakeSocket({ throws: true }));
    const fine = recipient(fakeSocket());
    for (const r of [closing, broken, fine]) outbox.push(r, textFrame('{"n":1}'));
    await endOfTurn();
    expect(closing.socket.writes).toEqual([]);
    expect(failed).toHaveLength(1);
    expect(fine.socket.writes).toHaveLength(1);
    // the broken socket is not stuck with a half-sent batch: its next frames are tried again
    outbox.push(broken, textFrame('{"n":2}'));
    await endOfTurn();
    expect(failed).toHaveLength(2);
  });

  it('keeps a reply behind the events already queued for its socket', async () => {
    const { outbox } = outboxFor();
    const socket = fakeSocket();
    const conn = { socket, batch: undefined, outbox: outbox as unknown as Outbox<Connection> } as unknown as Connection;
    reply(conn, 'pong', {}); // nothing queued: straight out
    expect(socket.sent).toHaveLength(1);

    outbox.push(conn as unknown as FakeRecipient, textFrame('{"type":"instance_update","data":{"name":"x"}}'));
    reply(conn, 'unsubscribed', { resourceType: 'instances' });
    expect(socket.sent).toHaveLength(1); // waits behind the event
    await endOfTurn();
    const text = socket.writes[0]!.toString('utf8');
    expect(text.indexOf('"instance_update"')).toBeGreaterThan(-1);
    expect(text.indexOf('"unsubscribed"')).toBeGreaterThan(text.indexOf('"instance_update"'));
  });
});

describe('principals and remembered decisions', () => {
  it('sockets of one user share a principal until the last one goes; other groups are someone else', () => {
    const principals = createPrincipals();
    const first = principals.acquire({ ...systemActor('alice', ['dev', 'ops']), tokenId: 't1' });
    const second = principals.acquire({ ...systemActor('alice', ['ops', 'dev']), tokenId: 't2' });
    const otherGroups = principals.acquire(systemActor('alice', ['dev']));
    expect(second).toBe(first);
    expect(otherGroups).not.toBe(first);
    principals.release(first);
    expect(principals.acquire(systemActor('alice', ['dev', 'ops']))).toBe(first); // one socket still holds it
    principals.release(first);
    principals.release(first);
    expect(principals.acquire(systemActor('alice', ['dev', 'ops']))).not.toBe(first);
  });

  it('start over past their bound and on clear()', () => {
    const principal = createPrincipals().acquire(systemActor('alice'));
    const cache = createDecisionCache(2);
    cache.remember(cache.memoFor('instances/a/dev/K/one'), principal, true);
    cache.remember(cache.memoFor('instances/a/dev/K/two'), principal, false);
    expect(cache.memoFor('instances/a/dev/K/one').get(principal)).toBe(true);
    cache.memoFor('instances/a/dev/K/three'); // a third object past the bound: everything is dropped
    expect(cache.memoFor('instances/a/dev/K/one').get(principal)).toBeUndefined();
    cache.remember(cache.memoFor('instances/a/dev/K/one'), principal, true);
    cache.clear();
    expect(cache.size()).toBe(0);
    expect(cache.memoFor('instances/a/dev/K/one').get(principal)).toBeUndefined();
  });
});
