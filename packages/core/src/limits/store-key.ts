import { createHash } from 'node:crypto';

const READABLE = /^[A-Za-z0-9.:_@-]{1,128}$/;

/**
 * A store key part from a client-controlled value (an IP, a username, a subject): kept readable when it is
 * short and plain, otherwise hashed, so no input can make keys unbounded or smuggle separators into them.
 */
export const keyPart = (value: string): string =>
  READABLE.test(value) ? value : `#${createHash('sha256').update(value).digest('base64url')}`;
