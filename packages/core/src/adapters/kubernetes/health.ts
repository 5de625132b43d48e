import type { Logger } from '../../logger.js';
import type { ComponentHealth } from '../../ports/cluster.js';

/**
 * Connectivity to the API server as seen by the last request or watch: ok after any answer the server
 * produced deliberately (also a 404 or a 409), not ok after a refused or dropped connection, a timeout or a
 * 5xx. Changes are logged once, not per request.
 */
export function createHealthTracker(logger: Logger) {
  let state: ComponentHealth = { ok: false, message: 'no answer from the Kubernetes API yet' };
  return {
    succeeded() {
      if (!state.ok) logger.info('Kubernetes API reachable');
      state = { ok: true };
    },
    failed(message: string) {
      if (state.ok || state.message !== message) logger.warn({ reason: message }, 'Kubernetes API unreachable');
      state = { ok: false, message };
    },
    current: (): ComponentHealth => ({ ...state }),
  };
}

export type HealthTracker = ReturnType<typeof createHealthTracker>;
