import { Writable } from 'node:stream';
import { createLogger } from '@portico/core';

/** A debug logger whose every line the test can read back: for checks that a value never reaches a log. */
export function capturedLogger() {
  const lines: string[] = [];
  const logger = createLogger('debug', new Writable({ write: (chunk: Buffer, _encoding, done) => (lines.push(chunk.toString('utf8')), done()) }));
  return { logger, lines, text: () => lines.join('') };
}
