import type { ViolationHistoryCount, ViolationHistoryExportQuery, ViolationHistoryFilterQuery, ViolationHistoryList, ViolationHistoryListQuery, ViolationHistoryRecord } from '@portico/api/enterprise';
import { download, type Download } from '../download.js';
import type { CallOptions, ClientOptions } from '../options.js';
import { paginateTotal } from '../paginate.js';
import type { Transport } from '../transport.js';

export type ViolationHistoryFilterInput = Partial<ViolationHistoryFilterQuery>;
export type ViolationHistoryListInput = Partial<ViolationHistoryListQuery>;
export type ViolationHistoryExportInput = ViolationHistoryFilterInput & Pick<ViolationHistoryExportQuery, 'since'>;

/** §12.5 violation history (Enterprise, license feature `compliance`): the caller's projects' records, all of them for a Server Admin. */
export interface ComplianceHistoryApi {
  /** One page of records, first seen newest first. */
  history(query?: ViolationHistoryListInput, opts?: CallOptions): Promise<ViolationHistoryList>;
  /** Every matching record, page after page. */
  historyAll(filter?: ViolationHistoryFilterInput, opts?: CallOptions): AsyncIterable<ViolationHistoryRecord>;
  /** How many records match, and the retention in days. */
  historyCount(filter?: ViolationHistoryFilterInput, opts?: CallOptions): Promise<ViolationHistoryCount>;
  /** The matching records as CSV, streamed (`since` required); nothing is buffered by the client. */
  exportHistory(query: ViolationHistoryExportInput, opts?: Omit<CallOptions, 'timeoutMs'>): Promise<Download>;
}

export function complianceHistoryApi(call: Transport, options: ClientOptions): ComplianceHistoryApi {
  const api: ComplianceHistoryApi = {
    history: (query = {}, opts) => call('listViolationHistory', { query }, opts),
    historyAll: (filter = {}, opts) => paginateTotal((page, pageSize) => api.history({ ...filter, page, pageSize }, opts)),
    historyCount: (filter = {}, opts) => call('countViolationHistory', { query: filter }, opts),
    exportHistory: (query, opts = {}) => download(options, '/api/v1/compliance/violations/history/export', query, opts, 'violation-history.csv'),
  };
  return api;
}
