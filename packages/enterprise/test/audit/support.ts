import { randomUUID } from 'node:crypto';
import type { AuditDraft } from '../../src/audit/types.js';

/** A plausible event of `user`; fields can be overridden per test. */
export const draft = (user: string, extra: Partial<AuditDraft> = {}): AuditDraft => ({
  userId: user,
  userEmail: `${user}@example.com`,
  sourceIP: '10.0.0.1',
  userAgent: 'vitest',
  action: 'update',
  resource: 'projects',
  name: 'alpha',
  project: 'alpha',
  requestId: randomUUID(),
  result: 'success',
  httpStatus: 200,
  details: { input: { description: 'x' } },
  ...extra,
});
