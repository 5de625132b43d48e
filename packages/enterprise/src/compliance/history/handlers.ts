import type { EnterpriseRouteRow } from '@portico/api/enterprise';
import { tableHandlers } from '@portico/server';
import type { HistoryService } from './service.js';

/** One handler per history route (one service call each), typed from its row. */
export const historyHandlers = (history: HistoryService) =>
  tableHandlers<EnterpriseRouteRow>()({
    listViolationHistory: ({ actor, query }) => history.list(actor, query),
    countViolationHistory: ({ actor, query }) => history.count(actor, query),
    exportViolationHistory: async ({ actor, query, reply }) => {
      const download = await history.export(actor, query);
      reply.setHeader('Content-Type', download.contentType);
      reply.setHeader('Content-Disposition', `attachment; filename="${download.filename}"`);
      return download.stream;
    },
  });
