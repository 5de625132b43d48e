import type { WebSocket } from 'ws';
import { framesBytes, writeFrames, type WireFrame } from './wire.js';

/**
 * A sequence of frames owed to a socket this turn, as a node of a trie shared by every socket: sockets that are
 * owed the same frames in the same order (the 40 members of a project that all get a change's instance_update
 * and deploy_progress) end on the same node, so their bytes are built once and shared too.
 */
export interface Batch {
  readonly frames: readonly WireFrame[];
  /** Their total size on the wire. */
  readonly size: number;
  next?: Map<WireFrame, Batch>;
  /** The frames' wire bytes back to back; built at flush, once per node. */
  bytes?: Buffer;
}

/** Anything the outbox can write to: a socket and the batch it is owed (undefined when nothing is). */
export interface Recipient {
  readonly socket: WebSocket;
  batch?: Batch;
}

export interface Outbox<R extends Recipient> {
  /** Queues `frame` for `to`, after whatever is already queued for it; sent once the current task is done. */
  push(to: R, frame: WireFrame): void;
  /** Sends everything queued now (before closing sockets); a flush with nothing queued does nothing. */
  flush(): void;
  /** Drops what is queued. */
  close(): void;
}

interface OutboxOptions<R extends Recipient> {
  /** A socket that would hold more unsent bytes than this is not written to: `onOverflow` decides its fate. */
  maxBufferBytes: number;
  onOverflow(recipient: R, buffered: number): void;
  /** A write threw (a bug, or ws internals changed): reported, and the other sockets are still served. */
  onError(recipient: R, err: unknown): void;
}

const emptyBatch = (): Batch => ({ frames: [], size: 0 });

/**
 * Coalesces what is sent to each socket within one event-loop turn into one write. A TCP write costs about the
 * same CPU whatever its size (on loopback the receiving side's packet processing is charged to it too), which makes
 * the number of writes, not bytes or JSON, the price of a delivery: a change's instance_update and
 * deploy_progress, and under load every change that arrived in the same turn, cost each socket one syscall. The
 * flush runs at the end of the turn (setImmediate): nothing waits for a timer, and when the process falls behind
 * the batches grow by themselves (a burst of 1,000 changes goes out as one write per socket). Pushing costs a map
 * lookup per socket and event, with no allocation unless the sequence is new.
 */
export function createOutbox<R extends Recipient>(opts: OutboxOptions<R>): Outbox<R> {
  let root = emptyBatch();
  let due: R[] = [];
  let scheduled = false;

  const flush = () => {
    scheduled = false;
    const now = due;
    due = [];
    root = emptyBatch();
    for (const recipient of now) {
      const batch = recipient.batch!;
      recipient.batch = undefined;
      try {
        send(recipient, batch);
      } catch (err) {
        // One socket's failure must not keep the others' frames (their batches are already taken off them).
        opts.onError(recipient, err);
      }
    }
  };

  const send = (recipient: R, batch: Batch) => {
    const { socket } = recipient;
    // Closing or gone: a frame after our close frame would be a protocol error.
    if (socket.readyState !== socket.OPEN) return;
    if (socket.bufferedAmount + batch.size <= opts.maxBufferBytes || batch.frames.length === 1) {
      if (!fits(recipient, batch.size)) return;
      batch.bytes ??= framesBytes(batch.frames);
      writeFrames(socket, batch.frames, batch.bytes);
      return;
    }
    // It would not all fit: frame by frame, as far as the buffer allows (what a one-by-one send would do).
    for (const frame of batch.frames) {
      if (!fits(recipient, frame.size)) return;
      writeFrames(socket, [frame], framesBytes([frame]));
    }
  };

  /** Whether `size` more bytes may be queued on the socket; if not, the overflow handler decides its fate. */
  const fits = (recipient: R, size: number): boolean => {
    const buffered = recipient.socket.bufferedAmount;
    if (buffered > 0 && buffered + size > opts.maxBufferBytes) {
      opts.onOverflow(recipient, buffered);
      return false;
    }
    return true;
  };

  return {
    push(to, frame) {
      const from = to.batch ?? root;
      let next = from.next?.get(frame);
      if (next === undefined) {
        next = { frames: [...from.frames, frame], size: from.size + frame.size };
        (from.next ??= new Map()).set(frame, next);
      }
      if (to.batch === undefined) due.push(to);
      to.batch = next;
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    flush,
    close() {
      for (const recipient of due) recipient.batch = undefined;
      due = [];
      root = emptyBatch();
    },
  };
}
