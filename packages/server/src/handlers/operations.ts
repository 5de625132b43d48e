import { handler } from './types.js';

/** §10 liveness and readiness; both unauthenticated so orchestrators can probe them. */
export const operationsHandlers = {
  healthz: handler(() => ({ status: 'ok' })),
  readyz: handler(async ({ portico, reply }) => {
    const readiness = await portico.readiness();
    if (readiness.status !== 'ok') reply.status(503);
    return readiness;
  }),
};
