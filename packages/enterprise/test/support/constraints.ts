import type { ApiAs } from '../../../server/test/support/api-as.js';
import { eventually } from '../../../core/test/support/eventually.js';

/**
 * Creates a constraint as a client should: a 503 (Gatekeeper does not serve the template's constraint kind yet,
 * which follows the template by a moment on a real cluster) is retried, any other answer is returned.
 */
export const createConstraint = (api: ApiAs, body: Record<string, unknown>) =>
  eventually(() => api.post('/api/v1/compliance/constraints', body), (r) => r.status !== 503, 'Gatekeeper to serve the constraint kind', { timeoutMs: 20_000 });
