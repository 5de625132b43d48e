import pkg from '../../package.json' with { type: 'json' };
import { routeHandlers } from './types.js';

/** How long a client is told to wait before asking a not-ready replica again (contract §1: every 503 says). */
const notReadyRetryAfterSeconds = 5;

/** §10 liveness and readiness; both unauthenticated so orchestrators can probe them. */
export const operationsHandlers = routeHandlers({
  healthz: () => ({ status: 'ok' }),
  serverVersion: () => ({ version: pkg.version }),
  readyz: async ({ portico, reply }) => {
    const readiness = await portico.readiness();
    if (readiness.status !== 'ok') {
      reply.status(503);
      reply.setHeader('Retry-After', String(notReadyRetryAfterSeconds));
    }
    return readiness;
  },
});
