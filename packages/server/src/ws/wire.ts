import type { WebSocket } from 'ws';

/**
 * A server→client text frame. Server frames are unmasked (RFC 6455 §5.1), so the bytes on the wire are the same
 * for every recipient: an event is serialised once, and its bytes are built once and shared by every socket that
 * gets it. The bytes are built when the frame is written, not when it is queued: a frame may wait a moment for
 * the batch it belongs to, and memory that waits is memory that survives young-generation GCs; the JSON text is
 * all there is to keep meanwhile.
 */
export interface WireFrame {
  readonly json: string;
  /** UTF-8 length of the JSON. */
  readonly length: number;
  /** Size on the wire: header + payload. */
  readonly size: number;
  /** Header + payload, once built (see `frameBytes`). */
  bytes?: Buffer;
}

const FIN_TEXT = 0x80 | 0x1;

/** Header length of an unmasked frame with `length` payload bytes: 2, plus 2 or 8 for the extended length. */
const headerLength = (length: number) => (length < 126 ? 2 : length < 65_536 ? 4 : 10);

export function textFrame(json: string): WireFrame {
  const length = Buffer.byteLength(json, 'utf8');
  return { json, length, size: headerLength(length) + length };
}

/**
 * Writes one frame at `at` (final, text, unmasked, no RSV bits: what ws's `Sender.frame` produces for a server
 * without compression; the tests check it byte for byte), the JSON straight into the target. Returns the end.
 */
function writeFrame(target: Buffer, at: number, frame: WireFrame): number {
  const { length } = frame;
  const offset = headerLength(length);
  target[at] = FIN_TEXT;
  if (offset === 2) {
    target[at + 1] = length;
  } else if (offset === 4) {
    target[at + 1] = 126;
    target.writeUInt16BE(length, at + 2);
  } else {
    target[at + 1] = 127;
    target.writeUInt32BE(Math.floor(length / 2 ** 32), at + 2);
    target.writeUInt32BE(length >>> 0, at + 6);
  }
  return at + offset + target.write(frame.json, at + offset, 'utf8');
}

/** The wire bytes of one frame, built on first use and shared from then on. */
function frameBytes(frame: WireFrame): Buffer {
  if (frame.bytes === undefined) {
    frame.bytes = Buffer.allocUnsafe(frame.size);
    writeFrame(frame.bytes, 0, frame);
  }
  return frame.bytes;
}

/** The wire bytes of several frames back to back, in one allocation. */
export function framesBytes(frames: readonly WireFrame[]): Buffer {
  if (frames.length === 1) return frameBytes(frames[0]!);
  let size = 0;
  for (const f of frames) size += f.size;
  const bytes = Buffer.allocUnsafe(size);
  let at = 0;
  for (const f of frames) at = writeFrame(bytes, at, f);
  return bytes;
}

/** What a ws socket's sender looks like inside (ws 8): writes go straight to the TCP socket unless it is busy. */
interface SenderInternals {
  /** 0 (DEFAULT) when no compression or blob read is in progress, i.e. nothing is waiting in `_queue`. */
  _state?: unknown;
  _queue?: unknown[];
  sendFrame?(list: Buffer[], cb?: (err?: Error) => void): void;
}

/**
 * Writes frames to one socket in one `write` (one syscall for the lot). `bytes` is their concatenated wire form.
 *
 * The bytes go through ws's own sender (`sendFrame`, what `socket.send` ends in), but only while the sender is
 * idle: then `socket.send` would write synchronously too, so the order with every other frame of this socket
 * (replies, pings, close) is the order of the calls. When it is busy (a compressed or Blob message in progress,
 * never the case with our server options) or the internals are not what we expect, each frame goes through the
 * public `socket.send`, which queues behind the busy one.
 */
export function writeFrames(socket: WebSocket, frames: readonly WireFrame[], bytes: Buffer): void {
  const sender = (socket as unknown as { _sender?: SenderInternals })._sender;
  if (sender !== undefined && typeof sender.sendFrame === 'function' && sender._state === 0 && sender._queue?.length === 0) {
    sender.sendFrame([bytes]);
    return;
  }
  for (const frame of frames) socket.send(frame.json);
}
