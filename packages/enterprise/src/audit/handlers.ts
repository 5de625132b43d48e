import type * as ee from '@portico/api/enterprise';
import { pluginHandler as handler, type Handler } from '@portico/server';
import type { AuditService } from './service.js';

/** One handler per audit route (one service call each); both path forms share them (Form B ids end in `FormB`). */
export function auditHandlers(audit: AuditService): Record<string, Handler> {
  const formA: Record<string, Handler> = {
    listAuditEvents: handler<{ query: ee.AuditListQuery }>(({ actor, query }) => audit.list(actor, query)),
    getAuditEvent: handler<{ params: { id: string } }>(({ actor, params }) => audit.get(actor, params.id)),
    exportAuditEvents: handler<{ query: ee.AuditExportQuery }>(async ({ actor, query, reply }) => {
      const download = await audit.export(actor, query);
      reply.setHeader('Content-Type', download.contentType);
      reply.setHeader('Content-Disposition', `attachment; filename="${download.filename}"`);
      return download.stream;
    }),
    auditStats: handler(({ actor }) => audit.stats(actor)),
    getAuditConfig: handler(({ actor }) => audit.getConfig(actor)),
    updateAuditConfig: handler<{ body: ee.AuditConfig }>(({ actor, body }) => audit.putConfig(actor, body)),
    verifyAudit: handler(({ actor }) => audit.verify(actor)),
  };
  return { ...formA, ...Object.fromEntries(Object.entries(formA).map(([id, h]) => [`${id}FormB`, h])) };
}
