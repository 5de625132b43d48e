import type * as ee from '@portico/api/enterprise';
import { pluginHandler as handler, type Handler } from '@portico/server';
import type { HistoryService } from './service.js';

/** One handler per history route (one service call each). */
export function historyHandlers(history: HistoryService): Record<ee.ComplianceHistoryRouteRow['id'], Handler> {
  return {
    listViolationHistory: handler<{ query: ee.ViolationHistoryListQuery }>(({ actor, query }) => history.list(actor, query)),
    countViolationHistory: handler<{ query: ee.ViolationHistoryFilterQuery }>(({ actor, query }) => history.count(actor, query)),
    exportViolationHistory: handler<{ query: ee.ViolationHistoryExportQuery }>(async ({ actor, query, reply }) => {
      const download = await history.export(actor, query);
      reply.setHeader('Content-Type', download.contentType);
      reply.setHeader('Content-Disposition', `attachment; filename="${download.filename}"`);
      return download.stream;
    }),
  };
}
