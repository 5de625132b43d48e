import type { EnterpriseRouteRow } from '@portico/api/enterprise';
import { tableHandlers, type Handler } from '@portico/server';
import type { AuditService } from './service.js';

/** One handler per audit route (one service call each), typed from its row; Form B ids (ending in `FormB`) share them. */
export function auditHandlers(audit: AuditService): Record<string, Handler> {
  const formA = tableHandlers<EnterpriseRouteRow>()({
    listAuditEvents: ({ actor, query }) => audit.list(actor, query),
    getAuditEvent: ({ actor, params }) => audit.get(actor, params.id),
    eraseAuditEvent: ({ actor, params, body }) => audit.erase(actor, params.id, body.reason),
    exportAuditEvents: async ({ actor, query, reply }) => {
      const download = await audit.export(actor, query);
      reply.setHeader('Content-Type', download.contentType);
      reply.setHeader('Content-Disposition', `attachment; filename="${download.filename}"`);
      return download.stream;
    },
    auditStats: ({ actor }) => audit.stats(actor),
    getAuditConfig: ({ actor }) => audit.getConfig(actor),
    updateAuditConfig: ({ actor, body }) => audit.putConfig(actor, body),
    verifyAudit: ({ actor }) => audit.verify(actor),
  });
  return { ...formA, ...Object.fromEntries(Object.entries(formA).map(([id, h]) => [`${id}FormB`, h])) };
}
